import { describe, expect, it } from 'vitest';
import { contracts } from '../../lib/api/catalogue.js';
import { OPENAPI_JSON } from '../../lib/api/reference/openapi-json.generated.js';
import { png } from '../fixtures/images/build.js';
import { launchBrowser } from '../helpers/browser.js';
import { gameBody } from '../helpers/games.js';
import { apiBaseUrl } from '../helpers/http.js';
import { createDeveloper, hmacHeaders } from '../helpers/users.js';

// These run against the real `serverless offline` server the global setup started: routing, bundling (esbuild),
// and the payload 2.0 events as API Gateway builds them.
const base = apiBaseUrl;

describe('serverless offline', () => {
  it('serves the OpenAPI document at /api-reference-json with every operation', async () => {
    const res = await fetch(`${base()}/api-reference-json`);
    expect(res.status).toBe(200);
    expect(res.headers.get('x-request-id')).toBeTruthy();
    expect(res.headers.get('content-type')).toBe('application/json; charset=utf-8');
    // The generated JSON text, sent as is (tests/contract/openapi.test.ts keeps it in sync with the contracts).
    const text = await res.text();
    expect(text).toBe(OPENAPI_JSON);
    const doc = JSON.parse(text) as {
      openapi: string;
      paths: Record<string, Record<string, { operationId: string }>>;
    };
    expect(doc.openapi).toBe('3.1.0');
    const ids = Object.values(doc.paths).flatMap((p) => Object.values(p).map((op) => op.operationId));
    expect(ids.sort()).toEqual(contracts.map((c) => c.operationId).sort());
  });

  it('answers a cross-origin preflight for an HMAC request with its headers allowed', async () => {
    const res = await fetch(`${base()}/play/dev/batch-save-points`, {
      method: 'OPTIONS',
      headers: {
        origin: 'https://studio.example',
        'access-control-request-method': 'POST',
        'access-control-request-headers': 'authorization,content-type,x-auth-provider,x-content-sha256',
      },
    });
    expect(res.status).toBeLessThan(300);
    const allowed = (res.headers.get('access-control-allow-headers') ?? '').toLowerCase();
    for (const header of ['authorization', 'content-type', 'x-auth-provider', 'x-content-sha256'])
      expect(allowed).toContain(header);
    expect(res.headers.get('access-control-allow-origin')).toMatch(/^(\*|https:\/\/studio\.example)$/);
  });

  it('serves the reference page with its assets inline and a hash-based script policy', async () => {
    const res = await fetch(`${base()}/api-reference`);
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toBe('text/html; charset=utf-8');
    const html = await res.text();
    expect(html).toContain('SwaggerUIBundle');
    expect(html).toContain('.swagger-ui');
    const policy = res.headers.get('content-security-policy') ?? '';
    expect(policy).toMatch(/script-src 'sha256-[^']+' 'sha256-[^']+';/);
    expect(policy).not.toContain("script-src 'unsafe-inline'");
  });

  it('signs through POST /user/hmac-signature end to end', async () => {
    const res = await fetch(`${base()}/user/hmac-signature`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({
        secretKey: 's',
        method: 'get',
        path: '/games/me',
        apiKey: '0b6f1a52-4c1e-4c8f-9a37-2f0d6c9e8b11',
        timestamp: 1,
      }),
    });
    expect(res.status).toBe(200);
    const body = (await res.json()) as { data: { signature: string } };
    expect(body.data.signature).toMatch(
      /^HMAC-SHA256 apiKey=0b6f1a52-4c1e-4c8f-9a37-2f0d6c9e8b11 signature=[0-9a-f]{64} timestamp=1$/,
    );
    const bad = await fetch(`${base()}/user/hmac-signature`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: '{}',
    });
    expect(bad.status).toBe(400);
    expect(await bad.json()).toMatchObject({ error: { code: 'VALIDATION_ERROR' } });
  });

  it('registers a game through the bundled function, storing its image in S3 (lib/adapters/s3.ts)', async () => {
    const dev = await createDeveloper();
    const body = JSON.stringify(gameBody());
    const res = await fetch(`${base()}/games`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', ...hmacHeaders(dev, 'POST', '/games', { body }) },
      body,
    });
    expect(res.status).toBe(201);
    const { game } = ((await res.json()) as { data: { game: { imageUrl: string } } }).data;
    const stored = await fetch(game.imageUrl);
    expect(stored.headers.get('content-type')).toBe('image/png');
    expect(stored.headers.get('cache-control')).toBe('public, max-age=31536000, immutable');
    expect(Buffer.from(await stored.arrayBuffer()).equals(png())).toBe(true);
  });

  it('answers unknown routes with 404 in the standard error format', async () => {
    const res = await fetch(`${base()}/no/such/route`);
    expect(res.status).toBe(404);
    expect(await res.json()).toMatchObject({ error: { code: 'NOT_FOUND', requestId: expect.any(String) } });
  });

  // In Debian's Chromium or, without it, the one npm installs (tests/helpers/browser.ts): never skipped.
  it('renders the interactive reference offline, listing the operations', async () => {
    const browser = await launchBrowser();
    try {
      const page = await browser.newPage();
      const external: string[] = [];
      page.on('request', (r) => {
        if (!r.url().startsWith(base())) external.push(r.url());
      });
      await page.goto(`${base()}/api-reference`);
      await page.waitForSelector('.opblock-summary-path', { timeout: 20_000 });
      const paths = await page.$$eval('.opblock-summary-path', (els) =>
        els.map((e) => e.getAttribute('data-path') ?? e.textContent),
      );
      for (const contract of contracts) expect(paths).toContain(contract.path);
      expect(external).toEqual([]);
    } finally {
      await browser.close();
    }
  }, 60_000);
});
