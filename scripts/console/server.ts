// The studio console's local web server (`npm run dev` starts it; its URL is printed): serves the console at
// /console, built from console/ with Vite on the first visit (in memory: nothing is written, no network), and the
// two things only a local stack needs: the local identity provider's inbox (the one-time sign-in code it "sent";
// the sign-in itself goes from the browser to the provider, as in production), and a same-origin relay for
// presigned image uploads (the local object store answers no CORS preflight; the deployed bucket's CORS rule
// allows the browser's PUT), and a same-origin relay to the local chain's JSON-RPC for the reads that verify a
// payout run (the local validator answers no CORS preflight either).
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { LOCAL_APP_ID } from '../idp/wallets.js';

const consoleDir = fileURLToPath(new URL('../../console/', import.meta.url));
/** The largest image an upload URL admits (5 MB), plus room for nothing else: the relay forwards one image. */
const MAX_UPLOAD_BYTES = 5 * 1024 * 1024;
/** A verifier's JSON-RPC request is one call with a signature and a few options: a few hundred bytes. */
const MAX_RPC_BYTES = 8 * 1024;
/** The reads `verifyStatement` makes (sdk/src/statements.ts), and nothing else: the relay sends no transaction. */
const RPC_RELAY_METHODS: ReadonlySet<string> = new Set(['getTransaction', 'getSignaturesForAddress']);

export interface ConsoleServer {
  url: string;
  stop(): Promise<void>;
}

export interface ConsoleServerOptions {
  port: number;
  host?: string;
  apiUrl: string;
  idpUrl: string;
  /** The local object store's endpoint: the only place the upload relay forwards to. */
  s3Url: string;
  /**
   * The local chain's JSON-RPC URL, for transaction links (an explorer pointed at the local chain), and the only
   * place the RPC relay forwards to.
   */
  solanaUrl: string;
}

type Files = Map<string, [Buffer, string]>;

const TYPES: Record<string, string> = {
  html: 'text/html; charset=utf-8',
  js: 'text/javascript; charset=utf-8',
  css: 'text/css; charset=utf-8',
  json: 'application/json',
  svg: 'image/svg+xml',
};
const typeOf = (name: string) => TYPES[name.split('.').pop() ?? ''] ?? 'application/octet-stream';

/** Build the console in memory with its own Vite config (console/vite.config.ts). */
export const buildConsole = async (): Promise<Files> => {
  const { build } = await import('vite');
  const output = await build({
    configFile: join(consoleDir, 'vite.config.ts'),
    build: { write: false },
    logLevel: 'warn',
  });
  const files: Files = new Map();
  for (const result of Array.isArray(output) ? output : [output]) {
    if (!('output' in result)) continue;
    for (const item of result.output) {
      const bytes = item.type === 'chunk' ? Buffer.from(item.code) : Buffer.from(item.source);
      files.set(`/console/${item.fileName}`, [bytes, typeOf(item.fileName)]);
    }
  }
  return files;
};

/** What the console reads at start (config.json): the API, the local provider and relay, the chain's links. */
export const localConsoleConfig = (
  options: Pick<ConsoleServerOptions, 'apiUrl' | 'solanaUrl' | 'idpUrl'>,
) => {
  const cluster = `cluster=custom&customUrl=${encodeURIComponent(options.solanaUrl)}`;
  return {
    apiUrl: options.apiUrl,
    identityProvider: { appId: LOCAL_APP_ID, apiUrl: options.idpUrl },
    localInboxUrl: 'inbox',
    uploadRelayUrl: 'upload',
    rpcUrl: 'rpc',
    txUrlTemplate: `https://explorer.solana.com/tx/{signature}?${cluster}`,
    addressUrlTemplate: `https://explorer.solana.com/address/{address}?${cluster}`,
  };
};

/**
 * No page may frame the console: its connect page asks a player to approve a game, and a framing page could trick
 * that click (clickjacking). The deployed console's distribution sends the same (serverless.yml).
 */
export const NO_FRAMING = { 'content-security-policy': "frame-ancestors 'none'", 'x-frame-options': 'DENY' };

const send = (res: ServerResponse, status: number, body: string | Buffer, type: string) => {
  res.writeHead(status, { 'content-type': type, 'cache-control': 'no-store' });
  res.end(body);
};
const json = (res: ServerResponse, status: number, body: unknown) =>
  send(res, status, JSON.stringify(body), 'application/json');

const readBody = async (req: IncomingMessage, max: number): Promise<Buffer> => {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of req) {
    size += (chunk as Buffer).length;
    if (size > max) throw new Error('body too large');
    chunks.push(chunk as Buffer);
  }
  return Buffer.concat(chunks);
};

/** A loopback URL on the object store's port: the relay forwards nowhere else. */
const isStoreUrl = (target: string, s3Url: string) => {
  try {
    const url = new URL(target);
    const store = new URL(s3Url);
    return (
      url.protocol === 'http:' &&
      url.port === store.port &&
      ['127.0.0.1', 'localhost', store.hostname].includes(url.hostname)
    );
  } catch {
    return false;
  }
};

export const startConsoleServer = async (options: ConsoleServerOptions): Promise<ConsoleServer> => {
  let built: Promise<Files> | undefined;
  const files = () => {
    built ??= buildConsole().catch((error: unknown) => {
      built = undefined;
      throw error;
    });
    return built;
  };
  const config = JSON.stringify(localConsoleConfig(options));

  /** The local provider's inbox: the code last sent to `?email=` (404 when none). */
  const inbox = async (res: ServerResponse, url: URL) => {
    const email = url.searchParams.get('email') ?? '';
    if (email.length === 0 || email.length > 254 || !email.includes('@'))
      return json(res, 400, { error: { message: 'email: an email address' } });
    const answer = await fetch(new URL(`/local/passwordless/${encodeURIComponent(email)}`, options.idpUrl), {
      signal: AbortSignal.timeout(5000),
    });
    return send(res, answer.status, Buffer.from(await answer.arrayBuffer()), 'application/json');
  };

  const relay = async (req: IncomingMessage, res: ServerResponse, url: URL) => {
    const target = url.searchParams.get('to') ?? '';
    if (!isStoreUrl(target, options.s3Url))
      return json(res, 400, { error: { message: 'to: not an upload URL of the local object store' } });
    const body = await readBody(req, MAX_UPLOAD_BYTES);
    const answer = await fetch(target, {
      method: 'PUT',
      headers: { 'content-type': req.headers['content-type'] ?? 'application/octet-stream' },
      body,
    });
    return send(res, answer.status, Buffer.from(await answer.arrayBuffer()), 'application/xml');
  };

  /** One JSON-RPC call of the verifier's reads, passed through to the local chain as it came. */
  const rpc = async (req: IncomingMessage, res: ServerResponse) => {
    const refuse = (message: string) =>
      json(res, 400, { jsonrpc: '2.0', id: null, error: { code: -32600, message } });
    let body: Buffer;
    try {
      body = await readBody(req, MAX_RPC_BYTES);
    } catch {
      return json(res, 413, { error: { message: `a JSON-RPC request of at most ${MAX_RPC_BYTES} bytes` } });
    }
    let call: unknown;
    try {
      call = JSON.parse(body.toString('utf8'));
    } catch {
      return refuse('not JSON');
    }
    // One call, not a batch: a batch would need each of its methods checked, and the verifier sends none.
    const method = (call as { method?: unknown } | null)?.method;
    if (typeof call !== 'object' || call === null || Array.isArray(call) || typeof method !== 'string')
      return refuse('one JSON-RPC call');
    if (!RPC_RELAY_METHODS.has(method))
      return refuse(`${method}: the relay forwards ${[...RPC_RELAY_METHODS].join(' and ')} only`);
    const answer = await fetch(options.solanaUrl, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body,
      signal: AbortSignal.timeout(15_000),
    });
    return send(res, answer.status, Buffer.from(await answer.arrayBuffer()), 'application/json');
  };

  const routes: Record<string, (req: IncomingMessage, res: ServerResponse, url: URL) => Promise<void>> = {
    'GET /console/config.json': async (_req, res) => send(res, 200, config, 'application/json'),
    'GET /console/inbox': (_req, res, url) => inbox(res, url),
    'PUT /console/upload': relay,
    'POST /console/rpc': (req, res) => rpc(req, res),
  };

  const handle = async (req: IncomingMessage, res: ServerResponse) => {
    const url = new URL(req.url ?? '/', 'http://console');
    const path = url.pathname;
    if (req.method === 'GET' && (path === '/' || path === '/console')) {
      res.writeHead(302, { location: '/console/' });
      return res.end();
    }
    const route = routes[`${req.method} ${path}`];
    if (route) return route(req, res, url);
    if (req.method !== 'GET') return json(res, 405, { error: { message: `${req.method} ${path}` } });
    const all = await files();
    const file = all.get(path === '/console/' ? '/console/index.html' : path);
    if (!file) return json(res, 404, { error: { message: `GET ${path}` } });
    return send(res, 200, file[0], file[1]);
  };

  const server = createServer((req, res) => {
    for (const [name, value] of Object.entries(NO_FRAMING)) res.setHeader(name, value);
    handle(req, res).catch((error: unknown) => {
      if (!res.headersSent)
        json(res, 502, { error: { message: error instanceof Error ? error.message : String(error) } });
      else res.destroy();
    });
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port, options.host ?? '127.0.0.1', () => resolve());
  });
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    stop: () => new Promise((resolve) => server.close(() => resolve())),
  };
};
