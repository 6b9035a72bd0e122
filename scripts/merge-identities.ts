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
import { emptyOutcome, type MergeDeps, type MergeOutcome, mergeSplit } from '../lib/identity/index.js';
import { findSplitIdentities } from '../lib/user/index.js';

export type { MergeDeps, MergeOutcome };

/** Find the split identities and merge them (`execute`), or say what would merge; one outcome per split. */
export const mergeIdentities = async (
  options: { execute: boolean },
  deps: MergeDeps = {},
): Promise<{ outcomes: MergeOutcome[]; linked: string[] }> => {
  const search = await findSplitIdentities(deps.now?.() ?? new Date());
  const outcomes: MergeOutcome[] = search.refused.map(({ reason, ...split }) => ({
    ...emptyOutcome(split),
    status: 'refused',
    reason,
  }));
  for (const split of search.splits) {
    if (!options.execute) {
      outcomes.push({ ...emptyOutcome(split), status: split.mergedAt ? 'merged' : 'would-merge' });
      continue;
    }
    try {
      outcomes.push(await mergeSplit(split, deps));
    } catch (error) {
      outcomes.push({
        ...emptyOutcome(split),
        status: 'incomplete',
        reason: `failed: ${(error as Error).message}`,
      });
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
