// One identity per person (docs/wallets.md): the whole merge of a ghost into its person — its identifiers, its
// play, its payouts and carries, its shares of splits — across the domains that hold them. Run by
// scripts/merge-identities.ts for the splits it finds, and by the user import (functions/user/import-users.ts)
// when the identifier of a user it imports belongs to a person who already has another Arc user.
import { listGameIds, moveSplitShares } from '../games/index.js';
import {
  type DayMove,
  type GameFootprint,
  moveAllTimeRemainder,
  movePlayerDay,
  playerFootprint,
} from '../play/index.js';
import { boardMayChange, moveCarry, redirectPayouts } from '../rewards/index.js';
import {
  beginMerge,
  completeMerge,
  moveIdentifiers,
  type OwnedSubject,
  type SplitIdentity,
  walletAddresses,
} from '../user/index.js';

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

export const emptyOutcome = ({ ghost, person, wallet }: SplitIdentity): Omit<MergeOutcome, 'status'> => ({
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

/** Merge one split; `incomplete` (with why) when something must wait for a later run. */
export const mergeSplit = async (split: SplitIdentity, deps: MergeDeps): Promise<MergeOutcome> => {
  const now = deps.now?.() ?? new Date();
  const at = now.toISOString();
  const out: MergeOutcome = { ...emptyOutcome(split), status: 'incomplete' };
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

/**
 * The import's merge (lib/user/importer.ts): the user just imported (the ghost) into the Arc user that already
 * holds its provider subject. True once everything moved; false while a day or a carry waits for its settlement.
 */
export const mergeOwned = async ({ ghost, person }: OwnedSubject, deps: MergeDeps = {}): Promise<boolean> =>
  (await mergeSplit({ ghost, person, wallet: null, mergedAt: null }, deps)).status === 'merged';
