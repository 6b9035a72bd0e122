// The console's only way to the API: the SDK's typed client, authenticated with the signed-in user's
// identity-provider token. The console never holds an API secret: HMAC stays for servers.
import { type ArcadiaClient, ArcadiaError, createArcadiaClient } from '@arcadia/sdk';
import { consoleConfig, loadedConfig } from './config.js';

export { type ConsoleConfig, consoleConfig, loadConfig } from './config.js';

const TOKEN_KEY = 'arcadia.console.token';

let client: ArcadiaClient | undefined;

/** The bearer token lives for the tab only (sessionStorage): closing it signs out. */
export const currentToken = (): string | null => sessionStorage.getItem(TOKEN_KEY);
export const setToken = (token: string | null) => {
  if (token) sessionStorage.setItem(TOKEN_KEY, token);
  else sessionStorage.removeItem(TOKEN_KEY);
  client = undefined;
};

/** Whether a token's `exp` is less than a minute away (a token that can't be read is left to the API to judge). */
const expiresSoon = (token: string): boolean => {
  try {
    const payload = (token.split('.')[1] ?? '').replaceAll('-', '+').replaceAll('_', '/');
    const { exp } = JSON.parse(atob(payload)) as { exp?: unknown };
    return typeof exp === 'number' && exp * 1000 - Date.now() < 60_000;
  } catch {
    return false;
  }
};

/**
 * The token of the next request: the stored one, or, when it is about to expire, a fresh one from the provider's
 * session (its client loaded only then).
 */
const bearerToken = async (): Promise<string> => {
  const token = currentToken();
  const provider = loadedConfig()?.identityProvider;
  if (!token || !provider || !expiresSoon(token)) return token ?? '';
  const { freshToken } = await import('./privy.js');
  const fresh = await freshToken(provider).catch(() => null);
  if (fresh) sessionStorage.setItem(TOKEN_KEY, fresh);
  return fresh ?? token;
};

/** The typed client of the whole API, as the signed-in user. */
export const api = (): ArcadiaClient => {
  client ??= createArcadiaClient({
    baseUrl: consoleConfig().apiUrl,
    bearerToken,
    maxRetries: 1,
  });
  return client;
};

/** What an error box shows: the API's message, code and request id, or the thrown error's message. */
export interface ShownError {
  message: string;
  code?: string;
  status?: number;
  requestId?: string;
  /** A 400's problems by field path (`prizes.1.fromRank`), as the API lists them. */
  details?: Array<{ path: string; message: string }>;
}

const detailsOf = (details: unknown) =>
  Array.isArray(details)
    ? details.flatMap((d: { path?: unknown; message?: unknown }) =>
        typeof d?.message === 'string' ? [{ path: String(d.path ?? ''), message: d.message }] : [],
      )
    : [];

export const shownError = (error: unknown): ShownError =>
  error instanceof ArcadiaError
    ? {
        message: error.message,
        code: error.code,
        status: error.status,
        ...(error.requestId ? { requestId: error.requestId } : {}),
        ...(detailsOf(error.details).length ? { details: detailsOf(error.details) } : {}),
      }
    : { message: error instanceof Error ? error.message : String(error) };

/** The `{"data": …}` of a call (the SDK throws ArcadiaError for every error answer). */
export const data = <T>(result: { data?: { data: T } }): T => {
  if (!result.data) throw new Error('The API answered without a body');
  return result.data.data;
};

export const txUrl = (signature: string) =>
  consoleConfig().txUrlTemplate.replace('{signature}', encodeURIComponent(signature));
export const addressUrl = (address: string) =>
  consoleConfig().addressUrlTemplate.replace('{address}', encodeURIComponent(address));
