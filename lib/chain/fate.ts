// Whether a transaction the platform sent can still land: the one reading behind every "expired, send again"
// decision (confirmation, payout redelivery, purchase recovery, claims). Deciding "expired" from a status read
// before the height would send again a transaction that landed between the two reads: a double payment.
import type { ChainReader, SignatureState } from './reader.js';

/** What one look at the chain shows of a sent transaction. */
export type Sighting = { kind: 'landed' } | { kind: 'failed'; err: unknown } | { kind: 'unseen' };

/** Where a sent transaction stands: landed or failed (final), expired (it never landed and never will), pending. */
export type TransactionFate =
  | Exclude<Sighting, { kind: 'unseen' }>
  | { kind: 'expired' }
  | { kind: 'pending' };

/** A signature status as a sighting: `processed` is not yet landed (it may still be dropped). */
export const statusSighting = (state: SignatureState): Sighting | { kind: 'processed' } => {
  if (state.status === 'failed') return { kind: 'failed', err: state.err };
  if (state.status === 'confirmed' || state.status === 'finalized') return { kind: 'landed' };
  return state.status === 'processed' ? { kind: 'processed' } : { kind: 'unseen' };
};

/**
 * The block height, then the look, then the height again. Expired only when the chain was already past the
 * transaction's last valid height before the look found nothing — a transaction can't land after that height, so
 * one that landed before was seen by the look — and the second height is not lower than the first (a lower one
 * means the answers came from nodes at different heights, so the look may have come from a node behind).
 */
export const fateOf = async (
  chain: Pick<ChainReader, 'getBlockHeight'>,
  lastValidBlockHeight: number,
  look: () => Promise<Sighting | { kind: 'processed' }>,
): Promise<TransactionFate> => {
  const before = await chain.getBlockHeight();
  const seen = await look();
  if (seen.kind === 'landed' || seen.kind === 'failed') return seen;
  if (seen.kind === 'processed' || before <= lastValidBlockHeight) return { kind: 'pending' };
  const after = await chain.getBlockHeight();
  return after >= before ? { kind: 'expired' } : { kind: 'pending' };
};

/** `fateOf` a sent transaction by its signature status. */
export const signatureFate = (
  chain: Pick<ChainReader, 'getBlockHeight' | 'getSignatureStatus'>,
  sent: { signature: string; lastValidBlockHeight: number },
): Promise<TransactionFate> =>
  fateOf(chain, sent.lastValidBlockHeight, async () =>
    statusSighting(await chain.getSignatureStatus(sent.signature)),
  );
