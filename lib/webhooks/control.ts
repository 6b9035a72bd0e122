// A change of control of a game (another user proved its domain): the endpoints the previous controller
// registered stop receiving the game's events, in the transaction that records the change (lib/games/ownership.ts).
import type { TransactItem } from '../adapters/dynamodb.js';
import * as repo from './repository.js';

/**
 * The writes that disable every enabled endpoint of the game not registered by its new controller
 * (`disabledReason: control_changed`), each conditional on the endpoint as read, and a check that no endpoint was
 * created meanwhile: a concurrent change fails the transaction, and the claim reads again. The new controller may
 * enable one again (it sees them listed); the previous one no longer reaches the game's endpoints at all.
 */
export const controlChangeWrites = async (
  gameId: string,
  newControllerId: string,
  at: Date,
): Promise<{ writes: TransactItem[]; disabledEndpointIds: string[] }> => {
  const endpoints = await repo.listEndpoints(gameId);
  const disabled = endpoints.filter((endpoint) => endpoint.enabled && endpoint.createdBy !== newControllerId);
  const writes = [
    ...disabled.map((endpoint) =>
      repo.disableEndpointWrite(gameId, endpoint, 'control_changed', at.toISOString()),
    ),
    repo.endpointCountCheck(gameId, endpoints.length),
  ];
  return { writes, disabledEndpointIds: disabled.map((endpoint) => endpoint.endpointId) };
};
