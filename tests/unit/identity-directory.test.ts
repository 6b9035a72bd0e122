import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { remoteDirectory } from '../../lib/user/directory.js';
import { parseIdentifier } from '../../lib/user/identifiers.js';

// A local HTTP double of the identity provider's user-import API, as documented in lib/user/directory.ts.
const seen: Array<{ method: string; url: string; auth: string; body: unknown }> = [];
let server: Server;

const read = async (req: IncomingMessage) => {
  const chunks: Buffer[] = [];
  for await (const chunk of req) chunks.push(chunk as Buffer);
  return chunks.length ? JSON.parse(Buffer.concat(chunks).toString('utf8')) : undefined;
};

/** The double's one wallet with a holder: a user's embedded wallet. */
const walletHolder = (address: string) =>
  address === 'US517G5965aydkZ46HS38QLi7UQiSojurfbQfKCELFx'
    ? {
        id: 'did:privy:holder',
        linked_accounts: [
          { type: 'wallet', chain_type: 'solana', connector_type: 'embedded', address, delegated: true },
        ],
      }
    : undefined;

type Send = (status: number, json?: unknown) => void;

const answerWalletLookup = (body: unknown, send: Send) => {
  const holder = walletHolder((body as { address: string }).address);
  return holder ? send(200, holder) : send(404, { error: 'not found' });
};

const answerImport = (body: unknown, send: Send) => {
  const account = (body as { linked_accounts: Array<{ address?: string; username?: string }> })
    .linked_accounts[0];
  if (account?.address === 'fail@example.com') return send(503);
  const id = `did:privy:${account?.address ?? account?.username}`;
  if (account?.address === 'grace@example.com')
    return send(200, {
      id,
      linked_accounts: [
        { type: 'email', address: 'grace@example.com' },
        { type: 'wallet', chain_type: 'ethereum', connector_type: 'embedded', address: '0xabc' },
        {
          type: 'wallet',
          chain_type: 'solana',
          connector_type: 'embedded',
          address: 'GraceWallet11111',
          delegated: true,
        },
      ],
    });
  return send(200, { id });
};

/** The provider's POST routes the double answers. */
const posts: Record<string, (body: unknown, send: Send) => void> = {
  '/v1/users/wallet/address': answerWalletLookup,
  '/v1/users/import': answerImport,
};

beforeAll(async () => {
  server = createServer(async (req, res) => {
    const body = await read(req);
    seen.push({ method: req.method ?? '', url: req.url ?? '', auth: req.headers.authorization ?? '', body });
    const send = (status: number, json?: unknown) => {
      res.writeHead(status, { 'content-type': 'application/json' });
      res.end(json === undefined ? '' : JSON.stringify(json));
    };
    const post = req.method === 'POST' ? posts[req.url ?? ''] : undefined;
    if (post) return post(body, send);
    if (req.method === 'GET' && req.url?.startsWith('/v1/users/')) {
      return send(
        decodeURIComponent(req.url.slice('/v1/users/'.length)) === 'did:privy:known' ? 200 : 404,
        {},
      );
    }
    return send(404);
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const port = (server.address() as AddressInfo).port;
  Object.assign(process.env, {
    IDP_API_URL: `http://127.0.0.1:${port}`,
    IDP_APP_ID: 'app',
    IDP_APP_SECRET: 'shh',
  });
});
afterAll(() => new Promise<void>((r) => server.close(() => r())));

describe('remote identity directory (user-import API)', () => {
  const directory = remoteDirectory();

  it('imports a wallet, an email and a handle with the documented request shape and Basic auth', async () => {
    const sol = parseIdentifier('sol:4Nd1mBQtrMJVYVfKf2PJy9NZUZdTAsp7D4xWLs4gDB4T');
    expect(await directory.findOrCreate(sol)).toEqual({
      subject: 'did:privy:4Nd1mBQtrMJVYVfKf2PJy9NZUZdTAsp7D4xWLs4gDB4T',
    });
    expect(await directory.findOrCreate(parseIdentifier('email:Ada@Example.com'))).toEqual({
      subject: 'did:privy:ada@example.com',
    });
    expect(await directory.findOrCreate(parseIdentifier('x:@Ada_L'))).toEqual({ subject: 'did:privy:ada_l' });
    const [wallet, email, handle] = seen.slice(-3);
    expect(wallet).toMatchObject({
      method: 'POST',
      url: '/v1/users/import',
      auth: `Basic ${Buffer.from('app:shh').toString('base64')}`,
      body: {
        linked_accounts: [
          { type: 'wallet', chain_type: 'solana', address: '4Nd1mBQtrMJVYVfKf2PJy9NZUZdTAsp7D4xWLs4gDB4T' },
        ],
        create_embedded_wallet: true,
      },
    });
    expect(email?.body).toMatchObject({ linked_accounts: [{ type: 'email', address: 'ada@example.com' }] });
    expect(handle?.body).toMatchObject({ linked_accounts: [{ type: 'twitter_oauth', username: 'ada_l' }] });
  });

  it("asks who holds a wallet first: a user's own embedded wallet names that user, and nothing is imported", async () => {
    const before = seen.length;
    expect(
      await directory.findOrCreate(parseIdentifier('sol:US517G5965aydkZ46HS38QLi7UQiSojurfbQfKCELFx')),
    ).toEqual({ subject: 'did:privy:holder', walletAddress: 'US517G5965aydkZ46HS38QLi7UQiSojurfbQfKCELFx' });
    expect(seen.slice(before)).toMatchObject([
      {
        method: 'POST',
        url: '/v1/users/wallet/address',
        auth: `Basic ${Buffer.from('app:shh').toString('base64')}`,
        body: { address: 'US517G5965aydkZ46HS38QLi7UQiSojurfbQfKCELFx' },
      },
    ]);
    // An email or a handle is no wallet: imported directly.
    await directory.findOrCreate(parseIdentifier('email:nobody@example.com'));
    expect(seen.at(-1)?.url).toBe('/v1/users/import');
  });

  it('keeps the embedded Solana wallet the import answer shows (mirrored at creation)', async () => {
    expect(await directory.findOrCreate(parseIdentifier('email:grace@example.com'))).toEqual({
      subject: 'did:privy:grace@example.com',
      walletAddress: 'GraceWallet11111',
    });
  });

  it('validates dids against the provider', async () => {
    expect(await directory.isKnownSubject('did:privy:known')).toBe(true);
    expect(await directory.isKnownSubject('did:privy:ghost')).toBe(false);
  });

  it('fails loudly when the provider fails', async () => {
    await expect(directory.findOrCreate(parseIdentifier('email:fail@example.com'))).rejects.toThrow('503');
  });
});
