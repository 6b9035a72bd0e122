// A game's OAuth clients (docs/connect.md, "Game clients"): registered by the game's creator or owner, each with
// exact redirect URIs and the origins the popup may post its result to.
import { randomBytes } from 'node:crypto';
import type { AuthContext } from '../core/auth.js';
import { settings } from '../core/config.js';
import { AppError, errors } from '../core/errors.js';
import { requireOwnedGame } from '../games/index.js';
import { MAX_CLIENTS_PER_GAME, type OAuthClient } from './model.js';
import * as repo from './repository.js';

const LOOPBACK_HOSTS = new Set(['localhost', '127.0.0.1', '[::1]']);

/** Plain http is for a developer's own machine only, and only where the deployment allows it (the local stack). */
const loopbackAllowed = () => settings().CONNECT_LOOPBACK_REDIRECTS === 'true';

const secureOrLocal = (url: URL) =>
  url.protocol === 'https:' ||
  (url.protocol === 'http:' && loopbackAllowed() && LOOPBACK_HOSTS.has(url.hostname));

/**
 * Why a redirect URI can't be registered, or undefined: absolute, https (http only on loopback where allowed),
 * no credentials and no fragment (RFC 6749 §3.1.2), compared byte for byte at authorization time.
 */
export const redirectUriProblem = (value: string): string | undefined => {
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    return 'not an absolute URL';
  }
  if (!secureOrLocal(url)) return loopbackAllowed() ? 'must be https, or http on localhost' : 'must be https';
  if (url.username || url.password) return 'must not carry credentials';
  if (url.hash || value.includes('#')) return 'must not have a fragment';
  if (url.href !== value) return `must be written in its normal form (${url.href})`;
  return undefined;
};

/** Why an origin can't be registered, or undefined: exactly `scheme://host[:port]`, https or loopback http. */
export const originProblem = (value: string): string | undefined => {
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    return 'not an origin';
  }
  if (!secureOrLocal(url)) return loopbackAllowed() ? 'must be https, or http on localhost' : 'must be https';
  if (url.origin !== value) return `must be an origin only (${url.origin})`;
  return undefined;
};

export interface ClientInput {
  name: string;
  redirectUris: string[];
  origins?: string[] | undefined;
}

const problems = (list: string[], field: string, problem: (v: string) => string | undefined) =>
  list.flatMap((value, i) => {
    const why = problem(value);
    return why ? [{ path: `${field}.${i}`, message: why }] : [];
  });

/** POST /games/oauth-clients/{gameId}: register a public client (creator or owner; at most 10 a game). */
export const createClient = async (auth: AuthContext, gameId: string, input: ClientInput, now: Date) => {
  const game = await requireOwnedGame(auth, gameId);
  // Every refused URI and origin at once, each named by its place.
  const details = [
    ...problems(input.redirectUris, 'redirectUris', redirectUriProblem),
    ...problems(input.origins ?? [], 'origins', originProblem),
  ];
  if (details.length > 0) throw errors.validation('Invalid redirect URIs or origins', details);
  const existing = await repo.listClients(game.id);
  if (existing.length >= MAX_CLIENTS_PER_GAME)
    throw new AppError('CONFLICT', `A game has at most ${MAX_CLIENTS_PER_GAME} clients: remove one first`);
  const client: OAuthClient = {
    clientId: `arc_${randomBytes(16).toString('hex')}`,
    gameId: game.id,
    name: input.name,
    redirectUris: [...new Set(input.redirectUris)],
    origins: [...new Set(input.origins ?? [])],
    createdBy: auth.userId,
    createdAt: now.toISOString(),
  };
  await repo.putClient(client);
  return client;
};

/** GET /games/oauth-clients/{gameId} (creator or owner). */
export const listGameClients = async (auth: AuthContext, gameId: string) => {
  const game = await requireOwnedGame(auth, gameId);
  return repo.listClients(game.id);
};

/** DELETE /games/oauth-clients/{gameId}/{clientId}: no new authorization with it; existing grants stay. */
export const deleteGameClient = async (auth: AuthContext, gameId: string, clientId: string) => {
  const game = await requireOwnedGame(auth, gameId);
  if (!(await repo.deleteClient(game.id, clientId))) throw errors.notFound('Client');
  return { clientId, deleted: true };
};
