// Purchase allowances: what a player lets a game spend per UTC day on multipliers with the player's session token,
// which the game's own code holds. Granted, changed and revoked only with the player's identity-provider token.
import type { AuthContext } from '../../core/auth.js';
import { AppError } from '../../core/errors.js';
import { utcDay } from '../../core/time.js';
import { requireGame } from '../../games/index.js';
import type { Allowance } from '../model.js';
import * as repo from './repository.js';

/** The clock of the allowance use cases. */
export interface AllowanceDeps {
  now: () => Date;
}

/** An allowance as the API shows it, with what is left of it today (UTC). */
export const allowanceView = (grant: Allowance, day: string, spent: number) => ({
  gameId: grant.gameId,
  lamportsPerDay: String(grant.lamportsPerDay),
  day,
  spentTodayLamports: String(spent),
  remainingTodayLamports: String(Math.max(0, grant.lamportsPerDay - spent)),
  grantedAt: grant.grantedAt,
  updatedAt: grant.updatedAt,
});
export type AllowanceView = ReturnType<typeof allowanceView>;

/** PUT /rewards/allowances/{gameId}: grant or change the caller's allowance to a game (it must exist). */
export const setPurchaseAllowance = async (
  auth: AuthContext,
  gameId: string,
  input: { lamportsPerDay: bigint },
  deps: AllowanceDeps,
): Promise<AllowanceView> => {
  await requireGame(gameId);
  const at = deps.now();
  const day = utcDay(at);
  const grant = await repo.putAllowance(auth.userId, gameId, Number(input.lamportsPerDay), at.toISOString());
  return allowanceView(grant, day, await repo.spentIn(auth.userId, gameId, day));
};

/** DELETE /rewards/allowances/{gameId}: revoke it; the game's session purchases are refused from now on. */
export const revokePurchaseAllowance = async (auth: AuthContext, gameId: string) => ({
  gameId,
  revoked: await repo.deleteAllowance(auth.userId, gameId),
});

/** A player's allowances with today's spending (GET /rewards/me). */
export const allowancesOf = async (arcId: string, at: Date): Promise<AllowanceView[]> => {
  const day = utcDay(at);
  const [grants, spent] = await Promise.all([repo.listAllowances(arcId), repo.spentOn(arcId, day)]);
  return grants.map((grant) => allowanceView(grant, day, spent.get(grant.gameId) ?? 0));
};

/** A session purchase without an allowance: the player never consented to the game spending for it. */
export const allowanceRequired = (gameId: string) =>
  new AppError(
    'PURCHASE_ALLOWANCE_REQUIRED',
    'A purchase with a session token needs your consent: grant this game a daily allowance with your identity ' +
      `token (PUT /rewards/allowances/${gameId}), or buy with your identity token`,
  );

/** A session purchase above what is left of the day's allowance. */
export const allowanceExceeded = (grant: Allowance, day: string, spent: number, price: bigint) => {
  const remaining = Math.max(0, grant.lamportsPerDay - spent);
  return new AppError(
    'PURCHASE_ALLOWANCE_EXCEEDED',
    `This purchase costs ${price} lamports; ${remaining} of your ${grant.lamportsPerDay}-lamport daily ` +
      `allowance to this game remain today (${day}, UTC). Raise it with your identity token, or buy with it`,
    [{ path: 'allowance', message: `remaining ${remaining} < price ${price}` }],
  );
};

/**
 * The allowance a session purchase reserves its price against: the game's grant, with room for the price on
 * the day (403 PURCHASE_ALLOWANCE_REQUIRED / PURCHASE_ALLOWANCE_EXCEEDED otherwise). The reservation itself is
 * conditional on the same limit and room (allowanceHoldWrites), so a concurrent change cannot overspend.
 */
export const allowanceHold = async (
  arcId: string,
  gameId: string,
  price: bigint,
  at: Date,
): Promise<repo.AllowanceHold> => {
  const day = utcDay(at);
  const [grant, spent] = await Promise.all([
    repo.getAllowance(arcId, gameId),
    repo.spentIn(arcId, gameId, day),
  ]);
  if (!grant) throw allowanceRequired(gameId);
  if (BigInt(spent) + price > BigInt(grant.lamportsPerDay)) throw allowanceExceeded(grant, day, spent, price);
  return { lamportsPerDay: grant.lamportsPerDay, day, lamports: Number(price) };
};

/** Why a reservation's allowance condition failed, read again: revoked, or no room left for the price. */
export const allowanceRefusal = async (arcId: string, gameId: string, price: bigint, day: string) => {
  const [grant, spent] = await Promise.all([
    repo.getAllowance(arcId, gameId),
    repo.spentIn(arcId, gameId, day),
  ]);
  if (!grant) return allowanceRequired(gameId);
  if (BigInt(spent) + price > BigInt(grant.lamportsPerDay))
    return allowanceExceeded(grant, day, spent, price);
  return new AppError('CONFLICT', 'Your allowance to this game changed during the purchase; retry');
};
