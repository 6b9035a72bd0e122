import { handler as commit } from '../../functions/play/commit-session.js';
import { handler as flush } from '../../functions/play/flush-points.js';
import { handler as getPoints } from '../../functions/play/get-player-points.js';
import { handler as state } from '../../functions/play/get-session-state.js';
import { handler as sessionToken } from '../../functions/play/get-session-token.js';
import { PlayClient, type PlayClientOptions } from '../../sdk/src/index.js';
import { type Handler, invoke } from './http.js';

const routes: Record<string, Handler> = {
  'GET /play/session-token': sessionToken,
  'POST /play/flush': flush,
  'POST /play/commit': commit,
  'GET /play/session-state': state,
  'GET /play/get-points': getPoints,
};

/** A fetch over the real play handlers, in-process: the SDK's requests as API Gateway would deliver them. */
export const inProcessFetch = async (request: Request): Promise<Response> => {
  const url = new URL(request.url);
  const handler = routes[`${request.method} ${url.pathname}`];
  if (!handler) throw new Error(`no handler for ${request.method} ${url.pathname}`);
  const res = await invoke(handler, {
    method: request.method,
    path: url.pathname,
    headers: Object.fromEntries(request.headers),
    query: Object.fromEntries(url.searchParams),
    ...(request.body === null ? {} : { rawBody: await request.text() }),
  });
  return new Response(res.text, { status: res.status, headers: res.headers });
};

/** The SDK's play client over the in-process handlers. */
export const inProcessPlayClient = (options: Partial<PlayClientOptions> = {}) =>
  new PlayClient({ baseUrl: 'http://in-process', fetch: inProcessFetch, ...options });
