// The chain adapter under a provider plan's limits, against the local chain started in this file with the limits
// a plan enforces (HTTP 429 with Retry-After past a method's requests per second): a 429 is retried after the
// provider's wait and the call answers; a send budget keeps a burst of transfers under the plan (no 429 at all);
// inside an invocation whose deadline can't cover the wait, the caller gets 503 UPSTREAM_UNAVAILABLE with the
// provider's Retry-After at once, not a Lambda timeout; the priority fee bids a high percentile of landed minimums,
// or the provider's fee estimate.
import { type Address, generateKeyPairSigner, type TransactionSigner } from '@solana/kit';
import { getTransferSolInstruction } from '@solana-program/system';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  type Chain,
  makeChain,
  PRIORITY_PERCENTILE,
  priorityPrice,
  resetRpcLimiters,
  type TransactionPlan,
} from '../../lib/chain/index.js';
import { withDeadline } from '../../lib/core/deadline.js';
import { AppError } from '../../lib/core/errors.js';
import { PRIORITIZATION_FEE_SLOTS } from '../../scripts/chain/ledger.js';
import { type LocalChain, startLocalChain } from '../../scripts/chain/rpc-server.js';

const SOL = 1_000_000_000n;
let local: LocalChain;
let chain: Chain;

const newAddress = async () => (await generateKeyPairSigner()).address;
const funded = async (lamports = 10n * SOL) => {
  const signer = await generateKeyPairSigner();
  await chain.airdrop(signer.address, lamports);
  return signer;
};
const transfer = (from: TransactionSigner, to: Address, amount: bigint): TransactionPlan => ({
  feePayer: from.address,
  instructions: [getTransferSolInstruction({ source: from, destination: to, amount })],
});
const rejection = (promise: Promise<unknown>) =>
  promise.then(
    () => {
      throw new Error('expected a rejection');
    },
    (e: unknown) => e,
  );

beforeAll(async () => {
  local = await startLocalChain({ port: 0 });
  chain = makeChain({ rpcUrl: local.url, pollMs: 50 });
});

afterAll(async () => {
  await local?.stop();
  resetRpcLimiters();
});

describe('RPC budget and rate limits', () => {
  it('retries a 429 after the provider’s Retry-After, and the call answers', async () => {
    const who = await newAddress();
    local.traffic(true);
    local.injectFault({ method: 'getBalance', status: 429, times: 2 });
    const started = Date.now();
    expect(await chain.getBalance(who)).toBe(0n);
    // Two answers of `Retry-After: 1`: the third attempt is a second after the second.
    expect(Date.now() - started).toBeGreaterThanOrEqual(1_900);
    // Past its attempts the call fails transient (the settlement's line is retried by its next run).
    local.injectFault({ method: 'getBalance', status: 429, times: 2 });
    const hasty = makeChain({ rpcUrl: local.url, rateLimitRetry: { attempts: 2 } });
    expect(await rejection(hasty.getBalance(who))).toMatchObject({
      code: 'RPC_UNAVAILABLE',
      retryAfterMs: 1_000,
    });
  });

  it('keeps a burst of sends under the plan’s sendTransaction limit: all land, no 429', async () => {
    const from = await funded();
    local.setLimits({ sendTransaction: 5 });
    try {
      // Five a second, as chainFromConfig sets it by default.
      const budgeted = makeChain({
        rpcUrl: local.url,
        pollMs: 50,
        budget: { send: 5 },
      });
      const to = await Promise.all(Array.from({ length: 12 }, () => newAddress()));
      local.traffic(true);
      const started = Date.now();
      await Promise.all(to.map((a) => budgeted.sendAndConfirm(transfer(from, a, SOL / 100n))));
      const traffic = local.traffic();
      expect(traffic.limited.sendTransaction ?? 0).toBe(0);
      expect(traffic.served.sendTransaction).toBeGreaterThanOrEqual(12);
      // 12 sends 1/(5 × 0.9) s apart: at least 2.4 s.
      expect(Date.now() - started).toBeGreaterThanOrEqual(2_400);
      for (const a of to) expect(await chain.getBalance(a)).toBe(SOL / 100n);

      // Without a budget the plan answers 429 to the burst; the retries still land every transfer.
      const unbudgeted = makeChain({ rpcUrl: local.url, pollMs: 50 });
      const more = await Promise.all(Array.from({ length: 8 }, () => newAddress()));
      local.traffic(true);
      await Promise.all(more.map((a) => unbudgeted.sendAndConfirm(transfer(from, a, SOL / 100n))));
      expect(local.traffic().limited.sendTransaction ?? 0).toBeGreaterThan(0);
      for (const a of more) expect(await chain.getBalance(a)).toBe(SOL / 100n);
    } finally {
      local.setLimits({});
    }
  });

  it('answers 503 UPSTREAM_UNAVAILABLE with the provider’s Retry-After at once when the deadline can’t cover the wait', async () => {
    const who = await newAddress();
    local.injectFault({ method: 'getBalance', status: 429, times: 5 });
    const started = Date.now();
    // 1.5 s left, 0.75 s of it kept for answering: the provider's 1 s does not fit.
    const error = await rejection(
      withDeadline({ getRemainingTimeInMillis: () => 1_500 }, () => chain.getBalance(who)),
    );
    expect(Date.now() - started).toBeLessThan(700);
    expect(error).toBeInstanceOf(AppError);
    expect(error).toMatchObject({
      status: 503,
      code: 'UPSTREAM_UNAVAILABLE',
      headers: { 'Retry-After': '1' },
      // Step Functions retries a launch task on this name, as it retried the Lambda timeout before.
      name: 'ChainTransientError',
    });
    local.clearFaults();

    // The send budget's wait counts too: at one send a second, the next send's turn does not fit 0.5 s.
    const tight = makeChain({ rpcUrl: local.url, pollMs: 50, budget: { send: 1 } });
    const from = await funded();
    await tight.sendAndConfirm(transfer(from, await newAddress(), SOL / 100n));
    const busy = await rejection(
      withDeadline({ getRemainingTimeInMillis: () => 1_250 }, () =>
        tight.sendAndConfirm(transfer(from, who, SOL / 100n)),
      ),
    );
    expect(busy).toMatchObject({ status: 503, code: 'UPSTREAM_UNAVAILABLE' });
    // A call's timeout is what the invocation has left: a node answering late ends in time, as a 503.
    local.injectFault({ method: 'getSlot', delayMs: 3_000 });
    const late = Date.now();
    const timedOut = await rejection(
      withDeadline({ getRemainingTimeInMillis: () => 1_500 }, () => chain.getSlot()),
    );
    expect(Date.now() - late).toBeLessThan(1_200);
    expect(timedOut).toMatchObject({ code: 'RPC_UNAVAILABLE', transient: true });
    local.clearFaults();
  });

  it('bids the 90th percentile of recent per-slot minimums: a congested fifth of the slots is not under-bid', () => {
    expect(PRIORITY_PERCENTILE).toBe(90);
    // 150 slots: 120 quiet at 1 000, the last 30 congested at 50 000 (each slot's value is its lowest landed price).
    const recent = [...Array(120).fill(1_000n), ...Array(30).fill(50_000n)] as bigint[];
    expect(priorityPrice(recent, 1_000_000n)).toBe(50_000n);
    // The former 75th percentile bid the quiet floor, below every transaction that landed in the congestion.
    expect(priorityPrice(recent, 1_000_000n, 75)).toBe(1_000n);
    expect(priorityPrice(recent, 20_000n)).toBe(20_000n);
  });

  it('bids the provider’s fee estimate when configured (getPriorityFeeEstimate, level High)', async () => {
    const hot = await newAddress();
    const from = await funded();
    local.ledger.advance(PRIORITIZATION_FEE_SLOTS);
    for (let i = 0; i < 8; i++) {
      await chain.sendAndConfirm(transfer(from, hot, 1_000_000n), {
        budget: { units: 1_000, microLamports: BigInt(10_000 * (i + 1)), signatures: 1, fee: 0n },
      });
      local.ledger.advance(1);
    }
    const provider = makeChain({ rpcUrl: local.url, pollMs: 50, fees: { source: 'helius' } });
    const plan = transfer(from, hot, SOL / 100n);
    const estimated = await provider.estimateBudget(plan);
    // The stand-in's High level is the 75th percentile of the 150 slots' values (8 non-zero): 0 here…
    expect(estimated.microLamports).toBe(0n);
    for (let i = 0; i < 140; i++) {
      await chain.sendAndConfirm(transfer(from, hot, 1_000_000n), {
        budget: { units: 1_000, microLamports: 30_000n, signatures: 1, fee: 0n },
      });
      local.ledger.advance(1);
    }
    // …and the congestion's price once most slots are busy; capped like the recent-fee bid.
    expect((await provider.estimateBudget(plan)).microLamports).toBe(30_000n);
    const capped = makeChain({
      rpcUrl: local.url,
      fees: { source: 'helius' },
      priorityFeeMaxMicroLamports: 25_000,
    });
    expect((await capped.estimateBudget(plan)).microLamports).toBe(25_000n);
  });
});
