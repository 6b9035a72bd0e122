// The console's local server: the upload relay forwards a PUT to the local object store only (never to another
// host or port: it must not become an open proxy), the local identity provider's inbox is read for an address only,
// and the console is served under /console/ with its config.
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { gzipSync } from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildConsole, type ConsoleServer, startConsoleServer } from '../../scripts/console/server.js';
import { type LocalIdp, startLocalIdp } from '../../scripts/idp/server.js';
import { LOCAL_APP_ID } from '../../scripts/idp/wallets.js';

let store: Server;
let other: Server;
let server: ConsoleServer;
let idp: LocalIdp;
const received: Array<{ url: string; type: string; length: number }> = [];

const listen = async (handler: Parameters<typeof createServer>[1]) => {
  const s = createServer(handler);
  await new Promise<void>((resolve) => s.listen(0, '127.0.0.1', resolve));
  return s;
};
const portOf = (s: Server) => (s.address() as AddressInfo).port;

beforeAll(async () => {
  store = await listen((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      received.push({
        url: req.url ?? '',
        type: req.headers['content-type'] ?? '',
        length: Buffer.concat(chunks).length,
      });
      res.end();
    });
  });
  other = await listen((_req, res) => {
    received.push({ url: 'OTHER', type: '', length: 0 });
    res.end();
  });
  idp = await startLocalIdp({ port: 0 });
  server = await startConsoleServer({
    port: 0,
    apiUrl: 'http://127.0.0.1:9',
    idpUrl: idp.url,
    s3Url: `http://127.0.0.1:${portOf(store)}`,
    solanaUrl: 'http://127.0.0.1:8899',
  });
});
afterAll(async () => {
  await server.stop();
  await idp.stop();
  store.close();
  other.close();
});

const relay = (to: string) =>
  fetch(`${server.url}/console/upload?to=${encodeURIComponent(to)}`, {
    method: 'PUT',
    headers: { 'content-type': 'image/png' },
    body: new Uint8Array(1234),
  });

describe('the console server', () => {
  it('relays an upload to the local object store with its type and length', async () => {
    const res = await relay(`http://127.0.0.1:${portOf(store)}/bucket/uploads/a/b?X-Amz-Signature=x`);
    expect(res.status).toBe(200);
    expect(received.at(-1)).toEqual({
      url: '/bucket/uploads/a/b?X-Amz-Signature=x',
      type: 'image/png',
      length: 1234,
    });
  });

  it('refuses to relay anywhere else', async () => {
    const before = received.length;
    for (const to of [
      `http://127.0.0.1:${portOf(other)}/x`,
      `http://169.254.169.254:${portOf(store)}/latest/meta-data`,
      `https://127.0.0.1:${portOf(store)}/x`,
      'file:///etc/passwd',
      'not a url',
    ]) {
      expect((await relay(to)).status, to).toBe(400);
    }
    expect(received.length).toBe(before);
  });

  it('reads the local provider’s inbox for an address only', async () => {
    for (const email of ['', 'no-at-sign', `${'a'.repeat(250)}@local`])
      expect((await fetch(`${server.url}/console/inbox?email=${encodeURIComponent(email)}`)).status).toBe(
        400,
      );
    const inbox = (email: string) => fetch(`${server.url}/console/inbox?email=${encodeURIComponent(email)}`);
    expect((await inbox('nobody@local')).status).toBe(404);
    const sent = await fetch(`${idp.url}/api/v1/passwordless/init`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'privy-app-id': LOCAL_APP_ID },
      body: JSON.stringify({ email: 'ann@local' }),
    });
    expect(sent.status).toBe(200);
    const answer = await inbox('ann@local');
    expect(answer.status).toBe(200);
    expect(((await answer.json()) as { code: string }).code).toMatch(/^[0-9]{6}$/);
  });

  it('serves its config and redirects /console to /console/', async () => {
    const config = (await (await fetch(`${server.url}/console/config.json`)).json()) as Record<
      string,
      unknown
    >;
    expect(config).toMatchObject({
      apiUrl: 'http://127.0.0.1:9',
      identityProvider: { appId: LOCAL_APP_ID, apiUrl: idp.url },
      localInboxUrl: 'inbox',
      uploadRelayUrl: 'upload',
    });
    expect(config.txUrlTemplate).toBe(
      `https://explorer.solana.com/tx/{signature}?cluster=custom&customUrl=${encodeURIComponent('http://127.0.0.1:8899')}`,
    );
    const redirect = await fetch(`${server.url}/console`, { redirect: 'manual' });
    expect(redirect.status).toBe(302);
    expect(redirect.headers.get('location')).toBe('/console/');
  });
});

describe('the console build', () => {
  it('builds offline in memory, and the script every page loads stays under 30 KB gzipped', async () => {
    const files = await buildConsole();
    const html = files.get('/console/index.html')?.[0].toString('utf8') ?? '';
    const entry = /src="\.\/(assets\/index-[\w-]+\.js)"/.exec(html)?.[1];
    expect(entry).toBeDefined();
    const script = files.get(`/console/${entry}`)?.[0] ?? Buffer.alloc(0);
    expect(gzipSync(script, { level: 9 }).length).toBeLessThan(30_000);
    // The chart library is its own chunk, loaded with the first chart only.
    expect([...files.keys()].some((name) => /\/assets\/uPlot[\w.-]*\.js$/.test(name))).toBe(true);
    expect(script.toString('utf8')).not.toContain('u-legend');
  }, 60_000);
});
