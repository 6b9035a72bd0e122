// The player's connected games (docs/connect.md): listed and revoked with the player's own identity token.
import type { AuthContext } from '../core/auth.js';
import { errors } from '../core/errors.js';
import { SCOPES } from '../core/scopes.js';
import { getGame } from '../games/index.js';
import { getAllowance } from '../rewards/index.js';
import { revoke } from './flow.js';
import { getGrant } from './grant-reads.js';
import * as repo from './repository.js';

/** GET /user/connections: the games the player connected, with what each may do and its spending limit. */
export const listConnections = async (auth: AuthContext) => {
  const grants = (await repo.listGrants(auth.userId)).filter((grant) => grant.status === 'active');
  return Promise.all(
    grants.map(async (grant) => {
      const [game, allowance] = await Promise.all([
        getGame(grant.gameId),
        grant.scopes.includes('multipliers:buy') ? getAllowance(auth.userId, grant.gameId) : undefined,
      ]);
      return {
        gameId: grant.gameId,
        gameName: game?.name ?? null,
        imageUrl: game?.imageUrl ?? null,
        clientId: grant.clientId,
        grantId: grant.grantId,
        scopes: grant.scopes.map((scope) => ({ scope, description: SCOPES[scope] })),
        spendingLimitLamportsPerDay: allowance ? String(allowance.lamportsPerDay) : null,
        connectedAt: grant.createdAt,
      };
    }),
  );
};

/** DELETE /user/connections/{gameId}: refreshing stops at once, and so do its access tokens (each use reads it). */
export const revokeConnection = async (auth: AuthContext, gameId: string, now: Date) => {
  const grant = await getGrant(auth.userId, gameId);
  if (grant?.status !== 'active') throw errors.notFound('Connection');
  await revoke(grant, 'player', now);
  return { gameId, revoked: true };
};
