// Every status the API answers is in the OpenAPI document: the statuses that no contract names itself (413 and
// 415 on every operation that takes a body, purchaseMultiplier's 202) are sent here and looked up in the served
// document.
import { randomUUID } from 'node:crypto';
import { beforeAll, describe, expect, it } from 'vitest';
import {
  handler as purchaseHandler,
  sideEffects as rewardsDeps,
} from '../../functions/rewards/purchase-multiplier.js';
import { contracts } from '../../lib/api/catalogue.js';
import { ChainError, makeChain } from '../../lib/chain/index.js';
import { MAX_TEXT_BODY_BYTES } from '../../lib/core/payload.js';
import { ensureUserForSubject, loadWallet } from '../../lib/user/index.js';
import { registerGame } from '../helpers/games.js';
import { apiBaseUrl, invoke } from '../helpers/http.js';
import { idpToken } from '../helpers/idp.js';
import { createDeveloper } from '../helpers/users.js';

const base = apiBaseUrl;

type Responses = Record<string, { content?: Record<string, unknown> }>;
let documented: Record<string, Responses>;

beforeAll(async () => {
  const doc = (await (await fetch(`${base()}/api-reference-json`)).json()) as {
    paths: Record<string, Record<string, { operationId: string; responses: Responses }>>;
  };
  documented = Object.fromEntries(
    Object.values(doc.paths).flatMap((item) =>
      Object.values(item).map((op) => [op.operationId, op.responses]),
    ),
  );
});

const withBody = contracts.filter((c) => c.body);

/** The contract's path with its example's parameters (or fresh UUIDs) filled in. */
const pathOf = (contract: (typeof contracts)[number]) =>
  contract.path.replace(/\{(\w+)\}/g, (_, name: string) => contract.example?.params?.[name] ?? randomUUID());

const send = (contract: (typeof contracts)[number], contentType: string, body: string | Buffer) =>
  fetch(`${base()}${pathOf(contract)}`, {
    method: contract.method,
    headers: { 'content-type': contentType },
    body,
  });

describe('statuses every body-taking operation answers', () => {
  it('covers the operations that take a body', () => {
    expect(withBody.map((c) => c.operationId)).toContain('purchaseMultiplier');
    expect(withBody.length).toBeGreaterThanOrEqual(13);
  });

  it.each(withBody.map((c) => [c.operationId, c] as const))(
    '%s: 413 for a body over its limit and 415 for another media type, both documented',
    async (_, contract) => {
      // A JSON body; the routes that take images cap it at what fits a Lambda invocation (lib/core/payload.ts).
      const limit = Math.min(contract.maxBodyBytes ?? 1024 * 1024, MAX_TEXT_BODY_BYTES);
      // Valid JSON, one byte over: the size is what is refused.
      const tooLarge = await send(contract, 'application/json', `{"pad":"${'x'.repeat(limit - 9)}"}`);
      expect(tooLarge.status).toBe(413);
      expect(await tooLarge.json()).toMatchObject({ error: { code: 'PAYLOAD_TOO_LARGE' } });

      const wrongType = await send(contract, 'text/plain', 'hello');
      expect(wrongType.status).toBe(415);
      expect(await wrongType.json()).toMatchObject({ error: { code: 'UNSUPPORTED_MEDIA_TYPE' } });

      const responses = documented[contract.operationId] ?? {};
      expect(Object.keys(responses)).toEqual(expect.arrayContaining(['413', '415']));
    },
    60_000,
  );
});

describe('purchaseMultiplier', () => {
  it('answers 202 while the transfer is not confirmed, a status the document lists', async () => {
    const chain = makeChain({ rpcUrl: process.env.SOLANA_RPC_URL ?? '', pollMs: 50 });
    const game = await registerGame(await createDeveloper());
    const name = `pending-${randomUUID().slice(0, 8)}`;
    const arcId = await ensureUserForSubject(`did:local:${name}`);
    const [token, wallet] = await Promise.all([idpToken(name), loadWallet(arcId)]);
    if (!wallet) throw new Error('expected an embedded wallet');
    await chain.airdrop(wallet.address, 1_000_000_000n);

    // The transfer is sent, but its confirmation is not seen within the request (a fault of the chain).
    const real = rewardsDeps.chain;
    rewardsDeps.chain = {
      ...real,
      sendAndConfirm: async (plan, options) => {
        await real.sendAndConfirm(plan, options);
        throw new ChainError('CONFIRM_TIMEOUT', 'simulated: confirmation not seen in time');
      },
    };
    try {
      const res = await invoke<{ data: { status: string } }>(purchaseHandler, {
        method: 'POST',
        path: '/multiplier/purchase',
        headers: { authorization: `Bearer ${token}` },
        body: { gameId: game.id, tier: '2x', durationSeconds: 3_600, idempotencyKey: randomUUID() },
      });
      expect(res.status).toBe(202);
      expect(res.body.data.status).toBe('pending');
    } finally {
      rewardsDeps.chain = real;
    }
    expect(Object.keys(documented.purchaseMultiplier ?? {})).toContain('202');
  }, 60_000);
});
