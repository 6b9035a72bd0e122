// The local chain: a Solana JSON-RPC 2.0 server (HTTP, plus the WebSocket subscriptions web3.js uses to confirm
// transactions) over litesvm, so unmodified @solana/web3.js and @solana/spl-token code runs against the real
// System, SPL Token, Token-2022, ATA and Memo programs offline. See docs/local-chain.md.
//
//   tsx scripts/chain/rpc-server.ts --port 8899 --data .data/dev

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

  const handleOne = async (req: JsonRpcRequest): Promise<{ status?: number; body?: unknown }> => {
    const fault = takeFault(typeof req.method === 'string' ? req.method : undefined);
    if (fault?.delayMs) await new Promise((r) => setTimeout(r, fault.delayMs));
    if (fault?.status) return { status: fault.status };
    if (fault?.rpcError) return { body: errorBody(req.id, fault.rpcError.code, fault.rpcError.message) };
    if (fault?.drop && req.method === 'sendTransaction') {
      // Answer as if accepted, without processing: the client sees a signature that never lands.
      const [encoded, cfg] = (req.params ?? []) as [string, { encoding?: string }?];
      const raw = cfg?.encoding === 'base64' ? Buffer.from(encoded, 'base64') : bs58.decode(encoded);
      const signature = bs58.encode(
        VersionedTransaction.deserialize(raw).signatures[0] ?? new Uint8Array(64),
      );
      return { body: { jsonrpc: '2.0', id: req.id, result: signature } };
    }
    return { body: dispatch(ledger, req) };
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
      const { status, body } = await handleOne(one ?? {});
      if (status) return void res.writeHead(status, CORS).end(`injected fault: HTTP ${status}`);
      answers.push(body);
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
    },
  });
  const started = performance.now();
  const chain = await startLocalChain({
    port: Number(values.port),
    host: values.host,
    dataDir: values.data ? resolve(values.data) : undefined,
    slotMs: Number(values['slot-ms']),
  });
  console.log(
    `local chain: ${chain.url} (ws ${chain.wsUrl}), slot ${chain.ledger.slot}, ${chain.ledger.index.size} accounts, ` +
      `started in ${Math.round(performance.now() - started)} ms${values.data ? `, data in ${values.data}/chain` : ''}`,
  );
  return chain;
};

runStandIn(import.meta.url, main);
