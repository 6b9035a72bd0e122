import { handler as commit } from '../../functions/play/commit-session.js';
import { handler as flush } from '../../functions/play/flush-points.js';
import { handler as getLeaderboard } from '../../functions/play/get-leaderboard.js';
import { handler as getMyRank } from '../../functions/play/get-my-rank.js';
import { handler as getPoints } from '../../functions/play/get-player-points.js';
import { handler as state } from '../../functions/play/get-session-state.js';
import { handler as sessionToken } from '../../functions/play/get-session-token.js';
import { handler as setMyName } from '../../functions/play/set-my-display-name.js';
import { PlayClient, type PlayClientOptions } from '../../sdk/src/index.js';
import { type Handler, invoke } from './http.js';

const routes: Record<string, Handler> = {
  'GET /play/session-token': sessionToken,
  'POST /play/flush': flush,
  'POST /play/commit': commit,
  'GET /play/session-state': state,
  'GET /play/get-points': getPoints,
};

/** Routes with a path parameter: the pattern, the handler, and the parameter's name. */
const paramRoutes: Array<[RegExp, Handler]> = [
  [/^GET \/play\/leaderboard\/(?<gameId>[^/]+)$/, getLeaderboard],
  [/^GET \/play\/leaderboard\/(?<gameId>[^/]+)\/me$/, getMyRank],
  [/^PUT \/play\/players\/(?<gameId>[^/]+)\/me\/name$/, setMyName],
];

/** The handler of a request and its path parameters, as API Gateway would route it. */
const routeOf = (key: string): { handler?: Handler; pathParameters?: Record<string, string> } => {
  if (routes[key]) return { handler: routes[key] };
  for (const [pattern, handler] of paramRoutes) {
    const match = pattern.exec(key);
    if (match) return { handler, pathParameters: { ...match.groups } };
  }
  return {};
};

/** A fetch over the real play handlers, in-process: the SDK's requests as API Gateway would deliver them. */
export const inProcessFetch = async (request: Request): Promise<Response> => {
  const url = new URL(request.url);
  const { handler, pathParameters } = routeOf(`${request.method} ${url.pathname}`);
  if (!handler) throw new Error(`no handler for ${request.method} ${url.pathname}`);
  const res = await invoke(handler, {
    method: request.method,
    path: url.pathname,
    ...(pathParameters ? { pathParameters } : {}),
    headers: Object.fromEntries(request.headers),
    query: Object.fromEntries(url.searchParams),
    ...(request.body === null ? {} : { rawBody: await request.text() }),
  });
  return new Response(res.text, { status: res.status, headers: res.headers });
};

/** The SDK's play client over the in-process handlers. */
export const inProcessPlayClient = (options: Partial<PlayClientOptions> = {}) =>
  new PlayClient({ baseUrl: 'http://in-process', fetch: inProcessFetch, ...options });
