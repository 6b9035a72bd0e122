// The local identity provider's JSON answers, shared by its server API (server.ts) and its client API
// (client-auth.ts).
import type { ServerResponse } from 'node:http';

export const sendJson = (
  res: ServerResponse,
  status: number,
  body: unknown,
  headers: Record<string, string> = {},
) => {
  // No keep-alive: a client's pooled connection would otherwise outlive a restart of this server and fail once.
  res.writeHead(status, {
    'content-type': 'application/json',
    'cache-control': 'no-store',
    connection: 'close',
    ...headers,
  });
  res.end(JSON.stringify(body));
};
