// The error mapper's answer to failures that are not the API's own: an upstream that timed out or could not be
// reached is a 503 UPSTREAM_UNAVAILABLE with Retry-After (the request may pass when retried), anything else a 500.
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { describe, expect, it } from 'vitest';
import { ChainError } from '../../lib/chain/index.js';
import { isUpstreamFailure, upstreamRetryAfter } from '../../lib/http/error-mapper.js';

describe('isUpstreamFailure', () => {
  it('is true for a fetch timeout, a refused connection and a chain RPC unavailable, also as a cause', async () => {
    // A server that never answers, then nothing listening on its port.
    const silent = createServer(() => {});
    await new Promise<void>((resolve) => silent.listen(0, '127.0.0.1', resolve));
    const url = `http://127.0.0.1:${(silent.address() as AddressInfo).port}`;
    const timeout = await fetch(url, { signal: AbortSignal.timeout(100) }).catch((e: unknown) => e);
    silent.closeAllConnections();
    await new Promise((resolve) => silent.close(resolve));
    expect(isUpstreamFailure(timeout)).toBe(true);
    const refused = await fetch(url).catch((e: unknown) => e);
    expect(isUpstreamFailure(refused)).toBe(true);
    expect(isUpstreamFailure(new Error('wrapped', { cause: new DOMException('late', 'TimeoutError') }))).toBe(
      true,
    );
    expect(isUpstreamFailure(new ChainError('RPC_UNAVAILABLE', 'RPC answered 503'))).toBe(true);
  });

  it('is false for a bug, a refusal by the upstream and a chain error that is final', () => {
    expect(isUpstreamFailure(new TypeError('x is undefined'))).toBe(false);
    expect(isUpstreamFailure(new ChainError('TRANSACTION_FAILED', 'custom program error'))).toBe(false);
    expect(isUpstreamFailure(undefined)).toBe(false);
  });
});

describe('upstreamRetryAfter', () => {
  it("passes on the upstream's own wait, rounded up to whole seconds, also as a cause", () => {
    const limited = new ChainError('RPC_UNAVAILABLE', 'RPC answered 429', { retryAfterMs: 12_300 });
    expect(upstreamRetryAfter(limited)).toBe(13);
    expect(upstreamRetryAfter(new Error('wrapped', { cause: limited }))).toBe(13);
  });

  it('is the default 5 s when the upstream named no wait', () => {
    expect(upstreamRetryAfter(new ChainError('RPC_UNAVAILABLE', 'RPC answered 503'))).toBe(5);
    expect(upstreamRetryAfter(new DOMException('late', 'TimeoutError'))).toBe(5);
  });
});
