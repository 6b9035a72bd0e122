// "Expired, send again" decisions under a transfer that lands between the reads (injected): the block height is
// read first, then the status, then the height again (lib/chain/fate.ts). With the status read first, a transfer
// that landed right after it, followed by a height past its lifetime, looks expired and is sent again: a double
// payout on a redelivered settlement, a double charge on a retried purchase. Against the local stack and chain.
import { randomUUID } from 'node:crypto';
import { getSignatureFromTransaction, type Transaction } from '@solana/kit';
import { describe, expect, it } from 'vitest';
import { sideEffects as rewardsDeps } from '../../functions/rewards/purchase-multiplier.js';
import { sideEffects as settleDeps } from '../../functions/settlement/settle-game-days.js';
import {
  budgetOfTransaction,
  type Chain,
  ChainError,
  signPlan,
  type TransactionPlan,
} from '../../lib/chain/index.js';
import { purchaseMultiplier } from '../../lib/rewards/purchases/purchase.js';
import type { RewardsDeps } from '../../lib/rewards/purchases/transfer.js';
import { type SettlementDeps, settleGameDay } from '../../lib/rewards/settlement/settle.js';
import { registerGame } from '../helpers/games.js';
import {
  chain,
  type Member,
  newMember,
  payoutOf,
  randomDay,
  type SeededDay,
  SOL,
  seedDay,
} from '../helpers/settlement.js';
import { createDeveloper } from '../helpers/users.js';

const FEE = 5_000n;

const recipientOf = (plan: TransactionPlan) => plan.instructions[0]?.accounts?.[1]?.address;

const depsFor = (seeded: SeededDay, overrides: Partial<SettlementDeps> = {}): SettlementDeps => ({
  ...settleDeps,
  now: () => seeded.after,
  confirmTimeoutMs: 10_000,
  ...overrides,
});

interface Held {
  tx: Transaction;
  lastValidBlockHeight: number;
}

/** A send that signs and records the transaction (onSent), then dies before broadcasting it: kept in `held`. */
const dyingSend =
  (held: { value?: Held }, error: ChainError): Chain['sendAndConfirm'] =>
  async (plan, options) => {
    const lifetime = await chain.getLatestBlockhash();
    const partial = await signPlan(plan, lifetime);
    const tx = options?.cosign ? await options.cosign(partial) : partial;
    held.value = { tx, lastValidBlockHeight: lifetime.lastValidBlockHeight };
    await options?.onSent?.({
      signature: getSignatureFromTransaction(tx),
      lastValidBlockHeight: lifetime.lastValidBlockHeight,
      fee: budgetOfTransaction(tx).fee,
    });
    throw error;
  };

/**
 * Reads in which the held transaction lands right after the first status read, and the chain then stands past
 * its lifetime: what a status-first reader takes for "expired, send again".
 */
const racingReads = <C extends Pick<Chain, 'getSignatureStatus' | 'getBlockHeight'>>(
  real: C,
  held: { value?: Held },
) => {
  const race = { landed: false };
  const reads: Pick<Chain, 'getSignatureStatus' | 'getBlockHeight'> = {
    getSignatureStatus: async (signature) => {
      const state = await real.getSignatureStatus(signature);
      if (!race.landed && held.value) {
        race.landed = true;
        await chain.sendSigned(held.value.tx, held.value.lastValidBlockHeight, { timeoutMs: 20_000 });
      }
      return state;
    },
    getBlockHeight: async () =>
      race.landed ? (held.value?.lastValidBlockHeight ?? 0) + 1 : real.getBlockHeight(),
  };
  return { race, reads };
};

describe('a redelivered settlement and the expiry reads', () => {
  it('does not send again a transfer that lands between the height and status reads (injected)', async () => {
    const seeded = await seedDay({ day: randomDay(), playerCount: 1 });
    const dev = seeded.creators[0] as Member;
    // Run 1: the developer's transfer is signed and its signature recorded, then the run dies before it is sent.
    const held: { value?: Held } = {};
    const die = dyingSend(
      held,
      new ChainError('RPC_UNAVAILABLE', 'simulated: the process died before sending'),
    );
    const dying: SettlementDeps['chain'] = {
      ...settleDeps.chain,
      sendAndConfirm: (plan, options) =>
        recipientOf(plan) !== dev.wallet || held.value
          ? settleDeps.chain.sendAndConfirm(plan, options)
          : die(plan, options),
    };
    await expect(
      settleGameDay(seeded.gameId, seeded.day, depsFor(seeded, { chain: dying })),
    ).rejects.toThrow();
    expect(held.value).toBeDefined();
    const before = await chain.getBalance(dev.wallet);

    // Run 2: the transfer lands right after the status read, and the chain then stands past its lifetime.
    const { race, reads } = racingReads(settleDeps.chain, held);
    const racing: SettlementDeps['chain'] = { ...settleDeps.chain, ...reads };
    const outcome = await settleGameDay(seeded.gameId, seeded.day, depsFor(seeded, { chain: racing }));
    expect(outcome.status).toBe('settled');
    expect(race.landed).toBe(true);
    const record = await payoutOf(seeded.gameId, seeded.day, dev.arcId);
    // Paid once, by the transfer of run 1.
    expect(record?.status).toBe('confirmed');
    expect(await chain.getBalance(dev.wallet)).toBe(before + BigInt(record?.send ?? 0));
  }, 180_000);
});

describe('a retried purchase and the expiry reads', () => {
  it('does not charge again for a transfer that lands between the height and status reads (injected)', async () => {
    const game = await registerGame(await createDeveloper());
    const player = await newMember(SOL);
    const body = {
      gameId: game.id,
      tier: '2x' as const,
      durationSeconds: 3_600,
      idempotencyKey: randomUUID(),
    };
    // Attempt 1: signed by the player's wallet and recorded, then the request loses it before it is sent.
    const held: { value?: Held } = {};
    const lost: RewardsDeps = {
      ...rewardsDeps,
      chain: {
        ...rewardsDeps.chain,
        sendAndConfirm: dyingSend(held, new ChainError('CONFIRM_TIMEOUT', 'simulated: lost after recording')),
      },
    };
    const pending = await purchaseMultiplier(player.auth, body, lost);
    expect(pending).toMatchObject({ status: 'pending' });
    expect(await chain.getBalance(player.wallet)).toBe(SOL);

    // The retry: the transfer lands right after the status read; the chain then stands past its lifetime.
    const { race, reads } = racingReads(rewardsDeps.chain, held);
    const retry = await purchaseMultiplier(player.auth, body, {
      ...rewardsDeps,
      chain: { ...rewardsDeps.chain, ...reads },
    });
    expect(race.landed).toBe(true);
    expect(retry).toMatchObject({ status: 'completed', signature: pending.signature });
    expect(await chain.getBalance(player.wallet)).toBe(SOL - BigInt(pending.lamports) - FEE);
  }, 120_000);
});
