// The server client: every operation of openapi.yaml, typed from it (openapi-typescript), sent by openapi-fetch
// through the SDK's transport (HMAC or bearer auth, idempotency keys, retries, typed errors).
import createClient, { type Client } from 'openapi-fetch';
import type { paths } from './openapi.generated.js';
import { createTransport, type TransportOptions } from './transport.js';

export type ArcadiaClient = Client<paths>;
export type ArcadiaClientOptions = TransportOptions;

/**
 * A typed client of the whole API. Error answers are thrown as ArcadiaError, so a resolved call always has
 * `data`; `unwrap` returns what its `{"data": …}` envelope carries.
 */
export const createArcadiaClient = (options: ArcadiaClientOptions): ArcadiaClient =>
  createClient<paths>({ baseUrl: options.baseUrl.replace(/\/+$/, ''), fetch: createTransport(options) });

type Envelope<T> = T extends { data: infer D } ? D : T;

/** The payload of a successful call: `unwrap(await client.GET('/games/me'))` → the games. */
export const unwrap = <R extends { data?: unknown; response: Response }>(
  result: R,
): Envelope<NonNullable<R['data']>> => {
  const body = result.data as { data?: unknown } | undefined;
  if (body === undefined) throw new Error(`No body in the ${result.response.status} answer`);
  return ('data' in body ? body.data : body) as Envelope<NonNullable<R['data']>>;
};
