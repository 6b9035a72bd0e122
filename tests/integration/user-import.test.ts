// New players at launch-day scale, against the local stack: a save never waits for the identity provider. Its
// new players are Arc users at once and are imported into the provider afterwards, through the import queue and
// its worker; a provider that is stopped fails nothing, the import happens when it is back, and a payout owed
// meanwhile carries and then reaches the embedded wallet the import gave. A person who already has an Arc user
// keeps one: the new one is merged into it. An upstream that times out is a 503 with Retry-After.
// First: this file's own identity provider, which it stops and starts (see the helper).
import '../helpers/private-idp.js';
import { randomBytes, randomUUID } from 'node:crypto';
import { GetCommand } from '@aws-sdk/lib-dynamodb';
import bs58 from 'bs58';
import { afterEach, describe, expect, it } from 'vitest';
import { handler as batchSave } from '../../functions/play-developer/batch-save-points.js';
import { handler as getPoints } from '../../functions/play-developer/get-dev-points.js';
import { sideEffects as settleDeps } from '../../functions/settlement/settle-game-days.js';
import { dynamo } from '../../lib/adapters/dynamodb.js';
import { batchSavePoints } from '../../lib/play/saves/save.js';
import { settleGameDay } from '../../lib/rewards/settlement/settle.js';
import { addDays } from '../../lib/snapshots/emission-math.js';
import {
  configuredDirectory,
  ensureUserForSubject,
  queueImports,
  resolveKnownIdentifiers,
  userKeys,
} from '../../lib/user/index.js';
import { getUser } from '../../lib/user/repository.js';
import { fetchLocalToken } from '../../scripts/token.js';
import { registerGame } from '../helpers/games.js';
import { invoke } from '../helpers/http.js';
import { providerUser, setProviderFault } from '../helpers/idp.js';
import { importNow, pollImportsUntilReceived } from '../helpers/imports.js';
import { startProvider, stopProvider } from '../helpers/private-idp.js';
import { carryOf, chain, payoutOf, randomDay, SOL, seedDay } from '../helpers/settlement.js';
import { createDeveloper, type Developer, hmacHeaders } from '../helpers/users.js';

const path = '/play/dev/batch-save-points';
let skew = 0;
/** POST /play/dev/batch-save-points through the handler's whole stack (its deps queue the imports). */
const save = async (dev: Developer, gameId: string, entries: Array<{ playerId: string; points: number }>) => {
  skew += 1;
  await new Promise((r) => setTimeout(r, 350));
  return invoke<{
    data: { playerIdToArcId: Record<string, string>; results: Array<{ status: string }> };
    error: { code: string; message: string };
  }>(batchSave, {
    method: 'POST',
    path,
    headers: hmacHeaders(dev, 'POST', path, { timestamp: Date.now() - skew }),
    body: { gameId, entries },
  });
};

const tag = () => randomUUID().slice(0, 8);
/** A profile as stored (the domain's User leaves out the mirror and the merge marks). */
const profile = async (arcId: string) =>
  (
    await dynamo().send(
      new GetCommand({
        TableName: process.env.USERS_TABLE,
        Key: userKeys.profile(arcId),
        ConsistentRead: true,
      }),
    )
  ).Item as { subject?: string; providerWalletAddress?: string; mergedInto?: string } | undefined;
const mirroredWallet = async (arcId: string) => (await profile(arcId))?.providerWalletAddress;

afterEach(async () => {
  await startProvider();
  await setProviderFault(null);
});

describe('a save while the identity provider is stopped', () => {
  it('succeeds at once; the import happens when the provider is back and gives each user its embedded wallet', async () => {
    const dev = await createDeveloper();
    const game = await registerGame(dev);
    const t = tag();
    const email = `email:down-${t}@example.com`;
    const wallet = `sol:${bs58.encode(randomBytes(32))}`;
    const handle = `x:down_${t}`;
    await stopProvider();
    const res = await save(dev, game.id, [
      { playerId: email, points: 10 },
      { playerId: wallet, points: 20 },
      { playerId: handle, points: 30 },
    ]);
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    expect(res.body.data.results.map((r) => r.status)).toEqual(['accepted', 'accepted', 'accepted']);
    const { playerIdToArcId: ids } = res.body.data;
    for (const raw of [email, wallet, handle])
      expect((await getUser(ids[raw] ?? ''))?.subject).toBeUndefined();

    // The worker runs while the provider is still stopped: it fails, and the users stay as they were.
    expect((await pollImportsUntilReceived()).failed).toBeGreaterThan(0);
    expect((await getUser(ids[email] ?? ''))?.subject).toBeUndefined();

    await startProvider();
    await importNow([ids[email] ?? '', ids[wallet] ?? '']);
    for (const raw of [email, wallet]) {
      const user = await getUser(ids[raw] ?? '');
      expect(user?.subject, raw).toMatch(/^did:local:u-/);
      const atProvider = await providerUser(user?.subject ?? '');
      expect(atProvider.walletAddress, raw).toMatch(/^[1-9A-HJ-NP-Za-km-z]{32,44}$/);
      expect(await mirroredWallet(ids[raw] ?? ''), raw).toBe(atProvider.walletAddress);
      // Its embedded wallet resolves to it from the table alone.
      expect(await resolveKnownIdentifiers([`sol:${atProvider.walletAddress}`])).toEqual({
        [`sol:${atProvider.walletAddress}`]: ids[raw],
      });
    }
    // An X handle nobody signed in with has no provider user: it stays unimported (docs/wallets.md).
    expect((await getUser(ids[handle] ?? ''))?.subject).toBeUndefined();
  }, 120_000);

  it('a did the API has never seen needs the provider: a provider that times out is a 503 with Retry-After', async () => {
    const dev = await createDeveloper();
    const game = await registerGame(dev);
    await setProviderFault('hang');
    const res = await save(dev, game.id, [{ playerId: `did:local:hang-${tag()}`, points: 1 }]);
    expect(res.status, JSON.stringify(res.body)).toBe(503);
    expect(res.headers['retry-after']).toBe('5');
    expect(res.body.error.code).toBe('UPSTREAM_UNAVAILABLE');
  }, 60_000);
});

describe('a payout to a player the provider has not imported yet', () => {
  it('carries like any other, and is paid to the embedded wallet the import gives', async () => {
    const seeded = await seedDay({ day: randomDay(), playerCount: 1 });
    const next = addDays(seeded.day, 1);
    const player = `email:late-${tag()}@example.com`;
    const saveOn = (day: string, playerId: string) =>
      batchSavePoints(
        seeded.creators[0]?.auth ?? { scheme: 'hmac', userId: '', apiKey: '' },
        { gameId: seeded.gameId, entries: [{ playerId, points: 5_000 }] },
        {
          directory: configuredDirectory(),
          imports: queueImports,
          now: () => new Date(`${day}T12:00:00.000Z`),
        },
      );
    await stopProvider();
    const arcId = (await saveOn(seeded.day, player)).playerIdToArcId[player] ?? '';
    const first = await settleGameDay(seeded.gameId, seeded.day, { ...settleDeps, now: () => seeded.after });
    expect(first.status).toBe('settled');
    const carried = await payoutOf(seeded.gameId, seeded.day, arcId);
    expect(carried).toMatchObject({ status: 'carried', wallet: null });
    const owed = await carryOf(seeded.gameId, arcId);
    expect(owed).toBeGreaterThan(0n);
    expect(owed).toBe(BigInt(carried?.due ?? -1));

    await startProvider();
    await importNow([arcId]);
    const wallet = (await mirroredWallet(arcId)) ?? '';
    expect(wallet).not.toBe('');
    // The account exists, so any due above the fee lands (an empty account needs its rent-exempt minimum).
    await chain.airdrop(wallet, SOL / 100n);
    const before = await chain.getBalance(wallet);
    await saveOn(next, arcId);
    const second = await settleGameDay(seeded.gameId, next, {
      ...settleDeps,
      now: () => new Date(seeded.after.getTime() + 86_400_000),
    });
    expect(second.status).toBe('settled');
    const paid = await payoutOf(seeded.gameId, next, arcId);
    expect(paid).toMatchObject({ status: 'confirmed', wallet, carriedIn: owed.toString() });
    expect(await chain.getBalance(wallet)).toBe(before + BigInt(paid?.send ?? 0));
    expect(await carryOf(seeded.gameId, arcId)).toBe(0n);
  }, 180_000);
});

describe('a person who already has an Arc user', () => {
  it('keeps one identity: the user a save created for their wallet is merged into theirs, with its points', async () => {
    const name = `owner-${tag()}`;
    const signed = await fetchLocalToken(name, process.env.IDP_URL ?? '');
    if (!signed.walletAddress) throw new Error('expected an embedded wallet');
    // Their Arc user exists (they signed in) but its wallet was never read, so the table does not know it.
    const person = await ensureUserForSubject(signed.subject);
    const dev = await createDeveloper();
    const game = await registerGame(dev);
    const wallet = `sol:${signed.walletAddress}`;
    const res = await save(dev, game.id, [{ playerId: wallet, points: 40 }]);
    expect(res.status).toBe(200);
    const ghost = res.body.data.playerIdToArcId[wallet] ?? '';
    expect(ghost).not.toBe(person);

    await importNow([ghost]);
    expect((await profile(ghost))?.mergedInto).toBe(person);
    expect(await resolveKnownIdentifiers([wallet, ghost])).toEqual({ [wallet]: person, [ghost]: person });
    const read = await invoke<{ data: { points: Array<{ arcId: string; today: number }> } }>(getPoints, {
      method: 'GET',
      path: '/play/dev/points',
      headers: hmacHeaders(dev, 'GET', '/play/dev/points'),
      query: { gameId: game.id, playerIds: person },
    });
    expect(read.body.data.points).toEqual([expect.objectContaining({ arcId: person, today: 40 })]);
  }, 120_000);
});
