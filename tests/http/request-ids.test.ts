import { readFileSync } from 'node:fs';
import { describe, expect, inject, it } from 'vitest';
import { apiBaseUrl } from '../helpers/http.js';

// Through serverless offline, whose events all carry the same placeholder requestContext.requestId: each response
// must still have its own id, and the function's log line for that request must name it.
const base = apiBaseUrl;

interface RequestLine {
  message: string;
  requestId: string;
  status: number;
  path: string;
}

/** The `request` lines the functions logged so far (Powertools JSON, one per line, among offline's own output). */
const requestLines = (): RequestLine[] =>
  readFileSync(inject('offlineLog'), 'utf8')
    .split('\n')
    .flatMap((line) => {
      const start = line.indexOf('{');
      if (start < 0) return [];
      try {
        const parsed = JSON.parse(line.slice(start)) as Partial<RequestLine>;
        return parsed.message === 'request' ? [parsed as RequestLine] : [];
      } catch {
        return [];
      }
    });

const waitForLine = async (requestId: string): Promise<RequestLine | undefined> => {
  for (let i = 0; i < 50; i++) {
    const line = requestLines().find((l) => l.requestId === requestId);
    if (line) return line;
    await new Promise((r) => setTimeout(r, 100));
  }
  return undefined;
};

describe('request ids', () => {
  it('are unique per response, equal to error.requestId, and on the log line of their request', async () => {
    const calls = [
      () => fetch(`${base()}/no/such/route`),
      () => fetch(`${base()}/no/such/route`),
      () => fetch(`${base()}/api-reference-json`),
      () =>
        fetch(`${base()}/user/hmac-signature`, {
          method: 'POST',
          headers: { 'content-type': 'application/json' },
          body: '{}',
        }),
    ];
    const seen: Array<{ id: string; status: number; path: string }> = [];
    for (const call of calls) {
      const res = await call();
      const id = res.headers.get('x-request-id') ?? '';
      expect(id).not.toBe('');
      expect(id).not.toMatch(/^offlineContext_/);
      if (res.status >= 400) {
        const body = (await res.json()) as { error: { requestId: string } };
        expect(body.error.requestId).toBe(id);
      } else await res.arrayBuffer();
      seen.push({ id, status: res.status, path: new URL(res.url).pathname });
    }
    expect(new Set(seen.map((s) => s.id)).size).toBe(seen.length);
    for (const { id, status, path } of seen) {
      const line = await waitForLine(id);
      expect(line, `no log line with requestId ${id}`).toMatchObject({ requestId: id, status, path });
    }
  });
});
