import { handler as commit } from '../../functions/play/commit-session.js';
import { handler as flush } from '../../functions/play/flush-points.js';
import { handler as getPoints } from '../../functions/play/get-player-points.js';
import { handler as state } from '../../functions/play/get-session-state.js';
import { handler as sessionToken } from '../../functions/play/get-session-token.js';
import type { Transport } from '../../lib/play/client.js';
import { type Handler, invoke } from './http.js';

const routes: Record<string, Handler> = {
  'GET /play/session-token': sessionToken,
  'POST /play/flush': flush,
  'POST /play/commit': commit,
  'GET /play/session-state': state,
  'GET /play/get-points': getPoints,
};

/** The reference client's transport over the real handlers, in-process. */
export const inProcess: Transport = async ({ method, path, token, query, body }) => {
  const handler = routes[`${method} ${path}`];
  if (!handler) throw new Error(`no handler for ${method} ${path}`);
  const res = await invoke(handler, {
    method,
    path,
    headers: { authorization: `Bearer ${token}` },
    ...(query ? { query } : {}),
    ...(body === undefined ? {} : { body }),
  });
  return { status: res.status, body: res.body };
};
