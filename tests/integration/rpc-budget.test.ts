// A settlement of 200 payouts against an RPC plan that allows 5 sendTransaction a second. The file starts its own
// local chain with that limit (HTTP 429 with Retry-After past it, as providers answer) and pays the day from the
// game's vault there; storage is the shared stack's. The chain adapter is built as chainFromConfig builds it, with
// the setting's default send budget (SOLANA_RPC_SEND_PER_SECOND, 5; the test stack's own chain runs with it off,
// tests/global-setup.ts): every transfer lands, the plan answers no 429 (the budget keeps the sends,
// re-broadcasts included, under it), and no line's books hold a failure.
import { GetCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sideEffects as settleDeps } from '../../functions/settlement/settle-game-days.js';
import { dynamo } from '../../lib/adapters/dynamodb.js';
import { type Chain, makeChain } from '../../lib/chain/index.js';
import { parseSetting } from '../../lib/core/config.js';
import { getGame, saveGame } from '../../lib/games/repository.js';
import { rewardsKeys, rewardsTable } from '../../lib/rewards/keys.js';
import { type SettlementDeps, settleGameDay } from '../../lib/rewards/settlement/settle.js';
import { type LocalChain, startLocalChain } from '../../scripts/chain/rpc-server.js';
import {
  type Member,
  newMember,
  payoutOf,
  randomDay,
  type SeededDay,
  SOL,
  seedDay,
} from '../helpers/settlement.js';

const SEND_LIMIT = 5;
/** What a deployment gets without setting SOLANA_RPC_SEND_PER_SECOND. */
const defaultSend = parseSetting('SOLANA_RPC_SEND_PER_SECOND', undefined);
const CREATORS = 190;
let own: LocalChain;
let chain: Chain;
let seeded: SeededDay;
let creators: Member[];

/** n members, 20 at a time (each is an identity-provider user with an embedded wallet). */
const members = async (n: number): Promise<Member[]> => {
  const all: Member[] = [];
  while (all.length < n)
    all.push(...(await Promise.all(Array.from({ length: Math.min(20, n - all.length) }, () => newMember()))));
  return all;
};

beforeAll(async () => {
  own = await startLocalChain({ port: 0, limits: { sendTransaction: SEND_LIMIT } });
  chain = makeChain({
    rpcUrl: own.url,
    pollMs: 250,
    budget: { send: defaultSend.ok ? defaultSend.value : Number.NaN },
  });
  // Ten ranked players (the day's paid ranks) and 190 co-creators beside the developer: 201 lines.
  seeded = await seedDay({ day: randomDay(), playerCount: 10, split: false });
  creators = await members(CREATORS);
  const record = await getGame(seeded.gameId);
  if (!record) throw new Error('game vanished');
  const split: Record<string, number> = { [seeded.dev.arcId]: 10_000 - 50 * CREATORS };
  for (const c of creators) split[c.arcId] = 50;
  await saveGame(
    { ...record, version: record.version + 1, ownershipVerified: true, requestedOrgRewardsSplit: split },
    record,
  );
  // A pool of 100 SOL, held by the vault on this file's chain: each creator's line (0.2 × 1/30 × 0.5 %) is
  // ~0.033 SOL, above the rent-exempt minimum an empty wallet needs.
  const key = { pk: rewardsKeys.pool(seeded.gameId).pk, sk: 'POOL' };
  const pool = (await dynamo().send(new GetCommand({ TableName: rewardsTable(), Key: key }))).Item;
  if (!pool) throw new Error('no pool');
  await dynamo().send(
    new UpdateCommand({
      TableName: rewardsTable(),
      Key: key,
      UpdateExpression: 'SET totalInflowLamports = :inflow',
      ExpressionAttributeValues: { ':inflow': (100n * SOL).toString() },
    }),
  );
  const faucet = makeChain({ rpcUrl: own.url, pollMs: 50 });
  await faucet.airdrop(seeded.vaultAddress, 101n * SOL);
}, 240_000);

afterAll(async () => {
  await own?.stop();
});

describe('a settlement under a 5-a-second sendTransaction plan', () => {
  it('pays 200+ lines: every transfer lands, the plan answers no 429, no line records a failure', async () => {
    expect(defaultSend).toEqual({ ok: true, value: SEND_LIMIT });
    const deps: SettlementDeps = {
      ...settleDeps,
      chain,
      now: () => seeded.after,
      settleCoinEmission: undefined,
    };
    own.traffic(true);
    const started = Date.now();
    const outcome = await settleGameDay(seeded.gameId, seeded.day, deps);
    const seconds = (Date.now() - started) / 1000;
    const traffic = own.traffic();
    expect(outcome.status).toBe('settled');
    if (outcome.status !== 'settled') return;
    const lines = outcome.settlement.lines;
    expect(lines.length).toBeGreaterThanOrEqual(200);
    const paid = lines.filter((l) => BigInt(l.send) > 0n);
    expect(paid.length).toBe(lines.length);
    // The plan was the limit: at least one send per line, never more than 5 a second…
    expect(traffic.served.sendTransaction ?? 0).toBeGreaterThanOrEqual(lines.length);
    expect(seconds).toBeGreaterThanOrEqual((lines.length - SEND_LIMIT) / SEND_LIMIT);
    // …and the budget kept under it: not one 429 answered.
    expect(traffic.limited.sendTransaction ?? 0).toBe(0);
    const records = await Promise.all(lines.map((l) => payoutOf(seeded.gameId, seeded.day, l.arcId)));
    for (const [i, record] of records.entries()) {
      expect(record, lines[i]?.arcId).toMatchObject({ status: 'confirmed' });
      expect(record?.failures ?? 0).toBe(0);
      expect(record?.lastError).toBeUndefined();
      // What the books say was sent is on the wallet (each was empty before).
      expect(await chain.getBalance(String(record?.wallet))).toBe(BigInt(record?.send ?? -1));
    }
    console.log(
      `settled ${lines.length} lines in ${seconds.toFixed(1)} s: ${traffic.served.sendTransaction} sendTransaction ` +
        `served, ${traffic.limited.sendTransaction ?? 0} limited`,
    );
  }, 180_000);
});
