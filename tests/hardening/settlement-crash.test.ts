// The daily settlement under crashes and chain faults (issue 19): for every crash point k = 0 … n (the process
// dies right before its (k+1)-th write; k = n: every write made, the outcome lost) and for a fault at every chain
// call of an uninterrupted run, on a fresh seeded day, the run is retried as SQS redelivers it, and:
// - after the crash or fault, no recipient received more than its line once, and the vault lost no more;
// - after the retry, the day is settled, every landed line was received exactly once, the vault lost exactly
//   what was sent plus the fees, and the emission port got the frozen players (at least once; it is idempotent).
// Crash injection: tests/helpers/crash.ts.
import { describe, expect, it } from 'vitest';
import { sideEffects as settleDeps } from '../../functions/settlement/settle-game-days.js';
import { getSettlement } from '../../lib/rewards/settlement/repository.js';
import { type SettlementDeps, settleGameDay } from '../../lib/rewards/settlement/settle.js';
import { crashPlan, installCrashHooks, underCrashPlan } from '../helpers/crash.js';
import {
  chain,
  faultyChain,
  landedCommitments,
  payoutOf,
  randomDay,
  type SeededDay,
  seedDay,
} from '../helpers/settlement.js';

type ChainDeps = SettlementDeps['chain'];

interface Fixture {
  seeded: SeededDay;
  wallets: string[];
  before: bigint[];
  vaultBefore: bigint;
  emissions: number;
}

const setup = async (): Promise<Fixture> => {
  const seeded = await seedDay({ day: randomDay(), playerCount: 3 });
  const wallets = [...seeded.creators, ...seeded.players].map((m) => m.wallet);
  return {
    seeded,
    wallets,
    before: await Promise.all(wallets.map((w) => chain.getBalance(w))),
    vaultBefore: await chain.getBalance(seeded.vaultAddress),
    emissions: 0,
  };
};

const depsFor = (f: Fixture, chainDeps: ChainDeps = settleDeps.chain): SettlementDeps => ({
  ...settleDeps,
  chain: chainDeps,
  now: () => f.seeded.after,
  confirmTimeoutMs: 10_000,
  settleCoinEmission: async () => {
    f.emissions++;
  },
});

/** What each wallet and the vault gained since the fixture was seeded. */
const deltas = async (f: Fixture) => ({
  wallets: await Promise.all(
    f.wallets.map(async (w, i) => (await chain.getBalance(w)) - (f.before[i] ?? 0n)),
  ),
  vault: (await chain.getBalance(f.seeded.vaultAddress)) - f.vaultBefore,
});

/**
 * What a line's transfer sent: recorded with its signature (due − the fee the chain charges, a priority fee
 * included), else the frozen line's plan.
 */
const sentOf = async (f: Fixture, arcId: string, planned: string | undefined): Promise<bigint> => {
  const record = await payoutOf(f.seeded.gameId, f.seeded.day, arcId);
  return BigInt(record?.signature ? record.send : (planned ?? 0));
};

/** Never more than once: each wallet gained 0 or its line, the vault lost at most the lines plus fees. */
const checkAtMostOnce = async (f: Fixture, out: string[], tag: string) => {
  const settlement = await getSettlement(f.seeded.gameId, f.seeded.day);
  const { wallets, vault } = await deltas(f);
  const members = [...f.seeded.creators, ...f.seeded.players];
  let maxOut = 0n;
  for (const [i, m] of members.entries()) {
    const line = settlement?.lines.find((l) => l.arcId === m.arcId);
    maxOut += BigInt(line?.send ?? 0) + BigInt(line?.fee ?? 0);
    const send = await sentOf(f, m.arcId, line?.send);
    const gained = wallets[i] ?? 0n;
    if (gained !== 0n && gained !== send) out.push(`${tag}: ${m.arcId} gained ${gained}, line ${send}`);
  }
  // At most one commitment landed, and it is all the vault paid besides the lines.
  const commitment = await landedCommitments(f.seeded.gameId, f.seeded.day);
  if (commitment.landed.length > 1) out.push(`${tag}: ${commitment.landed.length} commitments landed`);
  if (-vault > maxOut + commitment.fee)
    out.push(`${tag}: the vault lost ${-vault} > ${maxOut + commitment.fee}`);
};

/** Exactly once: settled, each wallet gained its line, the vault lost the lines plus their fees. */
const checkExactlyOnce = async (f: Fixture, out: string[], tag: string) => {
  const settlement = await getSettlement(f.seeded.gameId, f.seeded.day);
  if (settlement?.status !== 'settled') {
    out.push(`${tag}: not settled (${settlement?.status})`);
    return;
  }
  const { wallets, vault } = await deltas(f);
  const members = [...f.seeded.creators, ...f.seeded.players];
  let spent = 0n;
  for (const [i, m] of members.entries()) {
    const line = settlement.lines.find((l) => l.arcId === m.arcId);
    spent += BigInt(line?.send ?? 0) + BigInt(line?.fee ?? 0);
    const send = await sentOf(f, m.arcId, line?.send);
    if ((wallets[i] ?? 0n) !== send) out.push(`${tag}: ${m.arcId} gained ${wallets[i]}, line ${send}`);
  }
  // Exactly one commitment landed, confirmed, with the statement's root, before the lines.
  const commitment = await landedCommitments(f.seeded.gameId, f.seeded.day);
  if (commitment.landed.length !== 1 || commitment.record?.status !== 'confirmed')
    out.push(`${tag}: ${commitment.landed.length} commitments landed (${commitment.record?.status})`);
  if (commitment.record?.root !== settlement.statement?.root) out.push(`${tag}: the commitment's root moved`);
  if (-vault !== spent + commitment.fee)
    out.push(`${tag}: the vault lost ${-vault}, lines ${spent} and commitment ${commitment.fee}`);
  if (f.emissions < 1) out.push(`${tag}: the emission port was not called`);
};

/** SQS redelivers until it succeeds (at most 3 attempts here). */
const retry = async (f: Fixture, deps: SettlementDeps) => {
  for (let attempt = 1; ; attempt++) {
    try {
      return await settleGameDay(f.seeded.gameId, f.seeded.day, deps);
    } catch (error) {
      if (attempt === 3) throw error;
    }
  }
};

describe('settlement crash points', () => {
  it('leaves no double payment after a crash before any write, and finishes on retry', async () => {
    installCrashHooks();
    const probe = await setup();
    const plan = crashPlan(Number.POSITIVE_INFINITY);
    await underCrashPlan(plan, () => settleGameDay(probe.seeded.gameId, probe.seeded.day, depsFor(probe)));
    const violations: string[] = [];
    await checkExactlyOnce(probe, violations, 'uninterrupted');
    const writes = plan.writes.length;
    expect(writes).toBeGreaterThanOrEqual(10);
    for (let k = 0; k <= writes; k++) {
      const f = await setup();
      await underCrashPlan(crashPlan(k), () => settleGameDay(f.seeded.gameId, f.seeded.day, depsFor(f)));
      await checkAtMostOnce(f, violations, `k=${k} crash`);
      await retry(f, depsFor(f));
      await checkExactlyOnce(f, violations, `k=${k} retry`);
    }
    console.info(`settlement: ${writes} writes (${plan.writes.join(', ')}), ${writes + 1} crash points`);
    expect(violations).toEqual([]);
  }, 900_000);
});

describe('settlement chain faults', () => {
  it('finishes on retry after a fault at each chain call, never paying twice', async () => {
    const probe = await setup();
    const counted = faultyChain(settleDeps.chain, Number.POSITIVE_INFINITY, 'before');
    await settleGameDay(probe.seeded.gameId, probe.seeded.day, depsFor(probe, counted.chainDeps));
    const violations: string[] = [];
    await checkExactlyOnce(probe, violations, 'uninterrupted');
    const sends = counted.names.flatMap((name, i) => (name === 'sendAndConfirm' ? [i] : []));
    const cases: Array<[number, 'before' | 'lost' | 'recordedUnsent']> = [
      ...counted.names.map((_, i) => [i, 'before'] as [number, 'before']),
      ...sends.map((i) => [i, 'lost'] as [number, 'lost']),
      ...sends.slice(0, 1).map((i) => [i, 'recordedUnsent'] as [number, 'recordedUnsent']),
    ];
    for (const [k, mode] of cases) {
      const f = await setup();
      await settleGameDay(
        f.seeded.gameId,
        f.seeded.day,
        depsFor(f, faultyChain(settleDeps.chain, k, mode).chainDeps),
      ).catch(() => undefined);
      await checkAtMostOnce(f, violations, `call ${k} (${counted.names[k]}, ${mode}) fault`);
      // A recorded transfer that never reached the chain is resent once its blockhash has expired.
      const later: ChainDeps = {
        ...settleDeps.chain,
        getBlockHeight: async () => (await chain.getBlockHeight()) + 1_000,
      };
      await retry(f, depsFor(f, mode === 'recordedUnsent' ? later : settleDeps.chain));
      await checkExactlyOnce(f, violations, `call ${k} (${counted.names[k]}, ${mode}) retry`);
    }
    console.info(
      `settlement: ${counted.names.length} chain calls (${counted.names.join(', ')}), ${cases.length} faults`,
    );
    expect(violations).toEqual([]);
  }, 900_000);
});
