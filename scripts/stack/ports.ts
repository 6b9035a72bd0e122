// Port allocation: fixed well-known ports for `npm run dev`, OS-assigned free ports for tests.
import { createServer, type Server } from 'node:net';
import type { StackPorts } from './types.js';

/** The ports `npm run dev` uses (serverless-offline's own defaults for api/lambda/websocket/alb). */
export const FIXED_PORTS: Readonly<StackPorts> = {
  api: 3000,
  lambda: 3002,
  websocket: 3001,
  alb: 3003,
  dynamodb: 8000,
  fauxqs: 4566,
  sfn: 8083,
  secretsManager: 8084,
  idp: 8090,
  solana: 8899,
  demo: 8091,
  console: 8093,
  price: 8092,
};

/** Fixed ports (after checking they are free), or a distinct OS-assigned free port per service. */
export async function resolvePorts(mode: 'fixed' | 'free'): Promise<StackPorts> {
  const keys = Object.keys(FIXED_PORTS) as (keyof StackPorts)[];
  if (mode === 'fixed') {
    const busy = (
      await Promise.all(keys.map(async (key) => ((await isFree(FIXED_PORTS[key])) ? '' : key)))
    ).filter(Boolean);
    if (busy.length > 0) {
      const list = busy.map((key) => `${key}=${FIXED_PORTS[key as keyof StackPorts]}`).join(', ');
      throw new Error(`ports already in use: ${list} (is another local stack running?)`);
    }
    return { ...FIXED_PORTS };
  }
  // Hold every server open until all ports are known, so that no two services get the same port.
  const servers = await Promise.all(keys.map(() => listen(0)));
  const ports = Object.fromEntries(
    keys.map((key, i) => [key, portOf(servers[i] as Server)]),
  ) as unknown as StackPorts;
  await Promise.all(servers.map(close));
  return ports;
}

async function isFree(port: number): Promise<boolean> {
  try {
    await close(await listen(port));
    return true;
  } catch {
    return false;
  }
}

function listen(port: number): Promise<Server> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.unref();
    server.once('error', reject);
    server.listen({ port, host: '0.0.0.0', exclusive: true }, () => resolve(server));
  });
}

function portOf(server: Server): number {
  const address = server.address();
  if (address === null || typeof address === 'string') throw new Error('server has no TCP address');
  return address.port;
}

function close(server: Server): Promise<void> {
  return new Promise((resolve) => server.close(() => resolve()));
}
