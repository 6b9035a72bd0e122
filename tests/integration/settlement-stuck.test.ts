// Money that never gets stuck in the daily settlement, against the local stack: a recipient that empties its
// wallet between the freeze and its payout is carried and its game's days, emission and coin go on; a line that
// keeps failing is parked (payout DLQ) without holding the other lines or the day.
import { randomUUID } from 'node:crypto';
import { ListQueuesCommand, ReceiveMessageCommand, SQSClient } from '@aws-sdk/client-sqs';
import { describe, expect, it } from 'vitest';
import { sideEffects as rewardsDeps } from '../../functions/rewards/purchase-multiplier.js';
import { sideEffects as settleDeps } from '../../functions/settlement/settle-game-days.js';
import { ChainError, newKeypair, type TransactionPlan } from '../../lib/chain/index.js';
import { getGame, linkCoin, saveGame } from '../../lib/games/repository.js';
import { batchSavePoints } from '../../lib/play/saves/save.js';
import { parkPayout } from '../../lib/rewards/index.js';
import { MAX_LINE_FAILURES } from '../../lib/rewards/settlement/payout.js';
import { getSettlement } from '../../lib/rewards/settlement/repository.js';
import { type SettlementDeps, settleGameDay } from '../../lib/rewards/settlement/settle.js';
import { buildPurchaseTransfer } from '../../lib/rewards/vault.js';
import { addDays } from '../../lib/snapshots/emission-math.js';
import { localDirectory } from '../../lib/user/directory.js';
import {
  carryOf,
  chain,
  type Member,
  payoutOf,
  randomDay,
  type SeededDay,
  seedDay,
} from '../helpers/settlement.js';

const FEE = 5_000n;

/** Move everything out of a member's embedded wallet (signed by the identity provider, as the player would). */
const drain = async (member: Member) => {
  const balance = await chain.getBalance(member.wallet);
  const { signer } = await newKeypair();
  await chain.sendAndConfirm(
    buildPurchaseTransfer({
      from: member.wallet,
      to: signer.address,
      lamports: balance - FEE,
      purchaseId: `drain-${randomUUID()}`,
    }),
    { cosign: (tx) => rewardsDeps.signer.signTransaction(member.arcId, tx) },
  );
  expect(await chain.getBalance(member.wallet)).toBe(0n);
};

/** The recipient of a payout plan (its System transfer's destination). */
const recipientOf = (plan: TransactionPlan) => plan.instructions[0]?.accounts?.[1]?.address;

/** The stack's payout DLQ (serverless.yml PayoutDlq), as provisioned locally. */
const sqs = new SQSClient({});
const payoutDlqUrl = async () => {
  const { QueueUrls = [] } = await sqs.send(new ListQueuesCommand({ QueueNamePrefix: 'arcadia-' }));
  const url = QueueUrls.find((u) => u.endsWith('-payouts-dlq'));
  if (!url) throw new Error(`no payouts DLQ among ${QueueUrls.join(', ')}`);
  return url;
};

const depsFor = (seeded: SeededDay, overrides: Partial<SettlementDeps> = {}): SettlementDeps => ({
  ...settleDeps,
  now: () => new Date(seeded.after.getTime() + 86_400_000),
  confirmTimeoutMs: 10_000,
  ...overrides,
});

describe('a payout that cannot land', () => {
  it('carries when the recipient empties its wallet after the freeze; the next day settles and the coin ends', async () => {
    const seeded = await seedDay({ day: randomDay(), playerCount: 3 });
    const next = addDays(seeded.day, 1);
    // A coin emitting on this day and the next (its last): the coin ends when the next day settles.
    const coinMint = (await newKeypair()).signer.address;
    const game = await getGame(seeded.gameId);
    if (!game) throw new Error('game missing');
    await saveGame(
      {
        ...game,
        version: game.version + 1,
        coin: {
          coinMint,
          gameCoinSymbol: 'STCK',
          emissionDays: 2,
          status: 'active',
          emissionStartAt: `${seeded.day}T10:00:00.000Z`,
          emissionEndAt: `${addDays(seeded.day, 2)}T00:00:00.000Z`,
        },
      },
      game,
    );
    await linkCoin(coinMint, seeded.gameId);
    const victim = seeded.players[1] as Member; // funded: its small share can land at the freeze
    const emitted: string[] = [];
    const deps = depsFor(seeded, {
      // Runs after the freeze, before the payouts: the recipient empties its wallet in between.
      settleCoinEmission: async (input) => {
        emitted.push(input.day);
        await settleDeps.settleCoinEmission?.(input);
        if (input.day !== seeded.day) return;
        const frozen = await getSettlement(seeded.gameId, seeded.day);
        const line = frozen?.lines.find((l) => l.arcId === victim.arcId);
        expect(BigInt(line?.send ?? 0)).toBeGreaterThan(0n);
        await drain(victim);
      },
    });

    const first = await settleGameDay(seeded.gameId, seeded.day, deps);
    expect(first.status).toBe('settled');
    const record = await payoutOf(seeded.gameId, seeded.day, victim.arcId);
    expect(record).toMatchObject({ status: 'carried' });
    expect(String(record?.carryReason)).toMatch(/refused/);
    expect(await carryOf(seeded.gameId, victim.arcId)).toBe(BigInt(record?.due ?? -1));
    expect(await chain.getBalance(victim.wallet)).toBe(0n);
    // The other lines were paid as usual.
    const other = await payoutOf(seeded.gameId, seeded.day, seeded.creators[0]?.arcId ?? '');
    expect(other?.status).toBe('confirmed');

    await batchSavePoints(
      seeded.creators[0]?.auth ?? { scheme: 'hmac', userId: '', apiKey: '' },
      { gameId: seeded.gameId, entries: seeded.players.map((p) => ({ playerId: p.arcId, points: 10 })) },
      { directory: localDirectory, now: () => new Date(`${next}T12:00:00.000Z`) },
    );
    const second = await settleGameDay(seeded.gameId, next, deps);
    expect(second.status).toBe('settled');
    expect(emitted).toEqual([seeded.day, next]);
    expect((await getGame(seeded.gameId))?.coin?.status).toBe('ended');
  }, 180_000);

  it('parks a line that keeps failing: the others are paid at once, the day closes, the books hold', async () => {
    const seeded = await seedDay({ day: randomDay(), playerCount: 2 });
    const stuck = seeded.creators[1] as Member;
    const queueUrl = await payoutDlqUrl();
    const parked: string[] = [];
    const refusing: SettlementDeps['chain'] = {
      ...settleDeps.chain,
      sendAndConfirm: async (plan, options) => {
        if (recipientOf(plan) === stuck.wallet)
          throw new ChainError('RPC_ERROR', 'simulated: the node refuses');
        return settleDeps.chain.sendAndConfirm(plan, options);
      },
    };
    const deps = depsFor(seeded, {
      chain: refusing,
      park: async (record) => {
        parked.push(record.arcId);
        await parkPayout(record, queueUrl);
      },
    });
    const before = await chain.getBalance(stuck.wallet);
    for (let run = 1; run <= MAX_LINE_FAILURES; run++) {
      await expect(settleGameDay(seeded.gameId, seeded.day, deps)).rejects.toThrow(/1 of \d+ payouts/);
      expect((await payoutOf(seeded.gameId, seeded.day, stuck.arcId))?.failures).toBe(run);
      // One stuck line never holds another: the developer's line was paid in the first run.
      expect((await payoutOf(seeded.gameId, seeded.day, seeded.creators[0]?.arcId ?? ''))?.status).toBe(
        'confirmed',
      );
    }
    expect(parked).toEqual([]);
    const done = await settleGameDay(seeded.gameId, seeded.day, deps);
    expect(done.status).toBe('settled');
    expect(parked).toEqual([stuck.arcId]);
    const record = await payoutOf(seeded.gameId, seeded.day, stuck.arcId);
    expect(record).toMatchObject({ status: 'carried', failures: MAX_LINE_FAILURES });
    expect(String(record?.carryReason)).toMatch(/parked after 3 failed runs: .*the node refuses/);
    expect(await carryOf(seeded.gameId, stuck.arcId)).toBe(BigInt(record?.due ?? -1));
    expect(await chain.getBalance(stuck.wallet)).toBe(before);
    const { Messages = [] } = await sqs.send(
      new ReceiveMessageCommand({ QueueUrl: queueUrl, MaxNumberOfMessages: 10, WaitTimeSeconds: 1 }),
    );
    const bodies = Messages.map((m) => JSON.parse(m.Body ?? '{}'));
    expect(bodies).toContainEqual(
      expect.objectContaining({ gameId: seeded.gameId, day: seeded.day, arcId: stuck.arcId, failures: 3 }),
    );
  }, 180_000);
});
