// The local chain: a Solana JSON-RPC 2.0 server (HTTP, plus the WebSocket subscriptions web3.js uses to confirm
// transactions) over litesvm, so unmodified @solana/web3.js and @solana/spl-token code runs against the real
// System, SPL Token, Token-2022, ATA and Memo programs offline. See docs/local-chain.md.
//
//   tsx scripts/chain/rpc-server.ts --port 8899 --data .data/dev

import { createHash } from 'node:crypto';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join, resolve } from 'node:path';
import type { Duplex } from 'node:stream';
import { parseArgs } from 'node:util';
import { VersionedTransaction } from '@solana/web3.js';
import bs58 from 'bs58';
import type { LiteSVM } from 'litesvm';
import { WebSocketServer } from 'ws';
import { runStandIn } from '../stack/process.js';
import { RpcError } from './codec.js';
import { Ledger } from './ledger.js';
import { METHODS } from './rpc-methods.js';
import { loadSnapshot, saveSnapshot } from './snapshot.js';
import { Subscriptions } from './subscriptions.js';

export interface LocalChainOptions {
  /** HTTP port; 0 picks a free one. WebSockets are served on this port and, when free, on port + 1. */
  port: number;
  host?: string;
  /** Folder for the snapshot (`<dataDir>/chain`); without it the chain is in memory only. */
  dataDir?: string;
  /** Milliseconds per slot (blockhashes expire after 150 slots). Default 400. */
  slotMs?: number;
  /** Snapshot interval while running. Default 5000. */
  persistMs?: number;
  /** Requests a second per JSON-RPC method, as a provider plan limits them (none by default). */
  limits?: Limits;
  /** Pages that fail once (see `Flaky`); none by default. */
  flaky?: Flaky;
}

/**
 * A provider plan's limits: requests per sliding second, per method. A request over its method's limit is answered
 * HTTP 429 with `Retry-After: 1` and a JSON-RPC error body, as providers answer, and is not served.
 */
export type Limits = Record<string, number>;

/** What a flaky request answers instead of its result. */
export type FlakyKind = 'rateLimited' | 'unavailable' | 'minContextSlot' | 'timeout';

/**
 * A flaky provider behind a load balancer: a share of the distinct requests of these methods (by method and
 * params, so a retry of the same page is a different attempt of the same request) fails once, the first time it
 * is asked, the kinds taken in turn; asked again it is answered. The choice is a hash of the request and `seed`,
 * so a run is reproducible.
 */
export interface Flaky {
  methods: string[];
  /** Share of distinct requests failing once, 0–1. */
  rate: number;
  /** Default: all four in turn. */
  kinds?: FlakyKind[];
  /** How late a `timeout` answers (ms): longer than the client's timeout. Default 2000. */
  delayMs?: number;
  /** The Retry-After of a `rateLimited` answer (s); none by default (the client's own backoff then applies). */
  retryAfterSeconds?: number;
  seed?: string;
}

/** What the limits and the flaky pages did so far. */
export interface ChainTraffic {
  /** Requests served per method. */
  served: Record<string, number>;
  /** Requests answered 429 for a limit, per method. */
  limited: Record<string, number>;
  /** Flaky failures injected, per kind. */
  flaky: Partial<Record<FlakyKind, number>>;
}

/** A scripted failure for tests: the next `times` matching requests fail this way. */
export interface Fault {
  /** JSON-RPC method to match; any method when absent. */
  method?: string;
  /** How many requests to affect. Default 1. */
  times?: number;
  /** Answer with this HTTP status instead (e.g. 429, 503). */
  status?: number;
  /** Answer with this JSON-RPC error instead. */
  rpcError?: { code: number; message: string };
  /** Delay the answer (to trip client timeouts). */
  delayMs?: number;
  /** sendTransaction only: answer with the signature but never process the transaction (a lost transaction). */
  drop?: boolean;
  /** With status 429: the Retry-After (s) sent. Default 1; undefined in a flaky page's 429 (see Flaky). */
  retryAfterSeconds?: number | undefined;
}

export interface LocalChain {
  url: string;
  wsUrl: string;
  svm: LiteSVM;
  ledger: Ledger;
  /** Queue a failure for upcoming requests (tests of retries and idempotency). */
  injectFault(fault: Fault): void;
  /** Drop every queued fault. */
  clearFaults(): void;
  /** Replace the per-method limits (empty: none). */
  setLimits(limits: Limits): void;
  /** Make pages flaky (undefined: none). */
  setFlaky(flaky: Flaky | undefined): void;
  /** Counters since the start or the last reset. */
  traffic(reset?: boolean): ChainTraffic;
  /** Write the snapshot now (no-op without dataDir). */
  persist(): void;
  stop(): Promise<void>;
}

interface JsonRpcRequest {
  jsonrpc?: unknown;
  id?: unknown;
  method?: unknown;
  params?: unknown;
}

const MAX_BODY = 5 * 1024 * 1024;
const CORS = {
  'access-control-allow-origin': '*',
  'access-control-allow-methods': 'POST, GET, OPTIONS',
  'access-control-allow-headers': 'content-type, solana-client',
};

const errorBody = (id: unknown, code: number, message: string, data?: unknown) => ({
  jsonrpc: '2.0',
  id: id ?? null,
  error: data === undefined ? { code, message } : { code, message, data },
});

const dispatch = (ledger: Ledger, req: JsonRpcRequest): unknown => {
  if (req.jsonrpc !== '2.0' || typeof req.method !== 'string')
    return errorBody(req.id, -32600, 'Invalid request');
  const method = METHODS[req.method];
  if (!method) return errorBody(req.id, -32601, 'Method not found');
  const params = req.params === undefined || req.params === null ? [] : req.params;
  if (!Array.isArray(params)) return errorBody(req.id, -32602, 'Invalid params: expected an array');
  try {
    return { jsonrpc: '2.0', id: req.id ?? null, result: method(ledger, params) };
  } catch (error) {
    if (error instanceof RpcError) return errorBody(req.id, error.code, error.message, error.data);
    return errorBody(req.id, -32603, `Internal error: ${(error as Error).message}`);
  }
};

const readBody = (req: IncomingMessage): Promise<string> =>
  new Promise((resolveBody, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    req.on('data', (chunk: Buffer) => {
      size += chunk.length;
      if (size > MAX_BODY) reject(new Error('body too large'));
      else chunks.push(chunk);
    });
    req.on('end', () => resolveBody(Buffer.concat(chunks).toString('utf8')));
    req.on('error', reject);
  });

const listen = (server: Server, port: number, host: string) =>
  new Promise<number>((resolvePort, reject) => {
    server.once('error', reject);
    server.listen(port, host, () => {
      server.off('error', reject);
      resolvePort((server.address() as AddressInfo).port);
    });
  });

const close = (server: Server) =>
  new Promise<void>((resolveClose) => {
    server.closeAllConnections();
    server.close(() => resolveClose());
  });

/** Start the local chain; restores `<dataDir>/chain` when present. */
export const startLocalChain = async (options: LocalChainOptions): Promise<LocalChain> => {
  const host = options.host ?? '127.0.0.1';
  const snapshotDir = options.dataDir ? join(options.dataDir, 'chain') : undefined;
  const ledger = new Ledger({ slotMs: options.slotMs }, snapshotDir ? loadSnapshot(snapshotDir) : undefined);
  const faults: Array<Fault & { times: number }> = [];
  const subscriptions = new Subscriptions(ledger);
  // One endpoint for both ports (noServer: they hand it their upgrade requests). Messages are JSON-RPC text
  // of a few hundred bytes; 1 MiB bounds what one client can make the chain buffer.
  const sockets = new WebSocketServer({ noServer: true, maxPayload: 1 << 20 });
  sockets.on('connection', (socket) => {
    socket.on('message', (data) => subscriptions.handle(data.toString(), socket));
    socket.on('close', () => subscriptions.drop(socket));
    // A client's protocol error (e.g. a message over maxPayload) ends its connection, not the chain: without
    // a listener the 'error' event would throw.
    socket.on('error', () => socket.terminate());
  });

  const takeFault = (method: string | undefined) => {
    const at = faults.findIndex((f) => f.method === undefined || f.method === method);
    if (at < 0) return undefined;
    const fault = faults[at] as Fault & { times: number };
    fault.times -= 1;
    if (fault.times <= 0) faults.splice(at, 1);
    return fault;
  };

  const onUpgrade = (req: IncomingMessage, socket: Duplex, head: Buffer) => {
    sockets.handleUpgrade(req, socket, head, (client) => sockets.emit('connection', client, req));
  };

  let limits: Limits = { ...options.limits };
  let flaky = options.flaky;
  const seen = new Map<string, number[]>();
  const flakyAsked = new Set<string>();
  let flakyTurn = 0;
  let traffic: ChainTraffic = { served: {}, limited: {}, flaky: {} };
  const count = (table: Record<string, number>, key: string) => {
    table[key] = (table[key] ?? 0) + 1;
  };

  /** Whether a request of `method` now is over its limit (requests served in the last 1 000 ms). */
  const overLimit = (method: string): boolean => {
    const limit = limits[method];
    if (!limit) return false;
    const now = Date.now();
    const times = (seen.get(method) ?? []).filter((t) => t > now - 1000);
    seen.set(method, times);
    if (times.length >= limit) return true;
    times.push(now);
    return false;
  };

  /** The flaky failure this request gets, if it is one of the chosen and asked for the first time. */
  const flakyFault = (req: JsonRpcRequest): Fault | undefined => {
    if (!flaky || typeof req.method !== 'string' || !flaky.methods.includes(req.method)) return undefined;
    const key = `${req.method}:${JSON.stringify(req.params ?? [])}`;
    if (flakyAsked.has(key)) return undefined;
    flakyAsked.add(key);
    const draw = createHash('sha256')
      .update(`${flaky.seed ?? ''}:${key}`)
      .digest()
      .readUInt32BE(0);
    if (draw / 2 ** 32 >= flaky.rate) return undefined;
    const kinds = flaky.kinds?.length
      ? flaky.kinds
      : (['rateLimited', 'unavailable', 'minContextSlot', 'timeout'] as const);
    const kind = kinds[flakyTurn++ % kinds.length] as FlakyKind;
    traffic.flaky[kind] = (traffic.flaky[kind] ?? 0) + 1;
    if (kind === 'rateLimited') return { status: 429, retryAfterSeconds: flaky.retryAfterSeconds };
    if (kind === 'unavailable') return { status: 503 };
    if (kind === 'timeout') return { delayMs: flaky.delayMs ?? 2000, status: 504 };
    return { rpcError: { code: -32016, message: 'Minimum context slot has not been reached' } };
  };

  type Answer = { status?: number; body?: unknown; retryAfter?: number | undefined };
  /** The answer of a request past its method's limit (not served), or undefined when within it. */
  const limited = (req: JsonRpcRequest, name: string): Answer | undefined => {
    if (!overLimit(name)) {
      count(traffic.served, name);
      return undefined;
    }
    count(traffic.limited, name);
    return {
      status: 429,
      body: errorBody(req.id, 429, `Too many requests for ${name}: limit ${limits[name]}/s`),
      retryAfter: 1,
    };
  };

  /** What a fault answers instead of the result (undefined: a late answer still served). */
  const faultAnswer = (req: JsonRpcRequest, fault: Fault): Answer | undefined => {
    if (fault.status)
      return { status: fault.status, retryAfter: 'retryAfterSeconds' in fault ? fault.retryAfterSeconds : 1 };
    if (fault.rpcError) return { body: errorBody(req.id, fault.rpcError.code, fault.rpcError.message) };
    if (fault.drop && req.method === 'sendTransaction') {
      // Answer as if accepted, without processing: the client sees a signature that never lands.
      const [encoded, cfg] = (req.params ?? []) as [string, { encoding?: string }?];
      const raw = cfg?.encoding === 'base64' ? Buffer.from(encoded, 'base64') : bs58.decode(encoded);
      const signature = bs58.encode(
        VersionedTransaction.deserialize(raw).signatures[0] ?? new Uint8Array(64),
      );
      return { body: { jsonrpc: '2.0', id: req.id, result: signature } };
    }
    return undefined;
  };

  const handleOne = async (req: JsonRpcRequest): Promise<Answer> => {
    const name = typeof req.method === 'string' ? req.method : '';
    const over = limited(req, name);
    if (over) return over;
    const fault = takeFault(typeof req.method === 'string' ? req.method : undefined) ?? flakyFault(req);
    if (fault?.delayMs) await new Promise((r) => setTimeout(r, fault.delayMs));
    return (fault && faultAnswer(req, fault)) ?? { body: dispatch(ledger, req) };
  };

  /** An HTTP failure instead of the answer: a 429 with its Retry-After and body, as providers send it. */
  const writeFailure = (res: ServerResponse, id: unknown, { status = 500, body, retryAfter }: Answer) => {
    if (status !== 429) return void res.writeHead(status, CORS).end(`injected fault: HTTP ${status}`);
    res
      .writeHead(429, {
        ...CORS,
        'content-type': 'application/json',
        ...(retryAfter === undefined ? {} : { 'retry-after': String(retryAfter) }),
      })
      .end(JSON.stringify(body ?? errorBody(id, 429, 'Too many requests')));
  };

  const onRequest = async (req: IncomingMessage, res: ServerResponse) => {
    if (req.method === 'OPTIONS') return void res.writeHead(204, CORS).end();
    if (req.method === 'GET' && req.url === '/health') return void res.writeHead(200, CORS).end('ok');
    if (req.method !== 'POST') return void res.writeHead(405, CORS).end();
    let parsed: unknown;
    try {
      parsed = JSON.parse(await readBody(req));
    } catch {
      return void res
        .writeHead(200, { ...CORS, 'content-type': 'application/json' })
        .end(JSON.stringify(errorBody(null, -32700, 'Parse error')));
    }
    const batch = Array.isArray(parsed);
    const requests = (batch ? parsed : [parsed]) as JsonRpcRequest[];
    const answers: unknown[] = [];
    for (const one of requests) {
      const answer = await handleOne(one ?? {});
      if (answer.status) return writeFailure(res, one?.id, answer);
      answers.push(answer.body);
    }
    res
      .writeHead(200, { ...CORS, 'content-type': 'application/json' })
      .end(JSON.stringify(batch ? answers : answers[0]));
  };

  const server = createServer((req, res) => {
    onRequest(req, res).catch((error: unknown) => {
      if (!res.headersSent) res.writeHead(500, CORS).end(String(error));
    });
  });
  server.on('upgrade', onUpgrade);
  const port = await listen(server, options.port, host);
  // web3.js derives its WebSocket URL as the RPC port + 1 (the validator convention); serve it there when free.
  const wsServer = createServer((_req, res) => res.writeHead(426).end());
  wsServer.on('upgrade', onUpgrade);
  const wsPort = await listen(wsServer, port + 1, host).catch(() => undefined);

  let savedVersion = -1;
  let lastSaveMs = 0;
  let lastSaveAt = 0;
  const persist = () => {
    if (!snapshotDir || savedVersion === ledger.version) return;
    const started = Date.now();
    saveSnapshot(snapshotDir, ledger);
    savedVersion = ledger.version;
    lastSaveAt = Date.now();
    lastSaveMs = lastSaveAt - started;
  };
  // Saving is synchronous; with very many accounts, space saves out so the chain spends ≤ ~10% of its time on it.
  const persistTimer = snapshotDir
    ? setInterval(() => {
        if (Date.now() - lastSaveAt >= 10 * lastSaveMs) persist();
      }, options.persistMs ?? 5000)
    : undefined;
  persistTimer?.unref();
  ledger.start();

  const urlHost = host === '0.0.0.0' || host === '::' ? '127.0.0.1' : host;
  return {
    url: `http://${urlHost}:${port}`,
    wsUrl: `ws://${urlHost}:${wsPort ?? port}`,
    svm: ledger.svm,
    ledger,
    injectFault: (fault) => {
      faults.push({ ...fault, times: fault.times ?? 1 });
    },
    clearFaults: () => {
      faults.length = 0;
    },
    setLimits: (next) => {
      limits = { ...next };
      seen.clear();
    },
    setFlaky: (next) => {
      flaky = next;
      flakyAsked.clear();
      flakyTurn = 0;
    },
    traffic: (reset = false) => {
      const now = traffic;
      if (reset) traffic = { served: {}, limited: {}, flaky: {} };
      return now;
    },
    persist,
    stop: async () => {
      ledger.stop();
      clearInterval(persistTimer);
      for (const client of sockets.clients) client.close(1000);
      await Promise.all([close(server), wsPort === undefined ? Promise.resolve() : close(wsServer)]);
      persist();
    },
  };
};

const main = async () => {
  const { values } = parseArgs({
    options: {
      port: { type: 'string', default: process.env.CHAIN_PORT ?? '8899' },
      host: { type: 'string', default: '127.0.0.1' },
      data: { type: 'string' },
      'slot-ms': { type: 'string', default: '400' },
      // A provider plan's limit, e.g. --limit sendTransaction=5 (repeatable).
      limit: { type: 'string', multiple: true, default: [] },
      // Flaky pages: --flaky-rate 0.01 makes 1 % of distinct getProgramAccounts(V2) requests fail once.
      'flaky-rate': { type: 'string', default: '0' },
    },
  });
  const limits: Limits = {};
  for (const spec of values.limit) {
    const [method, perSecond] = spec.split('=');
    if (!method || !(Number(perSecond) > 0)) throw new Error(`--limit ${spec}: expected method=perSecond`);
    limits[method] = Number(perSecond);
  }
  const flakyRate = Number(values['flaky-rate']);
  const started = performance.now();
  const chain = await startLocalChain({
    port: Number(values.port),
    host: values.host,
    dataDir: values.data ? resolve(values.data) : undefined,
    slotMs: Number(values['slot-ms']),
    limits,
    ...(flakyRate > 0
      ? { flaky: { methods: ['getProgramAccounts', 'getProgramAccountsV2'], rate: flakyRate } }
      : {}),
  });
  console.log(
    `local chain: ${chain.url} (ws ${chain.wsUrl}), slot ${chain.ledger.slot}, ${chain.ledger.index.size} accounts, ` +
      `started in ${Math.round(performance.now() - started)} ms${values.data ? `, data in ${values.data}/chain` : ''}`,
  );
  return chain;
};

runStandIn(import.meta.url, main);
