// One identity per person, against the local stack (its identity provider, tables and handlers): an identifier
// naming a wallet resolves to the user who holds it, embedded wallets included, whether or not the API has seen
// that user's wallet yet; identities split before that are merged by scripts/merge-identities.ts, which moves
// the ghost's identifiers, points (day and all-time totals, boards), sessions, payouts, carries and split shares
// to the person, and moves nothing the second time.
import { randomBytes, randomUUID } from 'node:crypto';
import { GetCommand, PutCommand } from '@aws-sdk/lib-dynamodb';
import bs58 from 'bs58';
import { describe, expect, it } from 'vitest';
import { handler as batchSave } from '../../functions/play-developer/batch-save-points.js';
import { handler as getLeaderboard } from '../../functions/play-developer/get-dev-leaderboard.js';
import { handler as getPoints } from '../../functions/play-developer/get-dev-points.js';
import { handler as getMeHandler } from '../../functions/user/get-me.js';
import { dynamo } from '../../lib/adapters/dynamodb.js';
import { getGame, saveGame } from '../../lib/games/repository.js';
import { dayBoard, playerFootprint, playKeys } from '../../lib/play/index.js';
import { utcDay } from '../../lib/play/keys.js';
import { getItem } from '../../lib/play/repository.js';
import { settlementKeys, settlementTable } from '../../lib/rewards/settlement/keys.js';
import { payoutsOf } from '../../lib/rewards/settlement/queries.js';
import { configuredDirectory, resolveIdentifiers, resolveKnownIdentifiers } from '../../lib/user/index.js';
import { createUser, getIdentifierOwners, getUser } from '../../lib/user/repository.js';
import { mergeIdentities } from '../../scripts/merge-identities.js';
import { fetchLocalToken } from '../../scripts/token.js';
import { registerGame } from '../helpers/games.js';
import { invoke } from '../helpers/http.js';
import { providerUser, providerUserByEmail, setUserCreationLimit } from '../helpers/idp.js';
import { importNow, pollImportsUntilReceived } from '../helpers/imports.js';
import { createDeveloper, type Developer, hmacHeaders } from '../helpers/users.js';

type Me = { data: { arcId: string; walletAddress: string | null; identifiers: string[] } };

const signIn = async (name: string) => {
  const signed = await fetchLocalToken(name, process.env.IDP_URL ?? '');
  if (!signed.walletAddress) throw new Error('expected an embedded wallet');
  return { token: signed.token, wallet: signed.walletAddress, subject: signed.subject };
};

const getMe = async (token: string) => {
  const res = await invoke<Me>(getMeHandler, {
    method: 'GET',
    path: '/user/me',
    headers: { authorization: `Bearer ${token}` },
  });
  expect(res.status).toBe(200);
  return res.body.data;
};

// A signature is single-use and saves are 3 per second per API key: each save signs its own timestamp.
let skew = 0;
const save = async (
  dev: Developer,
  gameId: string,
  entries: Array<{ playerId: string; points: number; sessionId?: string }>,
) => {
  skew += 1;
  await new Promise((r) => setTimeout(r, 350));
  const res = await invoke<{ data: { playerIdToArcId: Record<string, string> } }>(batchSave, {
    method: 'POST',
    path: '/play/dev/batch-save-points',
    headers: hmacHeaders(dev, 'POST', '/play/dev/batch-save-points', { timestamp: Date.now() - skew }),
    body: { gameId, entries },
  });
  expect(res.status, JSON.stringify(res.body)).toBe(200);
  return res.body.data.playerIdToArcId;
};

const points = async (dev: Developer, gameId: string, playerIds: string[]) => {
  const res = await invoke<{
    data: { points: Array<{ playerId: string; arcId: string | null; today: number; allTime: number }> };
  }>(getPoints, {
    method: 'GET',
    path: '/play/dev/points',
    headers: hmacHeaders(dev, 'GET', '/play/dev/points'),
    query: { gameId, playerIds: playerIds.join(',') },
  });
  expect(res.status).toBe(200);
  return res.body.data.points;
};

const board = async (dev: Developer, gameId: string, period: 'daily' | 'alltime') => {
  const res = await invoke<{ data: { entries: Array<{ rank: number; arcId: string; points: number }> } }>(
    getLeaderboard,
    {
      method: 'GET',
      path: `/play/dev/leaderboard/${gameId}`,
      pathParameters: { gameId },
      headers: hmacHeaders(dev, 'GET', `/play/dev/leaderboard/${gameId}`),
      query: { period },
    },
  );
  expect(res.status).toBe(200);
  // Rank, player and points (the entries' labels are checked in player-boards.test.ts).
  return res.body.data.entries.map(({ rank, arcId, points }) => ({ rank, arcId, points }));
};

describe("an identifier naming a user's embedded wallet resolves to that user", () => {
  it('points saved for sol:<the wallet GET /user/me shows> reach that user: same Arc ID, same board entry', async () => {
    const dev = await createDeveloper();
    const game = await registerGame(dev);
    const player = await signIn(`player-${randomUUID().slice(0, 8)}`);
    const me = await getMe(player.token);
    expect(me.walletAddress).toBe(player.wallet);
    const wallet = `sol:${player.wallet}`;
    const mapping = await save(dev, game.id, [{ playerId: wallet, points: 40 }]);
    expect(mapping[wallet]).toBe(me.arcId);
    expect(await points(dev, game.id, [wallet, me.arcId])).toEqual([
      { playerId: wallet, arcId: me.arcId, today: 40, allTime: 40 },
      { playerId: me.arcId, arcId: me.arcId, today: 40, allTime: 40 },
    ]);
    expect(await board(dev, game.id, 'daily')).toEqual([{ rank: 1, arcId: me.arcId, points: 40 }]);
    // The wallet is one of the user's identifiers from the first GET /user/me on.
    expect((await getMe(player.token)).identifiers).toContain(wallet);
  });

  it('also when the API never read that wallet: the import finds its holder and merges the save into them', async () => {
    const name = `quiet-${randomUUID().slice(0, 8)}`;
    const player = await createDeveloper(name);
    const { wallet: address, token } = await signIn(name);
    const dev = await createDeveloper();
    const game = await registerGame(dev);
    const wallet = `sol:${address}`;
    // The save does not wait for the provider: a user of its own for now, imported (here: merged) afterwards.
    const mapping = await save(dev, game.id, [{ playerId: wallet, points: 7 }]);
    await importNow([mapping[wallet] ?? '']);
    expect(await resolveKnownIdentifiers([wallet, mapping[wallet] ?? ''])).toEqual({
      [wallet]: player.arcId,
      [mapping[wallet] ?? '']: player.arcId,
    });
    expect((await points(dev, game.id, [player.arcId]))[0]).toMatchObject({ today: 7, allTime: 7 });
    expect(await getMe(token)).toMatchObject({ arcId: player.arcId, walletAddress: address });
  });

  it('and a wallet saved before its holder ever used the API is their account when they arrive', async () => {
    const { wallet: address, token } = await signIn(`early-${randomUUID().slice(0, 8)}`);
    const dev = await createDeveloper();
    const game = await registerGame(dev);
    const wallet = `sol:${address}`;
    const mapping = await save(dev, game.id, [{ playerId: wallet, points: 11 }]);
    await importNow([mapping[wallet] ?? '']);
    const me = await getMe(token);
    expect(me).toMatchObject({ arcId: mapping[wallet], walletAddress: address });
  });

  it('a wallet nobody holds still gets a new user of its own, whose embedded wallet is an identifier too', async () => {
    const wallet = `sol:${bs58.encode(randomBytes(32))}`;
    const mapping = await resolveIdentifiers([wallet], { directory: configuredDirectory() });
    const user = await getUser(mapping[wallet] ?? '');
    expect(user?.subject).toMatch(/^did:local:u-/);
    const embedded = (await providerUser(user?.subject ?? '')).walletAddress;
    expect(user?.identifiers.sort()).toEqual([wallet, user?.subject, `sol:${embedded}`].sort());
    expect(await resolveIdentifiers([`sol:${embedded}`], { directory: configuredDirectory() })).toEqual({
      [`sol:${embedded}`]: mapping[wallet],
    });
  });
});

describe('scripts/merge-identities.ts', () => {
  it('merges an identity split the old way, and a second run moves nothing', async () => {
    const dev = await createDeveloper();
    const [game, other] = [await registerGame(dev), await registerGame(dev)];
    // The person signs in at the provider; a ghost is written the way batch saves used to make one: a second user
    // holding the person's embedded wallet, under a provider user of its own.
    const name = `split-${randomUUID().slice(0, 8)}`;
    const person = await signIn(name);
    const ghost = randomUUID();
    const ghostSubject = `did:local:ghost-${randomUUID().slice(0, 8)}`;
    const wallet = `sol:${person.wallet}`;
    await createUser({
      arcId: ghost,
      subject: ghostSubject,
      identifiers: [wallet, ghostSubject],
      now: new Date().toISOString(),
    });
    const me = await getMe(person.token);
    expect(me.arcId).not.toBe(ghost);
    // Points on both identities, on the same day board of `game`; only the ghost plays `other`.
    const [s1, s2, s3, s4] = [randomUUID(), randomUUID(), randomUUID(), randomUUID()];
    expect(
      await save(dev, game.id, [
        { playerId: wallet, points: 30, sessionId: s1 },
        { playerId: wallet, points: 12, sessionId: s2 },
        { playerId: me.arcId, points: 25, sessionId: s3 },
      ]),
    ).toMatchObject({ [wallet]: ghost, [me.arcId]: me.arcId });
    await save(dev, other.id, [{ playerId: wallet, points: 9, sessionId: s4 }]);
    const day = utcDay(new Date());
    expect(await dayBoard.count(game.id, day)).toBe(2);
    // A payout and a carry of an earlier settlement, and a split share, on the ghost.
    const payDay = '2026-01-02';
    await dynamo().send(
      new PutCommand({
        TableName: settlementTable(),
        Item: {
          ...settlementKeys.payout(game.id, payDay, ghost),
          gameId: game.id,
          day: payDay,
          arcId: ghost,
          wallet: 'GhostWallet1111111111111111111111111111111',
          roles: ['player'],
          rank: 1,
          share: '1000000',
          carriedIn: '0',
          due: '1000000',
          send: '995000',
          fee: '5000',
          carryOut: '0',
          status: 'confirmed',
          signature: 'sig',
          createdAt: new Date().toISOString(),
          recipient: ghost,
          recipientSort: settlementKeys.recipientSort(payDay, game.id),
        },
      }),
    );
    const carry = (arcId: string) =>
      dynamo()
        .send(new GetCommand({ TableName: settlementTable(), Key: settlementKeys.carry(game.id, arcId) }))
        .then((r) => r.Item?.lamports);
    await dynamo().send(
      new PutCommand({
        TableName: settlementTable(),
        Item: { ...settlementKeys.carry(game.id, ghost), lamports: 4_000, gameId: game.id, arcId: ghost },
      }),
    );
    const stored = await getGame(game.id);
    if (!stored) throw new Error('game vanished');
    await saveGame(
      {
        ...stored,
        version: stored.version + 1,
        requestedOrgRewardsSplit: { [dev.arcId]: 6_000, [ghost]: 4_000 },
      },
      stored,
    );

    const first = await mergeIdentities({ execute: true });
    const merged = first.outcomes.find((o) => o.ghost === ghost);
    expect(merged).toMatchObject({
      person: me.arcId,
      wallet: person.wallet,
      status: 'merged',
      payoutsListed: 1,
      carries: [{ gameId: game.id, lamports: 4_000 }],
      splits: [game.id],
      leftInGhostWallet: { payoutLamports: '995000' },
    });
    // Every identifier of the ghost (the person's wallet, its provider subject, its own embedded wallet) moved.
    expect(merged?.identifiers).toEqual(expect.arrayContaining([ghostSubject, wallet]));
    expect(merged?.days).toEqual(
      expect.arrayContaining([
        { gameId: game.id, day, points: 42, sessions: 2, status: 'moved' },
        { gameId: other.id, day, points: 9, sessions: 1, status: 'moved' },
      ]),
    );

    const check = async () => {
      // Points: the person's totals hold both identities', the boards show one player.
      expect(await points(dev, game.id, [wallet, me.arcId, ghost])).toEqual([
        { playerId: wallet, arcId: me.arcId, today: 67, allTime: 67 },
        { playerId: me.arcId, arcId: me.arcId, today: 67, allTime: 67 },
        { playerId: ghost, arcId: me.arcId, today: 67, allTime: 67 },
      ]);
      expect(await board(dev, game.id, 'daily')).toEqual([{ rank: 1, arcId: me.arcId, points: 67 }]);
      expect(await board(dev, game.id, 'alltime')).toEqual([{ rank: 1, arcId: me.arcId, points: 67 }]);
      expect(await board(dev, other.id, 'daily')).toEqual([{ rank: 1, arcId: me.arcId, points: 9 }]);
      expect(await dayBoard.count(game.id, day)).toBe(1);
      // Sessions: the person's, with their points; the day total counts all three.
      for (const sessionId of [s1, s2, s3])
        expect((await getItem(playKeys.session(game.id, sessionId)))?.arcId).toBe(me.arcId);
      expect((await getItem(playKeys.day(game.id, me.arcId, day)))?.sessions).toBe(3);
      // Nothing left on the ghost: no totals, no sessions, no payouts, no carry, no identifier.
      expect(await playerFootprint(ghost)).toEqual([]);
      expect((await payoutsOf(ghost, { limit: 10, offset: 0 })).total).toBe(0);
      expect(await carry(ghost)).toBeUndefined();
      const owners = await getIdentifierOwners([wallet, ghostSubject]);
      expect([owners.get(wallet), owners.get(ghostSubject)]).toEqual([me.arcId, me.arcId]);
      // Payouts, carry and split share are the person's.
      const payouts = await payoutsOf(me.arcId, { limit: 10, offset: 0 });
      expect(payouts.payouts).toMatchObject([{ gameId: game.id, day: payDay, sentLamports: '995000' }]);
      expect(await carry(me.arcId)).toBe(4_000);
      expect((await getGame(game.id))?.requestedOrgRewardsSplit).toEqual({
        [dev.arcId]: 6_000,
        [me.arcId]: 4_000,
      });
    };
    await check();

    const second = await mergeIdentities({ execute: true });
    expect(second.outcomes.find((o) => o.ghost === ghost)).toMatchObject({
      status: 'merged',
      identifiers: [],
      days: [],
      allTime: [],
      payoutsListed: 0,
      carries: [],
      splits: [],
    });
    await check();

    // A developer that kept the ghost's Arc ID from an earlier answer now saves for the person.
    expect(await save(dev, game.id, [{ playerId: ghost, points: 3 }])).toEqual({ [ghost]: me.arcId });
    expect((await points(dev, game.id, [me.arcId]))[0]).toMatchObject({ today: 70, allTime: 70 });
    // The script scans the play and user tables (an operator's one-off): its time grows with what the suite wrote.
  }, 120_000);
});

describe("saves through the identity provider's contract (the local provider enforces it)", () => {
  it('two saves of the same new email at once yield one provider user and one Arc user', async () => {
    const dev = await createDeveloper();
    const game = await registerGame(dev);
    const email = `email:twice-${randomUUID().slice(0, 8)}@example.com`;
    const [a, b] = await Promise.all([
      save(dev, game.id, [{ playerId: email, points: 3 }]),
      save(dev, game.id, [{ playerId: email, points: 4 }]),
    ]);
    expect(a[email]).toBe(b[email]);
    await importNow([a[email] ?? '']);
    const subject = await providerUserByEmail(email.slice('email:'.length));
    expect(subject).toMatch(/^did:local:u-/);
    expect((await getUser(a[email] ?? ''))?.subject).toBe(subject);
  });

  it('a provider rate-limiting user creation never fails the save: the import is retried until it passes', async () => {
    const dev = await createDeveloper();
    const game = await registerGame(dev);
    const tag = randomUUID().slice(0, 8);
    const players = [1, 2, 3].map((n) => `email:limited-${n}-${tag}@example.com`);
    // One creation a second: the import's batch of three is refused (429) however long it backs off.
    await setUserCreationLimit({ count: 1, windowMs: 1000 });
    let mapping: Record<string, string>;
    try {
      mapping = await save(
        dev,
        game.id,
        players.map((playerId) => ({ playerId, points: 5 })),
      );
      await pollImportsUntilReceived();
      for (const player of players) expect((await getUser(mapping[player] ?? ''))?.subject).toBeUndefined();
    } finally {
      await setUserCreationLimit({ count: 240, windowMs: 60_000 });
    }
    await importNow(players.map((player) => mapping[player] ?? ''));
    for (const player of players) {
      const subject = await providerUserByEmail(player.slice('email:'.length));
      expect(subject, player).toMatch(/^did:local:u-/);
      expect((await getUser(mapping[player] ?? ''))?.subject, player).toBe(subject);
    }
  }, 60_000);
});
