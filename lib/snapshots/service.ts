// Snapshot read use cases: summary, one holder's proof, holders pages. Reads go through the injected getObject
// (S3 in production); the parsed index.bin of a snapshot is cached per container (objects are immutable).
import { AppError, errors } from '../core/errors.js';
import { encodeAddress } from './allocation.js';
import {
  type GetObject,
  HOLDERS_OBJECT,
  loadSnapshotIndex,
  readProof,
  SnapshotCorruptError,
  type SnapshotIndex,
} from './layout.js';
import { LEAF_RECORD_BYTES } from './merkle.js';
import type { SnapshotSummary } from './repository.js';

export interface ReadDeps {
  getSummary(coinMint: string): Promise<SnapshotSummary | undefined>;
  getObject: GetObject;
}

/** The snapshot read endpoints' side effects: also the coin mints of the games airdropping to a mint. */
export interface SnapshotReadDeps extends ReadDeps {
  airdropCoinMints(airdropMint: string): Promise<string[]>;
}

/** Public view of a snapshot summary. */
export const summaryView = (s: SnapshotSummary) => ({
  tokenMint: s.coinMint,
  airdropTokenAddress: s.airdropMint,
  gameId: s.gameId,
  merkleRoot: s.merkleRoot,
  holderCount: s.holderCount,
  totalAllocation: s.totalAllocation,
  version: s.version,
  slot: s.slot,
  ...(s.readSlots ? { readSlots: s.readSlots } : {}),
  createdAt: s.createdAt,
});

/** The current summary of a coin's snapshot, or 404. */
export const requireSummary = async (coinMint: string, deps: ReadDeps): Promise<SnapshotSummary> => {
  const summary = await deps.getSummary(coinMint);
  if (!summary) throw errors.notFound(`Snapshot for ${coinMint}`);
  return summary;
};

/**
 * The snapshot a `{tokenMint}` path names (docs/snapshots.md, "Which mint"): the snapshot of the coin of
 * the game whose `airdropTokenAddress` is that mint; when several games airdrop to one token, the newest
 * snapshot of theirs. The game coin mint itself stays an alias. 404 when neither has a snapshot.
 */
export const resolveSummary = async (tokenMint: string, deps: SnapshotReadDeps): Promise<SnapshotSummary> => {
  const coinMints = await deps.airdropCoinMints(tokenMint);
  const summaries = await Promise.all(coinMints.map((coinMint) => deps.getSummary(coinMint)));
  const newest = summaries
    .filter((s): s is SnapshotSummary => s !== undefined)
    .sort((a, b) => b.createdAt.localeCompare(a.createdAt) || a.coinMint.localeCompare(b.coinMint))[0];
  return newest ?? requireSummary(tokenMint, deps);
};

const indexCache = new Map<string, SnapshotIndex>();

/** A holder's proof in the current snapshot (undefined when not a holder); cached index, so one S3 read. */
export const findProof = async (summary: SnapshotSummary, address: string, deps: ReadDeps) => {
  let index = indexCache.get(summary.prefix);
  if (!index) {
    index = await loadSnapshotIndex(summary.prefix, deps.getObject);
    if (!index) throw new SnapshotCorruptError(`index.bin missing under ${summary.prefix}`);
    if (indexCache.size > 64) indexCache.clear();
    indexCache.set(summary.prefix, index);
  }
  return readProof(summary.prefix, address, deps.getObject, index);
};

/** GET /token-launcher/snapshot/{tokenMint}: by airdrop token mint, or by game coin mint. */
export const getSnapshot = async (tokenMint: string, deps: SnapshotReadDeps) =>
  summaryView(await resolveSummary(tokenMint, deps));

/** GET /token-launcher/snapshot/{tokenMint}/proof/{userAddress}: by airdrop token mint, or by game coin mint. */
export const getSnapshotProof = async (tokenMint: string, userAddress: string, deps: SnapshotReadDeps) => {
  const summary = await resolveSummary(tokenMint, deps);
  const proof = await findProof(summary, userAddress, deps);
  if (!proof) throw new AppError('NOT_FOUND', `${userAddress} is not in the snapshot of ${tokenMint}`);
  return {
    // The coin mint whichever mint named the snapshot: the same answer either way.
    tokenMint: summary.coinMint,
    userAddress: proof.claimant,
    index: proof.index,
    amount: proof.amount,
    amountLocked: proof.amountLocked,
    proof: proof.proof,
    merkleRoot: proof.root,
    version: summary.version,
  };
};

/** GET /token-launcher/snapshot/{tokenMint}/holders: leaf order, `limit` from `offset`, one ranged S3 read. */
export const listSnapshotHolders = async (
  tokenMint: string,
  page: { limit: number; offset: number },
  deps: SnapshotReadDeps,
) => {
  const summary = await resolveSummary(tokenMint, deps);
  const count = Math.max(0, Math.min(page.limit, summary.holderCount - page.offset));
  const data: Array<{ index: number; address: string; amount: string }> = [];
  if (count > 0) {
    const start = page.offset * LEAF_RECORD_BYTES;
    const bytes = await deps.getObject(`${summary.prefix}${HOLDERS_OBJECT}`, {
      start,
      end: start + count * LEAF_RECORD_BYTES - 1,
    });
    if (!bytes || bytes.length !== count * LEAF_RECORD_BYTES)
      throw new SnapshotCorruptError(`holders.bin under ${summary.prefix} is missing or short`);
    const records = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.length);
    for (let i = 0; i < count; i++) {
      const o = i * LEAF_RECORD_BYTES;
      data.push({
        index: page.offset + i,
        address: encodeAddress(records, o),
        amount: records.readBigUInt64LE(o + 32).toString(),
      });
    }
  }
  return {
    data,
    meta: { limit: page.limit, offset: page.offset, total: summary.holderCount },
  };
};
