import {
  createServer,
  type IncomingHttpHeaders,
  type IncomingMessage,
  type Server,
  type ServerResponse,
} from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import {
  CrossOriginRedirectError,
  isPublicAddress,
  type SafeFetchOptions,
  safeFetch,
  UnsafeUrlError,
} from '../../lib/adapters/safe-fetch.js';

// The only network used is a loopback server started here. Public hostnames never reach DNS: the injected
// lookup answers for the names the tests use and fails the test for anything else.

interface Seen {
  url: string;
  headers: IncomingHttpHeaders;
  method?: string;
  body?: Buffer;
}

let server: Server;
let port: number;
let seen: Seen[] = [];

/** A webhook receiver: reads the whole body, then answers what `status` says (a big answer when `big`). */
const receivePost = (req: IncomingMessage, res: ServerResponse, url: URL) => {
  const chunks: Buffer[] = [];
  req.on('data', (chunk: Buffer) => chunks.push(chunk));
  req.on('end', () => {
    seen.push({ url: req.url ?? '', headers: req.headers, method: req.method, body: Buffer.concat(chunks) });
    const status = Number(url.searchParams.get('status') ?? 200);
    const location = url.searchParams.get('to');
    res.writeHead(status, location ? { location } : {});
    res.end(url.searchParams.has('big') ? Buffer.alloc(100_000, 0x63) : `got ${req.method}`);
  });
};

/** Every other path: recorded as it arrives, answered by its name. */
const answer = (req: IncomingMessage, res: ServerResponse, url: URL) => {
  seen.push({ url: req.url ?? '', headers: req.headers, method: req.method });
  const chain = /^\/chain\/(\d+)$/.exec(url.pathname);
  if (url.pathname === '/ok') {
    res.writeHead(200, { 'content-type': 'text/html', 'x-multi': ['a', 'b'] }).end('<html>hello</html>');
  } else if (url.pathname === '/redirect') {
    res.writeHead(302, { location: url.searchParams.get('to') ?? '/', 'set-cookie': 'session=secret' }).end();
  } else if (chain) {
    const n = Number(chain[1]);
    if (n === 0) res.writeHead(200).end('end of chain');
    else res.writeHead(301, { location: `/chain/${n - 1}` }).end();
  } else if (url.pathname === '/big') {
    res.writeHead(200, { 'content-type': 'application/octet-stream' });
    const chunk = Buffer.alloc(64 * 1024, 0x61);
    for (let i = 0; i < 48; i++) res.write(chunk); // 3 MiB
    res.end();
  } else if (url.pathname === '/exact') {
    res.writeHead(200).end(Buffer.alloc(1000, 0x62));
  } else if (url.pathname === '/stall-body') {
    res.writeHead(200, { 'content-type': 'text/html' });
    res.write('<html><head>'); // …and never finishes
  } else if (url.pathname === '/hang') {
    // Accept the connection, never answer.
  } else {
    res.writeHead(404).end();
  }
};

beforeAll(async () => {
  server = createServer((req, res) => {
    const url = new URL(req.url ?? '/', 'http://localhost');
    (url.pathname === '/post' ? receivePost : answer)(req, res, url);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  port = (server.address() as AddressInfo).port;
});

afterAll(async () => {
  server.closeAllConnections();
  await new Promise<void>((resolve, reject) => server.close((error) => (error ? reject(error) : resolve())));
});

beforeEach(() => {
  seen = [];
});

/** A lookup that knows a few names; each call is recorded so tests can count resolutions. */
const fakeDns = (table: Record<string, string[]>) => {
  const calls: string[] = [];
  const lookup: NonNullable<SafeFetchOptions['lookup']> = async (hostname) => {
    calls.push(hostname);
    const addresses = table[hostname];
    if (!addresses) throw new Error(`unexpected DNS lookup for ${hostname}`);
    return addresses.map((address) => ({ address, family: address.includes(':') ? 6 : 4 }));
  };
  return { lookup, calls };
};

const local = () => fakeDns({ 'game.example': ['127.0.0.1'] });

/** The UnsafeUrlError a refused fetch throws. */
const refusal = async (promise: Promise<unknown>): Promise<UnsafeUrlError> => {
  const error = await promise.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(UnsafeUrlError);
  return error as UnsafeUrlError;
};

describe('safeFetch against a loopback server (allowLoopback)', () => {
  it('fetches through the injected lookup and keeps the original Host header', async () => {
    const dns = local();
    const result = await safeFetch(`http://game.example:${port}/ok?x=1`, {
      allowLoopback: true,
      lookup: dns.lookup,
    });
    expect(result).toMatchObject({
      status: 200,
      finalUrl: `http://game.example:${port}/ok?x=1`,
      truncated: false,
    });
    expect(result.body.toString()).toBe('<html>hello</html>');
    expect(result.headers['content-type']).toBe('text/html');
    expect(result.headers['x-multi']).toBe('a, b');
    expect(seen).toHaveLength(1);
    expect(seen[0]?.url).toBe('/ok?x=1');
    expect(seen[0]?.headers.host).toBe(`game.example:${port}`);
    expect(dns.calls).toEqual(['game.example']);
  });

  it('connects to the validated address: DNS is asked once, a later answer cannot rebind the connection', async () => {
    const answers = [['127.0.0.1'], ['10.0.0.1']];
    let calls = 0;
    const result = await safeFetch(`http://rebind.example:${port}/ok`, {
      allowLoopback: true,
      lookup: async () => (answers[calls++] ?? []).map((address) => ({ address, family: 4 as const })),
    });
    expect(result.status).toBe(200);
    expect(calls).toBe(1);
    // Had node:net resolved "rebind.example" itself, the connection would have failed (no such name).
  });

  it('sends no cookies or credentials, even after a redirect that set one', async () => {
    await safeFetch(`http://game.example:${port}/redirect?to=/ok`, {
      allowLoopback: true,
      lookup: local().lookup,
    });
    expect(seen.map((s) => s.url)).toEqual(['/redirect?to=/ok', '/ok']);
    for (const { headers } of seen) {
      expect(headers.cookie).toBeUndefined();
      expect(headers.authorization).toBeUndefined();
    }
  });

  it('follows relative redirects up to maxRedirects, re-resolving on each hop', async () => {
    const dns = local();
    const result = await safeFetch(`http://game.example:${port}/chain/3`, {
      allowLoopback: true,
      lookup: dns.lookup,
    });
    expect(result.status).toBe(200);
    expect(result.body.toString()).toBe('end of chain');
    expect(result.finalUrl).toBe(`http://game.example:${port}/chain/0`);
    expect(dns.calls).toHaveLength(4);
  });

  it('refuses more than maxRedirects redirects', async () => {
    const error = await refusal(
      safeFetch(`http://game.example:${port}/chain/4`, { allowLoopback: true, lookup: local().lookup }),
    );
    expect(error.reason).toMatch(/too many redirects/);
    expect(seen).toHaveLength(4);
  });

  it('with sameOriginRedirects follows a redirect within the origin and refuses one to another origin, before asking it', async () => {
    const dns = fakeDns({ 'game.example': ['127.0.0.1'], 'other.example': ['127.0.0.1'] });
    const options = { allowLoopback: true, sameOriginRedirects: true, lookup: dns.lookup };
    const within = await safeFetch(`http://game.example:${port}/chain/2`, options);
    expect(within.finalUrl).toBe(`http://game.example:${port}/chain/0`);
    for (const to of [
      `http://other.example:${port}/ok`,
      `http://game.example:${port + 1}/ok`,
      `https://game.example:${port}/ok`,
    ]) {
      seen = [];
      const error = await refusal(
        safeFetch(`http://game.example:${port}/redirect?to=${encodeURIComponent(to)}`, options),
      );
      expect(error).toBeInstanceOf(CrossOriginRedirectError);
      expect(error.reason).toBe(`redirect to another origin (${new URL(to).origin})`);
      expect(seen.map((s) => s.url)).toEqual([`/redirect?to=${encodeURIComponent(to)}`]);
    }
    expect(dns.calls).not.toContain('other.example');
    // Without the option the same redirect is followed (webhook POSTs use maxRedirects 0 instead).
    const followed = await safeFetch(
      `http://game.example:${port}/redirect?to=${encodeURIComponent(`http://other.example:${port}/ok`)}`,
      { allowLoopback: true, lookup: dns.lookup },
    );
    expect(followed.finalUrl).toBe(`http://other.example:${port}/ok`);
  });

  it('honours a smaller maxRedirects, including 0', async () => {
    await refusal(
      safeFetch(`http://game.example:${port}/chain/1`, {
        allowLoopback: true,
        maxRedirects: 0,
        lookup: local().lookup,
      }),
    );
  });

  it.each([
    ['http://10.0.0.1/', 'private address 10.0.0.1'],
    ['http://169.254.169.254/latest/meta-data', 'linkLocal address 169.254.169.254'],
    ['http://[fd00::1]/', 'uniqueLocal address fd00::1'],
    ['file:///etc/passwd', 'scheme file:'],
    ['http://internal.example/', 'private address 192.168.1.10'],
  ])('re-validates each hop: a redirect to %s is refused', async (to, reason) => {
    const dns = fakeDns({ 'game.example': ['127.0.0.1'], 'internal.example': ['192.168.1.10'] });
    const error = await refusal(
      safeFetch(`http://game.example:${port}/redirect?to=${encodeURIComponent(to)}`, {
        allowLoopback: true,
        lookup: dns.lookup,
      }),
    );
    expect(error.reason).toBe(reason);
    expect(seen).toHaveLength(1); // only the redirecting hop reached a server
  });

  it('cuts the body at maxBytes and stops reading', async () => {
    const result = await safeFetch(`http://game.example:${port}/big`, {
      allowLoopback: true,
      maxBytes: 10_000,
      lookup: local().lookup,
    });
    expect(result.truncated).toBe(true);
    expect(result.body.length).toBe(10_000);
  });

  it('defaults maxBytes to 1 MiB', async () => {
    const result = await safeFetch(`http://game.example:${port}/big`, {
      allowLoopback: true,
      lookup: local().lookup,
    });
    expect(result).toMatchObject({ truncated: true });
    expect(result.body.length).toBe(1024 * 1024);
  });

  it('does not flag a body of exactly maxBytes as truncated', async () => {
    const result = await safeFetch(`http://game.example:${port}/exact`, {
      allowLoopback: true,
      maxBytes: 1000,
      lookup: local().lookup,
    });
    expect(result).toMatchObject({ truncated: false });
    expect(result.body.length).toBe(1000);
  });

  it('times out when the server never answers', async () => {
    const started = Date.now();
    const error = await safeFetch(`http://game.example:${port}/hang`, {
      allowLoopback: true,
      timeoutMs: 300,
      lookup: local().lookup,
    }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(Error);
    expect(error).not.toBeInstanceOf(UnsafeUrlError);
    expect((error as Error).message).toMatch(/timed out after 300 ms/);
    expect(Date.now() - started).toBeLessThan(2000);
  });

  it('times out when the body stalls (the deadline covers the body too)', async () => {
    const started = Date.now();
    const error = await safeFetch(`http://game.example:${port}/stall-body`, {
      allowLoopback: true,
      timeoutMs: 300,
      lookup: local().lookup,
    }).catch((e: unknown) => e);
    expect((error as Error).message).toMatch(/timed out/);
    expect(Date.now() - started).toBeLessThan(2000);
  });

  it('times out when DNS never answers', async () => {
    const error = await safeFetch('http://slow-dns.example/', {
      timeoutMs: 200,
      lookup: () => new Promise(() => undefined),
    }).catch((e: unknown) => e);
    expect((error as Error).message).toMatch(/timed out/);
  });

  it('reports a network failure as a plain Error', async () => {
    const closed = createServer();
    await new Promise<void>((resolve) => closed.listen(0, '127.0.0.1', resolve));
    const closedPort = (closed.address() as AddressInfo).port;
    await new Promise<void>((resolve) => closed.close(() => resolve()));
    const error = await safeFetch(`http://127.0.0.1:${closedPort}/`, { allowLoopback: true }).catch(
      (e: unknown) => e,
    );
    expect(error).toBeInstanceOf(Error);
    expect(error).not.toBeInstanceOf(UnsafeUrlError);
  });
});

describe('safeFetch POST (webhook deliveries)', () => {
  const post = (path: string, options: SafeFetchOptions = {}) =>
    safeFetch(`http://hooks.example:${port}${path}`, {
      method: 'POST',
      body: Buffer.from('{"id":"evt_1","type":"webhook.test"}'),
      headers: { 'content-type': 'application/json', 'webhook-id': 'evt_1' },
      maxRedirects: 0,
      allowLoopback: true,
      lookup: fakeDns({ 'hooks.example': ['127.0.0.1'] }).lookup,
      ...options,
    });

  it('sends the body with its length and the caller’s headers; host, connection and encoding stay its own', async () => {
    const result = await post('/post', {
      headers: {
        'content-type': 'application/json',
        'webhook-id': 'evt_1',
        host: 'internal.service',
        connection: 'keep-alive',
        'accept-encoding': 'gzip',
      },
      userAgent: 'Arcadia-Webhooks/1.0',
    });
    expect(result).toMatchObject({ status: 200, truncated: false });
    expect(result.body.toString()).toBe('got POST');
    expect(seen).toHaveLength(1);
    const [request] = seen;
    expect(request?.method).toBe('POST');
    expect(request?.body?.toString()).toBe('{"id":"evt_1","type":"webhook.test"}');
    expect(request?.headers).toMatchObject({
      'content-type': 'application/json',
      'content-length': '36',
      'webhook-id': 'evt_1',
      host: `hooks.example:${port}`,
      connection: 'close',
      'accept-encoding': 'identity',
      'user-agent': 'Arcadia-Webhooks/1.0',
    });
  });

  it('answers a non-2xx status as it is (the caller decides it failed)', async () => {
    const result = await post('/post?status=500');
    expect(result.status).toBe(500);
    expect(result.body.toString()).toBe('got POST');
  });

  it('never follows a redirect with maxRedirects 0: the POST is not replayed, not even to a public host', async () => {
    const error = await refusal(
      post(`/post?status=307&to=${encodeURIComponent(`http://hooks.example:${port}/ok`)}`),
    );
    expect(error.reason).toBe('too many redirects (max 0)');
    expect(seen.map((s) => [s.url.split('?')[0], s.method])).toEqual([['/post', 'POST']]);
  });

  it('reads at most maxBytes of the answer', async () => {
    const result = await post('/post?big', { maxBytes: 4096 });
    expect(result.status).toBe(200);
    expect(result.body).toHaveLength(4096);
    expect(result.truncated).toBe(true);
  });

  it('cuts a receiver that never answers at the deadline', async () => {
    const started = Date.now();
    await expect(post('/hang', { timeoutMs: 300 })).rejects.toThrow(/timed out after 300 ms/);
    expect(Date.now() - started).toBeLessThan(2_000);
  });

  it('refuses a private or loopback receiver before sending anything', async () => {
    const privateHost = await refusal(
      post('/post', { lookup: fakeDns({ 'hooks.example': ['10.1.2.3'] }).lookup }),
    );
    expect(privateHost.reason).toBe('private address 10.1.2.3');
    const loopback = await refusal(post('/post', { allowLoopback: false }));
    expect(loopback.reason).toBe('non-default port');
    expect(seen).toHaveLength(0);
  });
});

describe('safeFetch refusals', () => {
  it('refuses the loopback server without allowLoopback, before connecting', async () => {
    const dns = local();
    const byAddress = await refusal(safeFetch('http://game.example/ok', { lookup: dns.lookup }));
    expect(byAddress.reason).toBe('loopback address 127.0.0.1');
    const byPort = await refusal(safeFetch(`http://game.example:${port}/ok`, { lookup: dns.lookup }));
    expect(byPort.reason).toBe('non-default port');
    expect(seen).toHaveLength(0);
  });

  it.each([
    ['http://127.0.0.1/', 'loopback address 127.0.0.1'],
    ['http://[::1]/', 'loopback address ::1'],
    ['http://169.254.169.254/latest/meta-data', 'linkLocal address 169.254.169.254'],
    ['http://10.0.0.1/', 'private address 10.0.0.1'],
    ['http://172.16.5.4/', 'private address 172.16.5.4'],
    ['http://192.168.0.1/', 'private address 192.168.0.1'],
    ['http://100.64.0.1/', 'carrierGradeNat address 100.64.0.1'],
    ['http://0.0.0.0/', 'unspecified address 0.0.0.0'],
    ['http://0/', 'unspecified address 0.0.0.0'],
    ['http://[::]/', 'unspecified address ::'],
    ['http://224.0.0.1/', 'multicast address 224.0.0.1'],
    ['http://255.255.255.255/', 'broadcast address 255.255.255.255'],
    ['http://[fe80::1]/', 'linkLocal address fe80::1'],
    ['http://[::ffff:127.0.0.1]/', 'loopback address ::ffff:7f00:1'],
    ['http://[::ffff:a9fe:a9fe]/', 'linkLocal address ::ffff:a9fe:a9fe'],
    ['http://[2002:7f00:1::]/', '6to4 address 2002:7f00:1::'],
    ['http://[::127.0.0.1]/', 'reserved address ::7f00:1'],
    ['http://2130706433/', 'loopback address 127.0.0.1'],
    ['http://0x7f.1/', 'loopback address 127.0.0.1'],
    ['http://0177.0.0.1/', 'loopback address 127.0.0.1'],
    ['file:///etc/passwd', 'scheme file:'],
    ['ftp://x/', 'scheme ftp:'],
    ['gopher://x/', 'scheme gopher:'],
    ['javascript:alert(1)', 'scheme javascript:'],
    ['http://example.com:8080/', 'non-default port'],
    ['http://user:pw@example.com/', 'credentials in URL'],
    ['http://user@example.com/', 'credentials in URL'],
    ['not a url', 'invalid URL'],
  ])('refuses %s', async (url, reason) => {
    const dns = fakeDns({});
    const error = await refusal(safeFetch(url, { lookup: dns.lookup }));
    expect(error.reason).toBe(reason);
    expect(dns.calls).toEqual([]); // decided without DNS
  });

  it.each([
    [['93.184.216.34', '10.0.0.5'], 'private address 10.0.0.5'],
    [['10.0.0.5', '93.184.216.34'], 'private address 10.0.0.5'],
    [['2606:4700::1111', '::1'], 'loopback address ::1'],
  ])('refuses a hostname resolving to %j (every address is checked)', async (addresses, reason) => {
    const dns = fakeDns({ 'mixed.example': addresses });
    const error = await refusal(safeFetch('http://mixed.example/', { lookup: dns.lookup }));
    expect(error.reason).toBe(reason);
  });

  it('allowLoopback permits loopback only: private addresses and public non-default ports stay refused', async () => {
    const dns = fakeDns({ 'lan.example': ['192.168.1.2'], 'public.example': ['93.184.216.34'] });
    expect(
      (await refusal(safeFetch('http://lan.example/', { allowLoopback: true, lookup: dns.lookup }))).reason,
    ).toBe('private address 192.168.1.2');
    expect(
      (await refusal(safeFetch('http://public.example:8080/', { allowLoopback: true, lookup: dns.lookup })))
        .reason,
    ).toBe('non-default port');
  });

  it('refuses a name that resolves to nothing with a plain Error', async () => {
    const error = await safeFetch('http://empty.example/', { lookup: async () => [] }).catch(
      (e: unknown) => e,
    );
    expect(error).toBeInstanceOf(Error);
    expect(error).not.toBeInstanceOf(UnsafeUrlError);
  });
});

describe('isPublicAddress', () => {
  it.each([
    ['93.184.216.34', true],
    ['1.1.1.1', true],
    ['2606:4700:4700::1111', true],
    ['::ffff:93.184.216.34', true],
    ['127.0.0.1', false],
    ['127.255.255.254', false],
    ['10.1.2.3', false],
    ['172.31.255.255', false],
    ['172.32.0.1', true],
    ['192.168.1.1', false],
    ['169.254.169.254', false],
    ['100.64.0.1', false],
    ['100.128.0.1', true],
    ['0.0.0.0', false],
    ['0.1.2.3', false],
    ['224.0.0.1', false],
    ['255.255.255.255', false],
    ['192.0.2.1', false],
    ['198.18.0.1', false],
    ['240.0.0.1', false],
    ['::', false],
    ['::1', false],
    ['fe80::1', false],
    ['fe80::1%eth0', false],
    ['fc00::1', false],
    ['fd12:3456::1', false],
    ['ff02::1', false],
    ['::ffff:127.0.0.1', false],
    ['::ffff:10.0.0.1', false],
    ['::ffff:169.254.169.254', false],
    ['::127.0.0.1', false],
    ['64:ff9b::7f00:1', false],
    ['2002:7f00:1::', false],
    ['2001:0:4136:e378:8000:63bf:3fff:fdd2', false],
    ['2001:db8::1', false],
    ['not-an-ip', false],
    ['0x7f.1', false],
    ['', false],
  ])('%s → %s', (address, expected) => {
    expect(isPublicAddress(address)).toBe(expected);
  });
});
