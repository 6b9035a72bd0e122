// What the save paths need of multipliers: the slot key to add to their batch read and the factor in force.
// Kept free of I/O and of other rewards modules so lib/play can import it without pulling the chain in.
import { rewardsKeys, rewardsTable } from '../keys.js';

export { applyMultiplier } from '../pricing.js';

/** No multiplier: 1× in basis points. */
export const NO_MULTIPLIER_BPS = 10_000;

/**
 * The slot item of a player's multiplier in a game, with the table that holds it: the save paths add it to
 * their BatchGetItem (one read across both tables).
 */
export const multiplierSlotKey = (gameId: string, arcId: string) => ({
  ...rewardsKeys.slot(gameId, arcId),
  table: rewardsTable(),
});

/**
 * The multiplier (basis points) a slot item applies at `now`: its factor while active and startsAt ≤ now <
 * endsAt, otherwise 1×. A reserved slot (purchase in flight) applies nothing yet.
 */
export const activeMultiplierBps = (slot: Record<string, unknown> | undefined, now: Date): number => {
  if (slot?.state !== 'active') return NO_MULTIPLIER_BPS;
  const at = now.getTime();
  const starts = Date.parse(String(slot.startsAt));
  const ends = Date.parse(String(slot.endsAt));
  if (!(starts <= at && at < ends)) return NO_MULTIPLIER_BPS;
  const bps = Number(slot.multiplierBps);
  return Number.isInteger(bps) && bps >= NO_MULTIPLIER_BPS ? bps : NO_MULTIPLIER_BPS;
};
