// One identity per person (docs/wallets.md): merges the users split in two before a wallet identifier resolved
// to the user holding it. A batch save for `sol:<address>`, where the address was a user's own embedded wallet,
// used to create a second user (the ghost) whose points, ranks and payouts nobody could reach. For each ghost
// this moves, to the person:
//   - its identifiers (the wallet, its provider subject): they resolve to the person from then on, and the
//     ghost's Arc ID too (the ghost is marked `mergedInto`, first, so nothing new lands on it meanwhile);
//   - its play: sessions with exactly their points, day and all-time totals added to the person's, both players'
//     places on the boards (lib/play/merge.ts); a day whose settlement is due or being paid is left until it is
//     settled (run again);
//   - its payouts: the records are listed under the person; what it is still owed (carries) is added to the
//     person's, unless a settlement of the game is open (run again);
//   - its shares of games' requested rewards splits.
// It cannot move what already left the platform: SOL payouts sent to the ghost's embedded wallet and game-coin
// allocations keyed by that wallet stay there (the provider holds its key); the outcome names the wallet.
//
//   npm run merge-identities              dry run: one JSON line per split found, what would merge
//   npm run merge-identities -- --execute merge
//
// Reads the functions' settings from the environment (the tables, IDP_API_URL, IDP_APP_ID,
// IDP_CREDENTIALS_SECRET_ID, IDP_SIGNER_ID). Safe to re-run: every step is conditional on what it moves still being the ghost's; a second
// run moves nothing.
import { pathToFileURL } from 'node:url';
import { parseArgs } from 'node:util';
import { listGameIds, moveSplitShares } from '../lib/games/index.js';
import {
  type DayMove,
  type GameFootprint,
  moveAllTimeRemainder,
  movePlayerDay,
  playerFootprint,
} from '../lib/play/index.js';
import { boardMayChange, moveCarry, redirectPayouts } from '../lib/rewards/index.js';
import {
  beginMerge,
  completeMerge,
  findSplitIdentities,
  moveIdentifiers,
  type SplitIdentity,
  walletAddresses,
} from '../lib/user/index.js';

export interface MergeOutcome {
  ghost: string;
  person: string;
  /** The person's embedded wallet the ghost held (null for a merge begun by an earlier run). */
  wallet: string | null;
  status: 'merged' | 'incomplete' | 'would-merge' | 'refused';
  reason?: string;
  identifiers: string[];
  days: DayMove[];
  allTime: Array<{ gameId: string; points: number }>;
  payoutsListed: number;
  carries: Array<{ gameId: string; lamports: number } | { gameId: string; open: true }>;
  splits: string[];
  /** What stays with the ghost's own embedded wallet: it was sent there. */
  leftInGhostWallet: { wallet: string | null; payoutLamports: string };
}

export interface MergeDeps {
  now?: () => Date;
}

const empty = ({ ghost, person, wallet }: SplitIdentity): Omit<MergeOutcome, 'status'> => ({
  ghost,
  person,
  wallet,
  identifiers: [],
  days: [],
  allTime: [],
  payoutsListed: 0,
  carries: [],
  splits: [],
  leftInGhostWallet: { wallet: null, payoutLamports: '0' },
});

/** One game's play of the ghost, day by day, then its all-time total once every day moved. */
const moveGame = async (split: SplitIdentity, game: GameFootprint, now: Date, out: MergeOutcome) => {
  const at = now.toISOString();
  let everyDay = true;
  for (const day of [...game.days].sort()) {
    const moved: DayMove = (await boardMayChange(game.gameId, day, now))
      ? await movePlayerDay(game.gameId, day, split.ghost, split.person, game.sessions.get(day) ?? [], at)
      : {
          gameId: game.gameId,
          day,
          points: 0,
          sessions: 0,
          status: 'refused',
          reason: 'its settlement is due or being paid: run again once it is settled',
        };
    if (moved.status === 'refused') everyDay = false;
    if (moved.status !== 'nothing') out.days.push(moved);
  }
  if (!everyDay) return false;
  const points = await moveAllTimeRemainder(game.gameId, split.ghost, split.person, at);
  if (points > 0) out.allTime.push({ gameId: game.gameId, points });
  return true;
};

/** The ghost's payouts listed under the person, and its carries added to the person's; false if one waits. */
const moveMoney = async (split: SplitIdentity, at: string, out: MergeOutcome) => {
  const payouts = await redirectPayouts(split.ghost, split.person);
  out.payoutsListed = payouts.moved;
  out.leftInGhostWallet = {
    wallet: (await walletAddresses([split.ghost])).get(split.ghost) ?? null,
    payoutLamports: payouts.sentLamports,
  };
  let done = true;
  for (const gameId of await listGameIds()) {
    const carry = await moveCarry(gameId, split.ghost, split.person, at);
    if (carry === 'open') {
      out.carries.push({ gameId, open: true });
      done = false;
    } else if (carry.lamports > 0) out.carries.push({ gameId, lamports: carry.lamports });
  }
  return done;
};

const mergeOne = async (split: SplitIdentity, deps: MergeDeps): Promise<MergeOutcome> => {
  const now = deps.now?.() ?? new Date();
  const at = now.toISOString();
  const out: MergeOutcome = { ...empty(split), status: 'incomplete' };
  await beginMerge(split, at);
  out.identifiers = await moveIdentifiers(split, at);
  const left: string[] = [];
  for (const game of await playerFootprint(split.ghost))
    if (!(await moveGame(split, game, now, out))) left.push(`days of ${game.gameId} were not moved`);
  if (!(await moveMoney(split, at, out))) left.push('a settlement is open: its carry moves on a later run');
  out.splits = await moveSplitShares(split.ghost, split.person, deps.now);
  if (left.length > 0) return { ...out, reason: left.join('; ') };
  await completeMerge(split, at);
  return { ...out, status: 'merged' };
};

/** Find the split identities and merge them (`execute`), or say what would merge; one outcome per split. */
export const mergeIdentities = async (
  options: { execute: boolean },
  deps: MergeDeps = {},
): Promise<{ outcomes: MergeOutcome[]; linked: string[] }> => {
  const search = await findSplitIdentities(deps.now?.() ?? new Date());
  const outcomes: MergeOutcome[] = search.refused.map(({ reason, ...split }) => ({
    ...empty(split),
    status: 'refused',
    reason,
  }));
  for (const split of search.splits) {
    if (!options.execute) {
      outcomes.push({ ...empty(split), status: split.mergedAt ? 'merged' : 'would-merge' });
      continue;
    }
    try {
      outcomes.push(await mergeOne(split, deps));
    } catch (error) {
      outcomes.push({ ...empty(split), status: 'incomplete', reason: `failed: ${(error as Error).message}` });
    }
  }
  return { outcomes, linked: search.linked };
};

const main = async () => {
  const { values } = parseArgs({ options: { execute: { type: 'boolean', default: false } } });
  const { outcomes, linked } = await mergeIdentities({ execute: values.execute });
  for (const outcome of outcomes) console.log(JSON.stringify(outcome));
  const left = outcomes.filter((o) => o.status === 'incomplete' || o.status === 'refused').length;
  console.error(
    `${outcomes.length} split identit${outcomes.length === 1 ? 'y' : 'ies'}: ` +
      `${outcomes.length - left} ${values.execute ? 'merged' : 'to merge'}, ${left} left; ` +
      `${linked.length} embedded wallet(s) linked to their user`,
  );
  if (left > 0) process.exitCode = 1;
};

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  main().catch((error: unknown) => {
    console.error(error instanceof Error ? error.message : error);
    process.exit(1);
  });
}
