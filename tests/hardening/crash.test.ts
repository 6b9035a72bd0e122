// A crash between two writes of a multi-write operation leaves no partial state, and a retry completes it
// exactly once. For every operation that writes more than one item (a TransactWriteItems, or a sequence of
// DynamoDB / S3 / Step Functions writes in one request or one task), each crash point k = 0 … n is tried on fresh
// state: the process dies right before write k+1 (k = n: every write made, the response lost), the stored state is
// checked, the request is retried as its caller would (a client re-signs and resends the same body and
// idempotency keys; Step Functions and SQS re-deliver the same input), and the state is checked again.
// Crash injection: tests/helpers/crash.ts. Report: docs/hardening.md.
//
// Per operation: inputs tried (crash points), 5xx answers to the retries, invariant violations (partial or
// inconsistent state after the crash or after the retry, anything applied twice), lost writes (something the
// request must have done, missing after the retry). Violations and lost writes must be 0.
import { randomBytes, randomUUID } from 'node:crypto';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { DescribeExecutionCommand, SFNClient } from '@aws-sdk/client-sfn';
import { GetCommand, PutCommand, QueryCommand } from '@aws-sdk/lib-dynamodb';
import bs58 from 'bs58';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { handler as claimOwnershipHandler } from '../../functions/games/claim-game-ownership.js';
import { handler as updateGameHandler } from '../../functions/games/update-game.js';
import { handler as launchHandler } from '../../functions/launcher/launch-game-coin.js';
import { handler as completeTask } from '../../functions/launcher/task-complete.js';
import { sideEffects as stageDeps } from '../../functions/launcher/task-mint.js';
import { handler as reserveTask } from '../../functions/launcher/task-reserve.js';
import { handler as commitHandler } from '../../functions/play/commit-session.js';
import { handler as sessionTokenHandler } from '../../functions/play/get-session-token.js';
import { handler as batchSaveHandler } from '../../functions/play-developer/batch-save-points.js';
import { handler as invalidateHandler } from '../../functions/play-developer/invalidate-sessions.js';
import { handler as purchaseHandler } from '../../functions/rewards/purchase-multiplier.js';
import { sideEffects as readDeps } from '../../functions/snapshots/get-snapshot-proof.js';
import { handler as getMeHandler } from '../../functions/user/get-me.js';
import { dynamo } from '../../lib/adapters/dynamodb.js';
import { s3 } from '../../lib/adapters/s3.js';
import { openSecret } from '../../lib/adapters/secrets.js';
import { holdersFromEntries, isOnCurve, makeChain } from '../../lib/chain/index.js';
import type { GameView } from '../../lib/games/contracts.js';
import { listByMember } from '../../lib/games/listings.js';
import { getGame, getTokenGameIds } from '../../lib/games/repository.js';
import { openLaunchKeys } from '../../lib/launcher/coin.js';
import { getCoin } from '../../lib/launcher/coin-repository.js';
import { launcherKeys } from '../../lib/launcher/keys.js';
import { createJob } from '../../lib/launcher/lock-repository.js';
import type { JobRecord } from '../../lib/launcher/model.js';
import { getJob, getMintJobId } from '../../lib/launcher/repository.js';
import { newJob } from '../../lib/launcher/service.js';
import { mintStage, reserveStage } from '../../lib/launcher/stages.js';
import { defaultSessionId, playKeys, utcDay } from '../../lib/play/keys.js';
import { flushHash } from '../../lib/play/protocol/chain.js';
import { flush, openSession } from '../../lib/play/protocol/state.js';
import { getItem } from '../../lib/play/repository.js';
import { batchSavePoints } from '../../lib/play/saves/save.js';
import { putAllowance, spentIn } from '../../lib/rewards/allowances/repository.js';
import { rewardsKeys } from '../../lib/rewards/keys.js';
import { priceLamports, usdOf } from '../../lib/rewards/pricing.js';
import { type BuilderDeps, buildSnapshot, processSnapshotBatch } from '../../lib/snapshots/builder.js';
import { leafHash, verifyProof } from '../../lib/snapshots/merkle.js';
import { getSummary, putSummaryIfNewer } from '../../lib/snapshots/repository.js';
import { getSnapshotProof } from '../../lib/snapshots/service.js';
import { getSnapshotObject, putSnapshotObjects } from '../../lib/snapshots/storage.js';
import { localDirectory } from '../../lib/user/directory.js';
import { userKeys } from '../../lib/user/keys.js';
import { getUser } from '../../lib/user/repository.js';
import { ensureUserForSubject } from '../../lib/user/service.js';
import { loadWallet } from '../../lib/user/wallet.js';
import { dataUri, png } from '../fixtures/images/build.js';
import {
  type CrashOperation,
  type CrashReport,
  type Findings,
  renderCrashTable,
  runCrashOperation,
} from '../helpers/crash.js';
import { gameBody, postGame, registerGame } from '../helpers/games.js';
import { invoke, type TestResponse } from '../helpers/http.js';
import { idpToken } from '../helpers/idp.js';
import { createDeveloper, type Developer, hmacHeaders } from '../helpers/users.js';

// The launch function's own settings (serverless.yml gives them to that function only), as in launch.test.ts.
const STATE_MACHINE = 'arcadia-dev-launch';
process.env.LAUNCH_STATE_MACHINE_ARN = `arn:aws:states:us-east-1:000000000000:stateMachine:${STATE_MACHINE}`;
process.env.PUBLIC_API_URL ??= process.env.API_BASE_URL;

const SOL = 1_000_000_000n;
const SIGNATURE_FEE = 5_000n;
const chain = makeChain({ rpcUrl: process.env.SOLANA_RPC_URL ?? '', pollMs: 50 });
const sfn = new SFNClient({});
const env = (name: string) => process.env[name] ?? '';

const reports: CrashReport[] = [];
afterAll(() => {
  sfn.destroy();
  if (reports.length === 0) return;
  const details = reports.flatMap((r) => [
    `${r.operation}: ${r.writes.join(' → ')}`,
    ...r.violations.map((v) => `  VIOLATION ${v}`),
    ...r.lost.map((l) => `  LOST ${l}`),
    ...r.notes.map((n) => `  note: ${n}`),
  ]);
  console.info(`crash after k writes, then retry\n\n${renderCrashTable(reports)}\n\n${details.join('\n')}\n`);
});

/** Run one operation's crash points and assert the report is clean. */
const crashTest = <F>(op: CrashOperation<F>, timeoutMs = 240_000) =>
  it(
    op.name,
    async () => {
      const report = await runCrashOperation(op);
      reports.push(report);
      expect(report.inputs).toBe(report.writes.length + 1);
      expect(report.violations).toEqual([]);
      expect(report.lost).toEqual([]);
    },
    timeoutMs,
  );

// --- shared helpers -------------------------------------------------------------------------------------

const item = async (table: string, key: { pk: string; sk: string }) =>
  (await dynamo().send(new GetCommand({ TableName: env(table), Key: key, ConsistentRead: true }))).Item;

/** The Arc ID owning an identifier key, if any. */
const ownerOf = async (key: string) =>
  (await item('USERS_TABLE', userKeys.identifier(key)))?.arcId as string | undefined;

const objectExists = async (bucket: string, key: string) =>
  (await s3().getObject({ Bucket: bucket, Key: key })) !== undefined;

/** A user found through an identifier must be whole: profile, and every identifier of it pointing back. */
const checkIdentity = async (key: string, out: Findings) => {
  const arcId = await ownerOf(key);
  if (!arcId) return undefined;
  const user = await getUser(arcId);
  if (!user) {
    out.violations.push(`identifier ${key} points to a user without profile`);
    return arcId;
  }
  if (!user.identifiers.includes(key)) out.violations.push(`user ${arcId} does not list ${key}`);
  for (const other of user.identifiers) {
    if ((await ownerOf(other)) !== arcId)
      out.violations.push(`identifier ${other} of ${arcId} is not its own`);
  }
  return arcId;
};

const signed = (dev: Developer, method: string, path: string) => hmacHeaders(dev, method, path);
const bearer = (token: string) => ({ authorization: `Bearer ${token}` });
const newWallet = () => `sol:${bs58.encode(randomBytes(32))}`;
const newEmail = () => `email:crash-${randomUUID().slice(0, 8)}@example.com`;
const numberOf = (value: unknown) => Number(value ?? 0);

// --- the harness itself ------------------------------------------------------------------------------------

describe('crash harness', () => {
  it('catches a partial write: two Puts that should have been one transaction', async () => {
    const TableName = env('EPHEMERAL_TABLE');
    const keys = (id: string) => ['A', 'B'].map((half) => ({ pk: `CRASH#${id}#${half}` }));
    const report = await runCrashOperation<{ id: string }>({
      name: 'control: two separate Puts',
      setup: async () => ({ id: randomUUID() }),
      async request(f) {
        const expiresAt = Math.floor(Date.now() / 1000) + 600;
        for (const key of keys(f.id))
          await dynamo().send(new PutCommand({ TableName, Item: { ...key, expiresAt } }));
        return { status: 200, headers: {}, body: {}, text: '' };
      },
      async consistent(f, _phase, out) {
        const found = await Promise.all(
          keys(f.id).map(async (Key) => (await dynamo().send(new GetCommand({ TableName, Key }))).Item),
        );
        if (found.filter(Boolean).length === 1) out.violations.push('one of two items written');
      },
      async complete() {},
    });
    expect(report.writes).toEqual(['Put ephemeral', 'Put ephemeral']);
    expect(report.violations).toEqual(['k=1: one of two items written']);
  });
});

// --- games ----------------------------------------------------------------------------------------------

describe('games', () => {
  interface CreateFixture {
    dev: Developer;
    body: ReturnType<typeof gameBody>;
    wallet: string;
    email: string;
  }
  crashTest<CreateFixture>({
    name: 'POST /games (new split identifiers, image, idempotency key)',
    async setup() {
      const dev = await createDeveloper();
      const wallet = newWallet();
      const email = newEmail();
      const split = { [wallet]: 5000, [email]: 3000, [dev.arcId]: 2000 };
      // With an idempotency key, as a client that retries should send one.
      const idempotencyKey = `crash-${wallet.slice(0, 12)}`;
      return { dev, wallet, email, body: gameBody({ orgRewardsSplit: split, idempotencyKey }) };
    },
    request: (f) => postGame(f.dev, f.body),
    async consistent(f, _phase, out) {
      const { games } = await listByMember(f.dev.arcId, { limit: 100, offset: 0, sort: 'asc' });
      const registered = numberOf((await getUser(f.dev.arcId))?.stats.gamesRegistered);
      if (registered !== games.length)
        out.violations.push(`stats.gamesRegistered ${registered} but ${games.length} game(s)`);
      for (const game of games) {
        if (game.imageKey && !(await objectExists(env('IMAGES_BUCKET'), game.imageKey)))
          out.violations.push(`game ${game.id} references a missing image ${game.imageKey}`);
        for (const arcId of Object.keys(game.requestedOrgRewardsSplit)) {
          if (!(await getUser(arcId)))
            out.violations.push(`game ${game.id} splits to a missing user ${arcId}`);
        }
      }
      await checkIdentity(f.wallet, out);
      await checkIdentity(f.email, out);
    },
    async complete(f, res, { lostResponse }, out) {
      const { games } = await listByMember(f.dev.arcId, { limit: 100, offset: 0, sort: 'asc' });
      if (res.status !== 201) out.lost.push(`retry answered ${res.status}`);
      if (games.length === 0) out.lost.push('no game after the retry');
      if (games.length > 1)
        out.violations.push(`${games.length} games after one request${lostResponse ? ' and its retry' : ''}`);
      const mapping = (res.body as { data?: { playerIdToArcId?: Record<string, string> } }).data
        ?.playerIdToArcId;
      for (const key of [f.wallet, f.email]) {
        const owner = await ownerOf(key);
        if (!owner) out.lost.push(`no user for ${key}`);
        else if (mapping && mapping[key] !== owner)
          out.violations.push(`${key} answered ${mapping[key]}, stored ${owner}`);
      }
    },
  });

  interface UpdateFixture {
    dev: Developer;
    game: GameView;
    airdrop: string;
    body: Record<string, unknown>;
  }
  let updater: Developer | undefined;
  crashTest<UpdateFixture>({
    name: 'POST /games/update/{id} (airdrop token link, image)',
    async setup() {
      updater ??= await createDeveloper();
      const dev = updater;
      const game = await registerGame(dev);
      const airdrop = bs58.encode(randomBytes(32));
      const body = {
        name: `Renamed ${randomUUID().slice(0, 8)}`,
        airdropTokenAddress: airdrop,
        base64Image: dataUri('png', png(2, 3)),
      };
      return { dev, game, airdrop, body };
    },
    request: (f) =>
      invoke(updateGameHandler, {
        method: 'POST',
        path: `/games/update/${f.game.id}`,
        pathParameters: { gameId: f.game.id },
        headers: signed(f.dev, 'POST', `/games/update/${f.game.id}`),
        body: f.body,
      }),
    async consistent(f, _phase, out) {
      const game = await getGame(f.game.id);
      if (!game) return void out.violations.push('game vanished');
      const linked = (await getTokenGameIds(f.airdrop)).includes(game.id);
      if (linked !== (game.airdropTokenAddress === f.airdrop))
        out.violations.push(
          `airdrop link ${linked ? 'present' : 'missing'}, game says ${game.airdropTokenAddress}`,
        );
      if (game.imageKey && !(await objectExists(env('IMAGES_BUCKET'), game.imageKey)))
        out.violations.push(`game references a missing image ${game.imageKey}`);
    },
    async complete(f, res, _context, out) {
      const game = await getGame(f.game.id);
      if (res.status !== 200) out.lost.push(`retry answered ${res.status}`);
      if (game?.name !== f.body.name || game?.airdropTokenAddress !== f.airdrop)
        out.lost.push('the update is not applied after the retry');
    },
  });

  let server: Server;
  let pageBase = '';
  beforeAll(async () => {
    // Serves the verification tag for the API key named in the path (SAFE_FETCH_ALLOW_LOOPBACK is on in tests).
    server = createServer((req, res) => {
      res.writeHead(200, { 'content-type': 'text/html' });
      res.end(
        `<html><head><meta name="arcadia-verification" content="${(req.url ?? '/').slice(1)}"></head></html>`,
      );
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    pageBase = `http://localhost:${(server.address() as AddressInfo).port}`;
  });
  afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));

  interface ClaimFixture {
    dev: Developer;
    game: GameView;
  }
  crashTest<ClaimFixture>({
    name: 'POST /games/claim-ownership/{id}',
    async setup() {
      const dev = await createDeveloper();
      return { dev, game: await registerGame(dev, { gameUrl: `${pageBase}/${dev.apiKey}` }) };
    },
    request: (f) =>
      invoke(claimOwnershipHandler, {
        method: 'POST',
        path: `/games/claim-ownership/${f.game.id}`,
        pathParameters: { gameId: f.game.id },
        headers: signed(f.dev, 'POST', `/games/claim-ownership/${f.game.id}`),
      }),
    async consistent(f, _phase, out) {
      const game = await getGame(f.game.id);
      if (!game) return void out.violations.push('game vanished');
      if ((game.ownerId !== null) !== game.ownershipVerified)
        out.violations.push(`ownerId ${game.ownerId} with ownershipVerified ${game.ownershipVerified}`);
    },
    async complete(f, res, _context, out) {
      const game = await getGame(f.game.id);
      if (res.status !== 200) out.lost.push(`retry answered ${res.status}`);
      if (game?.ownerId !== f.dev.arcId || !game.ownershipVerified) out.lost.push('ownership not recorded');
    },
  });
});

// --- users ----------------------------------------------------------------------------------------------

describe('users', () => {
  interface MeFixture {
    subject: string;
    token: string;
  }
  crashTest<MeFixture>({
    name: 'GET /user/me, first call (user, API key)',
    async setup() {
      const name = `crash-me-${randomUUID().slice(0, 8)}`;
      return { subject: `did:local:${name}`, token: await idpToken(name) };
    },
    request: (f) => invoke(getMeHandler, { method: 'GET', path: '/user/me', headers: bearer(f.token) }),
    async consistent(f, _phase, out) {
      const arcId = await checkIdentity(f.subject, out);
      const user = arcId ? await getUser(arcId) : undefined;
      if (!user?.apiKey) return;
      const key = await item('USERS_TABLE', userKeys.apiKey(user.apiKey));
      if (key?.arcId !== arcId)
        out.violations.push(`profile names API key ${user.apiKey}, which is not its own`);
    },
    async complete(f, res, { lostResponse }, out) {
      const arcId = await ownerOf(f.subject);
      const user = arcId ? await getUser(arcId) : undefined;
      const data = (res.body as { data?: { arcId: string; apiKey?: string; secretKey?: string } }).data;
      if (res.status !== 200 || !user?.apiKey)
        return void out.lost.push(`no user with an API key (${res.status})`);
      if (data?.arcId !== arcId || data?.apiKey !== user.apiKey)
        out.violations.push('answer and storage differ');
      const cipher = String((await item('USERS_TABLE', userKeys.apiKey(user.apiKey)))?.secretCipher);
      if (data?.secretKey && openSecret(cipher).toString('utf8') !== data.secretKey)
        out.violations.push('the secret shown does not open the stored one');
      if (!data?.secretKey && !lostResponse) out.lost.push('the secret key was never shown');
      if (!data?.secretKey && lostResponse)
        out.notes.push(
          'the secret key is shown once: when that response is lost the retry shows none (POST /user/reset-secret issues a new one)',
        );
    },
  });
});

// --- play -------------------------------------------------------------------------------------------------

/** A player's totals in a game and the points of the sessions given. */
const totals = async (gameId: string, arcId: string, sessionIds: string[]) => {
  const day = utcDay(new Date());
  const [dayItem, allItem, ...sessions] = await Promise.all([
    getItem(playKeys.day(gameId, arcId, day)),
    getItem(playKeys.allTime(gameId, arcId)),
    ...sessionIds.map((sid) => getItem(playKeys.session(gameId, sid))),
  ]);
  return {
    day: numberOf(dayItem?.points),
    allTime: numberOf(allItem?.points),
    sessions: sessions.map((s) => ({
      points: numberOf(s?.points),
      status: s?.status as string | undefined,
      invalidated: numberOf(s?.invalidatedPoints),
      pending: numberOf(s?.pendingPoints),
    })),
    sessionItems: dayItem?.sessions,
  };
};

describe('play', () => {
  interface Entry {
    playerId: string;
    points: number;
    sessionId?: string;
    idempotencyKey: string;
  }
  interface SaveFixture {
    dev: Developer;
    game: GameView;
    entries: Entry[];
  }
  /** Each player's entries, the Arc ID behind it (if it exists yet) and the sessions its entries use. */
  const players = async (f: SaveFixture) => {
    const day = utcDay(new Date());
    const byPlayer = new Map<string, Entry[]>();
    for (const entry of f.entries)
      byPlayer.set(entry.playerId, [...(byPlayer.get(entry.playerId) ?? []), entry]);
    return Promise.all(
      [...byPlayer].map(async ([playerId, entries]) => {
        const arcId = playerId.includes(':') ? await ownerOf(playerId) : playerId;
        const sessions = [
          ...new Set(entries.map((e) => e.sessionId ?? (arcId ? defaultSessionId(day, arcId) : ''))),
        ];
        return { playerId, entries, arcId, sessions };
      }),
    );
  };
  /** A player's day total = all-time total = its sessions; its idempotency records all there, or none. */
  const checkPlayer = async (
    gameId: string,
    p: { playerId: string; arcId: string; entries: Entry[]; sessions: string[] },
    out: Findings,
  ) => {
    const t = await totals(gameId, p.arcId, p.sessions);
    const inSessions = t.sessions.reduce((sum, s) => sum + s.points, 0);
    if (t.day !== t.allTime || t.day !== inSessions)
      out.violations.push(`${p.playerId}: day ${t.day}, all-time ${t.allTime}, sessions ${inSessions}`);
    const records = await Promise.all(
      p.entries.map((e) => getItem(playKeys.idempotency(gameId, e.idempotencyKey))),
    );
    const applied = records.filter(Boolean).length;
    if (applied !== 0 && applied !== p.entries.length)
      out.violations.push(`${p.playerId}: ${applied} of ${p.entries.length} idempotency records`);
    const expected = applied === 0 ? 0 : p.entries.reduce((sum, e) => sum + e.points, 0);
    if (t.allTime !== expected)
      out.violations.push(`${p.playerId}: ${t.allTime} points, ${expected} applied by its records`);
  };
  crashTest<SaveFixture>({
    name: 'POST /play/dev/batch-save-points (3 players, 2 new, idempotency keys)',
    async setup() {
      const dev = await createDeveloper();
      const [game, known] = await Promise.all([
        registerGame(dev),
        ensureUserForSubject(`did:local:crash-p-${randomUUID().slice(0, 8)}`),
      ]);
      const [wallet, email] = [newWallet(), newEmail()];
      const key = () => randomUUID();
      const entries: Entry[] = [
        { playerId: known, points: 10, idempotencyKey: key() },
        { playerId: wallet, points: 20, idempotencyKey: key() },
        { playerId: email, points: 30, idempotencyKey: key() },
        { playerId: known, points: 5, sessionId: `crash-${randomUUID()}`, idempotencyKey: key() },
        { playerId: wallet, points: 7, idempotencyKey: key() },
      ];
      return { dev, game, entries };
    },
    request: (f) =>
      invoke(batchSaveHandler, {
        method: 'POST',
        path: '/play/dev/batch-save-points',
        headers: signed(f.dev, 'POST', '/play/dev/batch-save-points'),
        body: { gameId: f.game.id, entries: f.entries },
      }),
    async consistent(f, _phase, out) {
      for (const p of await players(f)) {
        if (p.playerId.includes(':')) await checkIdentity(p.playerId, out);
        if (p.arcId) await checkPlayer(f.game.id, { ...p, arcId: p.arcId }, out);
      }
    },
    async complete(f, res, _context, out) {
      if (res.status !== 200) out.lost.push(`retry answered ${res.status}`);
      let saved = 0;
      for (const p of await players(f)) {
        const wanted = p.entries.reduce((sum, e) => sum + e.points, 0);
        saved += wanted;
        const t = p.arcId ? await totals(f.game.id, p.arcId, p.sessions) : undefined;
        if (!t || t.allTime < wanted) out.lost.push(`${p.playerId}: ${t?.allTime ?? 0} of ${wanted} points`);
        if (t && t.allTime > wanted) out.violations.push(`${p.playerId}: ${t.allTime} points, counted twice`);
      }
      const counted = numberOf((await getUser(f.dev.arcId))?.stats.pointsSaved);
      if (counted !== saved)
        out.notes.push(
          '/user/me/stats pointsSaved misses the points of players saved before a crash: a best-effort counter, written after the transactions',
        );
    },
  });

  interface InvalidateFixture {
    dev: Developer;
    game: GameView;
    a: string;
    b: string;
    sessions: { a1: string; a2: string; b1: string };
  }
  crashTest<InvalidateFixture>({
    name: 'POST /play/dev/invalidate-sessions (3 sessions, 2 players)',
    async setup() {
      const dev = await createDeveloper();
      const [game, a, b] = await Promise.all([
        registerGame(dev),
        ensureUserForSubject(`did:local:crash-a-${randomUUID().slice(0, 8)}`),
        ensureUserForSubject(`did:local:crash-b-${randomUUID().slice(0, 8)}`),
      ]);
      const sessions = { a1: `a1-${randomUUID()}`, a2: `a2-${randomUUID()}`, b1: `b1-${randomUUID()}` };
      await batchSavePoints(
        { scheme: 'hmac', userId: dev.arcId, apiKey: dev.apiKey },
        {
          gameId: game.id,
          entries: [
            { playerId: a, points: 10, sessionId: sessions.a1 },
            { playerId: a, points: 20, sessionId: sessions.a2 },
            { playerId: a, points: 4 },
            { playerId: b, points: 30, sessionId: sessions.b1 },
            { playerId: b, points: 3 },
          ],
        },
        { directory: localDirectory },
      );
      return { dev, game, a, b, sessions };
    },
    request: (f) =>
      invoke(invalidateHandler, {
        method: 'POST',
        path: '/play/dev/invalidate-sessions',
        headers: signed(f.dev, 'POST', '/play/dev/invalidate-sessions'),
        body: { gameId: f.game.id, sessionIds: Object.values(f.sessions) },
      }),
    async consistent(f, _phase, out) {
      const day = utcDay(new Date());
      const checks: Array<[string, string[], number[]]> = [
        [f.a, [f.sessions.a1, f.sessions.a2, defaultSessionId(day, f.a)], [10, 20, 4]],
        [f.b, [f.sessions.b1, defaultSessionId(day, f.b)], [30, 3]],
      ];
      for (const [arcId, ids, original] of checks) {
        const t = await totals(f.game.id, arcId, ids);
        const inSessions = t.sessions.reduce((sum, s) => sum + s.points, 0);
        if (t.day !== t.allTime || t.day !== inSessions)
          out.violations.push(`${arcId}: day ${t.day}, all-time ${t.allTime}, sessions ${inSessions}`);
        t.sessions.forEach((s, i) => {
          const kept = s.status === 'invalidated' ? s.invalidated : s.points;
          if (kept !== original[i])
            out.violations.push(`${ids[i]}: ${s.status} with ${kept} of ${original[i]}`);
        });
      }
    },
    async complete(f, res, _context, out) {
      if (res.status !== 200) out.lost.push(`retry answered ${res.status}`);
      const day = utcDay(new Date());
      const a = await totals(f.game.id, f.a, [f.sessions.a1, f.sessions.a2, defaultSessionId(day, f.a)]);
      const b = await totals(f.game.id, f.b, [f.sessions.b1, defaultSessionId(day, f.b)]);
      const invalidated = [...a.sessions.slice(0, 2), b.sessions[0]].filter(
        (s) => s?.status === 'invalidated',
      );
      if (invalidated.length !== 3) out.lost.push(`${invalidated.length} of 3 sessions invalidated`);
      if (a.allTime !== 4 || b.allTime !== 3)
        out.violations.push(`totals ${a.allTime} and ${b.allTime}, not 4 and 3`);
    },
  });

  interface CommitFixture {
    game: GameView;
    arcId: string;
    sessionId: string;
    token: string;
    head: string;
  }
  let commitGame: GameView | undefined;
  crashTest<CommitFixture>({
    name: 'POST /play/commit (session, day and all-time totals)',
    async setup() {
      commitGame ??= await registerGame(await createDeveloper());
      const game = commitGame;
      const arcId = await ensureUserForSubject(`did:local:crash-c-${randomUUID().slice(0, 8)}`);
      const session = await openSession({ scheme: 'bearer', userId: arcId }, game.id);
      const auth = {
        scheme: 'session' as const,
        userId: arcId,
        sessionId: session.sessionId,
        gameId: game.id,
      };
      let head = session.chainSeed;
      for (const [seq, delta] of [
        [1, 30],
        [2, 12],
      ] as const) {
        const link = { seq, delta, clientTime: Date.now(), prevHash: head };
        head = flushHash(session.sessionId, link);
        await flush(auth, { ...link, hash: head });
      }
      return { game, arcId, sessionId: session.sessionId, token: session.sessionToken, head };
    },
    request: (f) =>
      invoke(commitHandler, {
        method: 'POST',
        path: '/play/commit',
        headers: bearer(f.token),
        body: { seq: 2, head: f.head, total: 42 },
      }),
    async consistent(f, _phase, out) {
      const t = await totals(f.game.id, f.arcId, [f.sessionId]);
      const s = t.sessions[0];
      const committed = s?.status === 'committed';
      const expected = committed ? 42 : 0;
      if (t.day !== expected || t.allTime !== expected || (s?.points ?? 0) !== expected)
        out.violations.push(
          `session ${s?.status}: day ${t.day}, all-time ${t.allTime}, session ${s?.points}`,
        );
      if ((s?.pending ?? 0) !== 42 - expected)
        out.violations.push(`pending ${s?.pending} on a ${s?.status} session`);
    },
    async complete(f, res, { lostResponse }, out) {
      const t = await totals(f.game.id, f.arcId, [f.sessionId]);
      if (t.sessions[0]?.status !== 'committed' || t.allTime !== 42)
        out.lost.push(`not committed (${res.status})`);
      if (res.status !== 200 && !lostResponse) out.lost.push(`retry answered ${res.status}`);
      if (res.status !== 200 && lostResponse) {
        const code = (res.body as { error?: { code?: string } }).error?.code;
        out.notes.push(
          `a retried commit whose answer was lost gets ${res.status} ${code}: the session is committed`,
        );
      }
    },
  });

  interface SessionFixture {
    game: GameView;
    subject: string;
    token: string;
  }
  let sessionGame: GameView | undefined;
  const sessionsOf = async (gameId: string, arcId: string) => {
    const { Items = [] } = await dynamo().send(
      new QueryCommand({
        TableName: env('PLAY_TABLE'),
        IndexName: 'byGameSessions',
        KeyConditionExpression: 'sessionGame = :g',
        FilterExpression: 'arcId = :a',
        ExpressionAttributeValues: { ':g': gameId, ':a': arcId },
      }),
    );
    return Items.length;
  };
  crashTest<SessionFixture>({
    name: 'GET /play/session-token (new player, session, day counter)',
    async setup() {
      sessionGame ??= await registerGame(await createDeveloper(), { maxSessionsPerDay: 5 });
      const name = `crash-s-${randomUUID().slice(0, 8)}`;
      return { game: sessionGame, subject: `did:local:${name}`, token: await idpToken(name) };
    },
    request: (f) =>
      invoke(sessionTokenHandler, {
        method: 'GET',
        path: '/play/session-token',
        query: { gameId: f.game.id },
        headers: bearer(f.token),
      }),
    async consistent(f, _phase, out) {
      const arcId = await checkIdentity(f.subject, out);
      if (!arcId) return;
      const counted = numberOf((await getItem(playKeys.day(f.game.id, arcId, utcDay(new Date()))))?.sessions);
      const stored = await sessionsOf(f.game.id, arcId);
      if (counted !== stored) out.violations.push(`day counts ${counted} sessions, ${stored} stored`);
    },
    async complete(f, res, { lostResponse }, out) {
      const arcId = await ownerOf(f.subject);
      const stored = arcId ? await sessionsOf(f.game.id, arcId) : 0;
      if (res.status !== 200 || stored === 0) out.lost.push(`no session (${res.status})`);
      if (stored > 1 && !lostResponse) out.violations.push(`${stored} sessions opened by one request`);
      if (stored > 1 && lostResponse)
        out.notes.push(
          'a retry after a lost session token opens a second session (counted against maxSessionsPerDay): GET /play/session-token has no idempotency key',
        );
    },
  });
});

// --- rewards ----------------------------------------------------------------------------------------------

describe('rewards', () => {
  interface PurchaseFixture {
    game: GameView;
    arcId: string;
    token: string;
    wallet: string;
    before: bigint;
    body: { gameId: string; tier: '2x'; durationSeconds: number; idempotencyKey: string };
  }
  let seller: Developer | undefined;
  const price = priceLamports({ tier: '2x', durationSeconds: 3_600, competitors: 0 });
  /** Every record of the purchase and the pool, and the lamports on chain. */
  const state = async (f: PurchaseFixture) => {
    const [purchase, slot, pool, inflowPage] = await Promise.all([
      item('REWARDS_TABLE', rewardsKeys.purchase(f.arcId, f.body.idempotencyKey)),
      item('REWARDS_TABLE', rewardsKeys.slot(f.game.id, f.arcId)),
      item('REWARDS_TABLE', rewardsKeys.pool(f.game.id)),
      dynamo().send(
        new QueryCommand({
          TableName: env('REWARDS_TABLE'),
          KeyConditionExpression: 'pk = :pk AND begins_with(sk, :p)',
          ExpressionAttributeValues: {
            ':pk': rewardsKeys.poolPartition(f.game.id),
            ':p': rewardsKeys.INFLOW_PREFIX,
          },
          ConsistentRead: true,
        }),
      ),
    ]);
    const inflows = inflowPage.Items ?? [];
    const charged = f.before - (await chain.getBalance(f.wallet));
    const vault = pool ? await chain.getBalance(String(pool.vaultAddress)) : 0n;
    const landed =
      purchase?.signature !== undefined &&
      ['confirmed', 'finalized'].includes(
        (await chain.getSignatureStatus(String(purchase.signature))).status,
      );
    return { purchase, slot, pool, inflows, charged, vault, landed };
  };
  crashTest<PurchaseFixture>({
    name: 'POST /multiplier/purchase (pool, intent + slot, signature, activation, game figures)',
    async setup() {
      seller ??= await createDeveloper();
      const dev = seller;
      const name = `crash-buyer-${randomUUID().slice(0, 8)}`;
      const arcId = await ensureUserForSubject(`did:local:${name}`);
      const [game, token] = await Promise.all([registerGame(dev), idpToken(name)]);
      const wallet = (await loadWallet(arcId))?.address ?? '';
      await chain.airdrop(wallet, SOL);
      const body = {
        gameId: game.id,
        tier: '2x' as const,
        durationSeconds: 3_600,
        idempotencyKey: randomUUID(),
      };
      return { game, arcId, token, wallet, before: await chain.getBalance(wallet), body };
    },
    request: (f) =>
      invoke(purchaseHandler, {
        method: 'POST',
        path: '/multiplier/purchase',
        headers: bearer(f.token),
        body: f.body,
      }),
    async consistent(f, _phase, out) {
      const s = await state(f);
      const inflow = s.inflows.reduce((sum, i) => sum + BigInt(String(i.lamports)), 0n);
      if (
        s.pool &&
        (BigInt(numberOf(s.pool.totalInflowLamports)) !== inflow ||
          numberOf(s.pool.purchases) !== s.inflows.length)
      )
        out.violations.push(
          `pool says ${s.pool.totalInflowLamports}/${s.pool.purchases}, inflows ${inflow}/${s.inflows.length}`,
        );
      const completed = s.purchase?.status === 'completed';
      if (completed !== (s.inflows.length === 1) || completed !== (s.slot?.state === 'active'))
        out.violations.push(
          `purchase ${s.purchase?.status}, ${s.inflows.length} inflow(s), slot ${s.slot?.state}`,
        );
      if (s.slot && s.slot.purchaseId !== s.purchase?.purchaseId)
        out.violations.push('slot held by another purchase');
      if (s.charged !== 0n && s.charged !== price + SIGNATURE_FEE)
        out.violations.push(`wallet charged ${s.charged}, price ${price} + fee ${SIGNATURE_FEE}`);
      // Every lamport in the vault is an activated inflow or a landed transfer of a pending (recorded) intent.
      const pendingLanded = s.purchase?.status === 'pending' && s.landed ? price : 0n;
      if (s.vault !== inflow + pendingLanded)
        out.violations.push(`vault holds ${s.vault}, accounted ${inflow} + pending ${pendingLanded}`);
    },
    async complete(f, res, _context, out) {
      const s = await state(f);
      if (res.status !== 200) out.lost.push(`retry answered ${res.status}`);
      if (s.purchase?.status !== 'completed' || s.inflows.length !== 1)
        out.lost.push('purchase not activated');
      if (s.charged !== price + SIGNATURE_FEE)
        out.violations.push(`charged ${s.charged}, once is ${price + SIGNATURE_FEE}`);
      const game = await getGame(f.game.id);
      if (game?.totalRewardsPoolValueUsd !== usdOf(price, 150))
        out.lost.push(`game figures not synced (${game?.totalRewardsPoolValueUsd})`);
    },
  });
  crashTest<PurchaseFixture & { session: string }>({
    name: 'POST /multiplier/purchase with a session token (allowance reserved with the intent)',
    async setup() {
      seller ??= await createDeveloper();
      const dev = seller;
      const name = `crash-allowed-${randomUUID().slice(0, 8)}`;
      const arcId = await ensureUserForSubject(`did:local:${name}`);
      const [game, token] = await Promise.all([registerGame(dev), idpToken(name)]);
      const wallet = (await loadWallet(arcId))?.address ?? '';
      await chain.airdrop(wallet, SOL);
      // Room for exactly this purchase.
      await putAllowance(arcId, game.id, Number(price), new Date().toISOString());
      const opened = await invoke<{ data: { sessionToken: string } }>(sessionTokenHandler, {
        method: 'GET',
        path: '/play/session-token',
        headers: bearer(token),
        query: { gameId: game.id, idempotencyKey: randomUUID() },
      });
      const body = {
        gameId: game.id,
        tier: '2x' as const,
        durationSeconds: 3_600,
        idempotencyKey: randomUUID(),
      };
      const before = await chain.getBalance(wallet);
      return { game, arcId, token, wallet, before, body, session: opened.body.data.sessionToken };
    },
    request: (f) =>
      invoke(purchaseHandler, {
        method: 'POST',
        path: '/multiplier/purchase',
        headers: bearer(f.session),
        body: f.body,
      }),
    async consistent(f, _phase, out) {
      const s = await state(f);
      const spent = await spentIn(f.arcId, f.game.id, utcDay(new Date()));
      // The price is reserved exactly while an intent that may still charge exists, never twice.
      const holds = s.purchase && s.purchase.status !== 'failed' ? Number(price) : 0;
      if (spent !== holds) out.violations.push(`allowance spent ${spent}, purchase ${s.purchase?.status}`);
      if (s.charged !== 0n && s.charged !== price + SIGNATURE_FEE)
        out.violations.push(`wallet charged ${s.charged}, price ${price} + fee ${SIGNATURE_FEE}`);
    },
    async complete(f, res, _context, out) {
      const s = await state(f);
      if (res.status !== 200) out.lost.push(`retry answered ${res.status}`);
      if (s.purchase?.status !== 'completed') out.lost.push('purchase not activated');
      const spent = await spentIn(f.arcId, f.game.id, utcDay(new Date()));
      if (spent !== Number(price)) out.violations.push(`allowance spent ${spent}, the price is ${price}`);
      if (s.charged !== price + SIGNATURE_FEE)
        out.violations.push(`charged ${s.charged}, once is ${price + SIGNATURE_FEE}`);
    },
  });
});

// --- launcher ---------------------------------------------------------------------------------------------

interface Launcher {
  dev: Developer;
  token: string;
  wallet: string;
}
const newLauncher = async (lamports: bigint): Promise<Launcher> => {
  const name = `crash-l-${randomUUID().slice(0, 8)}`;
  const dev = await createDeveloper(name);
  const token = await idpToken(name);
  const wallet = (await loadWallet(dev.arcId))?.address ?? '';
  await chain.airdrop(wallet, lamports);
  return { dev, token, wallet };
};

const jobView = async (jobId: string) => getJob(jobId);

describe('launcher', () => {
  interface LaunchFixture {
    launcher: Launcher;
    game: GameView;
    jobIds: Set<string>;
  }
  const executionExists = async (jobId: string) => {
    try {
      const { status } = await sfn.send(
        new DescribeExecutionCommand({
          executionArn: `arn:aws:states:us-east-1:000000000000:execution:${STATE_MACHINE}:${jobId}`,
        }),
      );
      return status;
    } catch {
      return undefined;
    }
  };
  crashTest<LaunchFixture>(
    {
      name: 'POST /token-launcher/launch (job + lock + symbol, state machine start, execution ARN)',
      async setup() {
        const launcher = await newLauncher(SOL);
        return { launcher, game: await registerGame(launcher.dev), jobIds: new Set() };
      },
      async request(f) {
        const res = await invoke(launchHandler, {
          method: 'POST',
          path: '/token-launcher/launch',
          headers: bearer(f.launcher.token),
          body: { gameId: f.game.id, emissionDays: 7 },
        });
        const jobId = (res.body as { data?: { jobId?: string } }).data?.jobId;
        if (jobId) f.jobIds.add(jobId);
        return res;
      },
      async consistent(f, _phase, out) {
        const lock = await item('LAUNCHER_TABLE', launcherKeys.lock(f.game.id));
        if (lock?.state !== 'held') return;
        const job = await jobView(String(lock.jobId));
        if (!job) return void out.violations.push('the launch lock is held by a job that does not exist');
        const symbol = await item('LAUNCHER_TABLE', launcherKeys.symbol(job.gameCoinSymbol));
        if (symbol?.jobId !== job.jobId)
          out.violations.push(`symbol ${job.gameCoinSymbol} not held by its job`);
      },
      async complete(_f, res, _context, out) {
        const jobId = (res.body as { data?: { jobId?: string } }).data?.jobId;
        if (res.status !== 200 || !jobId) return void out.lost.push(`retry answered ${res.status}`);
        const job = await jobView(jobId);
        // A job that holds the lock must be driven by a state machine execution, or it never ends.
        if (job?.status === 'waiting' && !(await executionExists(jobId)))
          out.violations.push(`job ${jobId} holds the game's launch lock but no execution runs it`);
      },
      async finish(fixtures, out) {
        // Every launch that a request queued must end: completed, and the game gets its coin.
        await Promise.all(
          fixtures.map(async (f) => {
            for (const jobId of f.jobIds) {
              const deadline = Date.now() + 120_000;
              let job = await jobView(jobId);
              while (job && (job.status === 'waiting' || job.status === 'active') && Date.now() < deadline) {
                await new Promise((resolve) => setTimeout(resolve, 500));
                job = await jobView(jobId);
              }
              if (job?.status !== 'completed') out.lost.push(`launch ${jobId} ended ${job?.status}`);
            }
            const game = await getGame(f.game.id);
            if (!game?.coin) out.lost.push(`game ${f.game.id} has no coin`);
          }),
        );
      },
    },
    400_000,
  );

  /** A queued job (as POST /token-launcher/launch creates it), without starting a state machine. */
  const queuedJob = async (launcher: Launcher): Promise<JobRecord> => {
    const game = await registerGame(launcher.dev);
    const job = newJob(
      { userId: launcher.dev.arcId },
      game,
      {
        emissionDays: 7,
        buyAmount: 0n,
        symbol: `CR${randomBytes(3).toString('hex').toUpperCase()}`,
        custom: true,
      },
      { now: () => new Date(), publicApiUrl: env('PUBLIC_API_URL') },
    );
    const created = await createJob(job, { id: game.id, version: 1 });
    if (created !== 'created') throw new Error(`job not created: ${created}`);
    return job;
  };

  /** A task invocation as Step Functions makes it: 200 with the output, or 500 with the error. */
  const task = async (
    handler: (event: unknown) => Promise<unknown>,
    jobId: string,
  ): Promise<TestResponse> => {
    try {
      const output = await handler({ jobId });
      return { status: 200, headers: {}, body: output, text: JSON.stringify(output) };
    } catch (error) {
      const text = error instanceof Error ? `${error.name}: ${error.message}` : String(error);
      return { status: 500, headers: {}, body: undefined, text };
    }
  };

  let stageLauncher: Launcher | undefined;
  interface ReserveFixture {
    job: JobRecord;
    mintAfterCrash?: string | null;
  }
  crashTest<ReserveFixture>({
    name: 'launch task: reserve (enter, keys + mint index, finish)',
    async setup() {
      stageLauncher ??= await newLauncher(5n * SOL);
      return { job: await queuedJob(stageLauncher) };
    },
    request: (f) => task(reserveTask as (event: unknown) => Promise<unknown>, f.job.jobId),
    async consistent(f, phase, out) {
      const job = await jobView(f.job.jobId);
      if (!job) return void out.violations.push('job vanished');
      if (phase === 'crash') f.mintAfterCrash = job.coinMint;
      if (!job.coinMint) return;
      if ((await getMintJobId(job.coinMint)) !== job.jobId) out.violations.push('mint → job index missing');
      const keys = await openLaunchKeys({
        coinMint: job.coinMint,
        vaultAddress: String(job.vaultAddress),
        sealedMintKey: String(job.sealedMintKey),
        sealedVaultKey: String(job.sealedVaultKey),
      });
      if (keys.mint.address !== job.coinMint) out.violations.push('sealed mint key mismatch');
    },
    async complete(f, res, _context, out) {
      const job = await jobView(f.job.jobId);
      if (res.status !== 200) out.lost.push(`retry failed: ${res.text}`);
      if (!job?.coinMint || job.progress < 10) out.lost.push('keys not reserved');
      if (f.mintAfterCrash && job?.coinMint !== f.mintAfterCrash)
        out.violations.push('a retry reserved a second mint address');
    },
  });

  crashTest<{ job: JobRecord; mint: string }>(
    {
      name: 'launch task: complete (enter, job + coin + symbol + lock + game + link + stats)',
      async setup() {
        // Its own launcher: the launcher's launch counter is part of the completion.
        const job = await queuedJob(await newLauncher(SOL));
        const deps = stageDeps;
        await reserveStage(job.jobId, deps);
        await mintStage(job.jobId, deps);
        const reserved = await jobView(job.jobId);
        return { job, mint: reserved?.coinMint ?? '' };
      },
      request: (f) => task(completeTask as (event: unknown) => Promise<unknown>, f.job.jobId),
      async consistent(f, _phase, out) {
        const [job, coin, game, symbol, lock, link, launcher] = await Promise.all([
          jobView(f.job.jobId),
          getCoin(f.mint),
          getGame(f.job.gameId),
          item('LAUNCHER_TABLE', launcherKeys.symbol(f.job.gameCoinSymbol)),
          item('LAUNCHER_TABLE', launcherKeys.lock(f.job.gameId)),
          item('GAMES_TABLE', { pk: `TOKEN#${f.mint}`, sk: 'COIN' }),
          getUser(f.job.userId),
        ]);
        const launched = numberOf(launcher?.stats.gameCoinsLaunched);
        if (launched > 1) out.violations.push(`stats.gameCoinsLaunched ${launched} for one launch`);
        const facts = {
          jobCompleted: job?.status === 'completed',
          coinRecord: Boolean(coin),
          gameCoin: game?.coin?.coinMint === f.mint,
          coinLink: link?.gameId === f.job.gameId,
          symbolTaken: symbol?.state === 'taken',
          lockReleased: lock?.state === 'released',
          launchCounted: launched === 1,
        };
        if (new Set(Object.values(facts)).size !== 1)
          out.violations.push(`partial completion: ${JSON.stringify(facts)}`);
      },
      async complete(f, res, _context, out) {
        const job = await jobView(f.job.jobId);
        if (res.status !== 200) out.lost.push(`retry failed: ${res.text}`);
        if (job?.status !== 'completed') out.lost.push(`job ${job?.status}`);
      },
    },
    300_000,
  );
});

// --- snapshots --------------------------------------------------------------------------------------------

describe('snapshots', () => {
  interface BuildFixture {
    mint: string;
    holders: Map<string, bigint>;
    deps: BuilderDeps;
    record: { messageId: string; body: string };
  }
  /** A random wallet key (on the ed25519 curve: the builder leaves PDAs out). */
  const address = (): string => {
    const key = randomBytes(32);
    return isOnCurve(key) ? bs58.encode(key) : address();
  };
  crashTest<BuildFixture>({
    name: 'SQS buildSnapshots (3 objects, then the summary)',
    async setup() {
      const mint = address();
      const airdropMint = address();
      const holders = new Map([
        [address(), 5_000_000n],
        [address(), 3_000_000n],
        [address(), 2_000_000n],
      ]);
      // The chain is a stub (holders of an airdrop token); storage is the stack's S3 and DynamoDB.
      const deps: BuilderDeps = {
        chain: {
          listTokenHolders: async () => holdersFromEntries(holders),
          getMint: async (m) =>
            ({ address: String(m), decimals: 6, supply: 1_000_000_000_000_000n }) as Awaited<
              ReturnType<BuilderDeps['chain']['getMint']>
            >,
          getSlot: async () => 1_000,
        },
        // Launched 8 days ago for 7 days: the whole airdrop pool is due in the first round.
        findCoin: async (m) =>
          m === mint
            ? {
                coinMint: mint,
                gameId: randomUUID(),
                airdropMint,
                vaultAddress: null,
                emissionStartAt: new Date(Date.now() - 8 * 86_400_000).toISOString(),
                emissionDays: 7,
              }
            : undefined,
        putObjects: putSnapshotObjects,
        getObject: getSnapshotObject,
        getSummary,
        putSummaryIfNewer,
        now: () => new Date(),
      };
      return {
        mint,
        holders,
        deps,
        record: { messageId: randomUUID(), body: JSON.stringify({ coinMint: mint }) },
      };
    },
    // One delivery of the message; a batch item failure means SQS delivers it again.
    async request(f) {
      const { batchItemFailures } = await processSnapshotBatch([f.record], (m) => buildSnapshot(m, f.deps));
      const status = batchItemFailures.length === 0 ? 200 : 500;
      return { status, headers: {}, body: { batchItemFailures }, text: '' };
    },
    async consistent(f, _phase, out) {
      const summary = await getSummary(f.mint);
      if (!summary) return;
      for (const holder of f.holders.keys()) {
        try {
          const proof = await getSnapshotProof(f.mint, holder, readDeps);
          const siblings = proof.proof.map((p) => Buffer.from(p, 'hex'));
          const leaf = leafHash(bs58.decode(holder), BigInt(proof.amount));
          if (
            proof.merkleRoot !== summary.merkleRoot ||
            !verifyProof(leaf, siblings, Buffer.from(summary.merkleRoot, 'hex'))
          )
            out.violations.push(`proof of ${holder} does not verify against the summary`);
        } catch (error) {
          out.violations.push(
            `summary v${summary.version} points at unreadable objects: ${(error as Error).message}`,
          );
        }
      }
    },
    async complete(f, res, _context, out) {
      const summary = await getSummary(f.mint);
      if (res.status !== 200) out.lost.push('the redelivery failed');
      if (!summary) out.lost.push('no snapshot after the redelivery');
      else if (summary.version !== 1) out.violations.push(`version ${summary.version} for one holder set`);
    },
  });
});
