import { createHash } from 'node:crypto';

/**
 * The client SDK's anti-cheat protocol (docs/play-protocol.md):
 * - the session starts with a server-chosen random `chainSeed` (h0);
 * - flush n carries { seq: n, delta, clientTime, prevHash: h(n-1), hash: h(n) } where
 *   h(n) = lowercase hex sha256 of the canonical line `arcadia-flush-v1|<sessionId>|<seq>|<delta>|<clientTime>|<prevHash>`;
 * - the server accepts flush n only if seq = last seq + 1, prevHash = its stored head, and hash recomputes;
 * - commit carries { seq, head, total } = the last flush, its hash and the sum of every delta claimed.
 */
export interface FlushLink {
  seq: number;
  delta: number;
  clientTime: number;
  prevHash: string;
}

/** The exact text hashed for one link of the chain. */
export const canonicalFlush = (sessionId: string, link: FlushLink): string =>
  `arcadia-flush-v1|${sessionId}|${link.seq}|${link.delta}|${link.clientTime}|${link.prevHash}`;

/** h(n) for a link. */
export const flushHash = (sessionId: string, link: FlushLink): string =>
  createHash('sha256').update(canonicalFlush(sessionId, link)).digest('hex');
