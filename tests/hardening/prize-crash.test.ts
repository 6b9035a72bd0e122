// A tournament period's prize run under crashes and chain faults: for every crash point k = 0 … n (the process
// dies right before its (k+1)-th write; k = n: every write made, the outcome lost) and for a fault at every chain
// call of an uninterrupted run, on a fresh period, the close is retried as SQS redelivers it, and:
// - after the crash or fault, no winner received more than its prize once, and the vault lost no more;
// - after the retry, the period is closed, every landed prize was received exactly once, the vault lost exactly
//   what was sent plus the fees, and the pool's books allocated exactly the prizes paid, their fees and carries.
// Crash injection: tests/helpers/crash.ts.
import { describe, expect, it } from 'vitest';
import { sideEffects as settleDeps } from '../../functions/settlement/settle-game-days.js';
import type { SettlementDeps } from '../../lib/rewards/index.js';
import { poolBooks } from '../../lib/rewards/payout.js';
import { type PayoutRecord, payoutRecords } from '../../lib/rewards/settlement/repository.js';
import { crashPlan, installCrashHooks, underCrashPlan } from '../helpers/crash.js';
import { close, type Fixture, fixture, runOf } from '../helpers/prizes.js';
import { carryOf, chain, faultyChain, landedCommitments } from '../helpers/settlement.js';

interface Case {
  f: Fixture;
  before: bigint[];
  vaultBefore: bigint;
  allocatedBefore: bigint;
}

/** Two winners (the table pays ranks 1–3; only two players score), one of them without an account yet. */
const setup = async (): Promise<Case> => {
  const f = await fixture({ playerCount: 2 });
  const books = await poolBooks(f.seeded.gameId);
  return {
    f,
    before: await Promise.all(f.seeded.players.map((p) => chain.getBalance(p.wallet))),
    vaultBefore: await chain.getBalance(f.seeded.vaultAddress),
    allocatedBefore: books?.allocated ?? 0n,
  };
};

const gains = async (c: Case) => ({
  wallets: await Promise.all(
    c.f.seeded.players.map(async (p, i) => (await chain.getBalance(p.wallet)) - (c.before[i] ?? 0n)),
  ),
  vault: (await chain.getBalance(c.f.seeded.vaultAddress)) - c.vaultBefore,
});

/** What each winner's transfer sends: recorded with its signature (due − the fee charged), else its line's. */
const sentBy = async (c: Case) => {
  const run = await runOf(c.f).catch(() => undefined);
  const records = run ? await payoutRecords(c.f.seeded.gameId, run.day, c.f.message) : [];
  return new Map(
    (run?.lines ?? []).map((line) => {
      const record = records.find((r) => r.arcId === line.arcId);
      return [line.arcId, { line, record, send: BigInt(record?.signature ? record.send : line.send) }];
    }),
  );
};

/** Never more than once: each wallet gained 0 or its prize, the vault lost at most the prizes plus fees. */
const checkAtMostOnce = async (c: Case, out: string[], tag: string) => {
  const { wallets, vault } = await gains(c);
  const sent = await sentBy(c);
  let most = 0n;
  for (const [i, p] of c.f.seeded.players.entries()) {
    const mine = sent.get(p.arcId);
    most += BigInt(mine?.line.send ?? 0) + BigInt(mine?.line.fee ?? 0);
    const gained = wallets[i] ?? 0n;
    if (gained !== 0n && gained !== mine?.send)
      out.push(`${tag}: ${p.arcId} gained ${gained}, prize ${mine?.send}`);
  }
  // At most one commitment landed, and it is all the vault paid besides the prizes.
  const commitment = await landedCommitments(c.f.seeded.gameId, '', c.f.message);
  if (commitment.landed.length > 1) out.push(`${tag}: ${commitment.landed.length} commitments landed`);
  if (-vault > most + commitment.fee) out.push(`${tag}: the vault lost ${-vault} > ${most + commitment.fee}`);
};

/** One winner's prize, done: received once (sent + fee spent from the vault) or carried (owed, nothing spent). */
const checkPrize = async (
  c: Case,
  arcId: string,
  mine: { record?: PayoutRecord | undefined; send: bigint },
  gained: bigint,
  report: (message: string) => void,
) => {
  const { record } = mine;
  if (record?.status === 'confirmed') {
    if (gained !== mine.send) report(`${arcId} gained ${gained}, prize ${mine.send}`);
    const cost = mine.send + BigInt(record.fee);
    return { spent: cost, booked: cost };
  }
  if (record?.status !== 'carried') {
    report(`${arcId}'s prize is ${record?.status}`);
    return { spent: 0n, booked: 0n };
  }
  if (gained !== 0n) report(`${arcId} gained ${gained} on a carried prize`);
  const owed = await carryOf(c.f.seeded.gameId, arcId);
  if (owed !== BigInt(record.due)) report(`${arcId} carries ${owed}, due ${record.due}`);
  return { spent: 0n, booked: BigInt(record.due) };
};

/** Exactly once: closed, each winner paid its prize or carried it, the vault and the books match. */
const checkExactlyOnce = async (c: Case, out: string[], tag: string) => {
  const run = await runOf(c.f).catch(() => undefined);
  if (run?.status !== 'settled') {
    out.push(`${tag}: not closed (${run?.status})`);
    return;
  }
  const { wallets, vault } = await gains(c);
  const sent = await sentBy(c);
  let spent = 0n;
  let booked = 0n;
  for (const [i, p] of c.f.seeded.players.entries()) {
    const mine = sent.get(p.arcId);
    if (!mine) continue;
    const cost = await checkPrize(c, p.arcId, mine, wallets[i] ?? 0n, (m) => out.push(`${tag}: ${m}`));
    spent += cost.spent;
    booked += cost.booked;
  }
  // Exactly one commitment landed with the statement's root; its fee is allocated and spent besides the prizes.
  const commitment = await landedCommitments(c.f.seeded.gameId, '', c.f.message);
  if (commitment.landed.length !== 1 || commitment.record?.status !== 'confirmed')
    out.push(`${tag}: ${commitment.landed.length} commitments landed (${commitment.record?.status})`);
  if (commitment.record?.root !== run.statement?.root) out.push(`${tag}: the commitment's root moved`);
  if (-vault !== spent + commitment.fee)
    out.push(`${tag}: the vault lost ${-vault}, prizes ${spent} and commitment ${commitment.fee}`);
  const allocated =
    ((await poolBooks(c.f.seeded.gameId))?.allocated ?? 0n) - c.allocatedBefore - commitment.fee;
  if (allocated !== BigInt(run.allocated) || allocated !== booked)
    out.push(
      `${tag}: the books allocated ${allocated}, the run ${run.allocated}, paid and carried ${booked}`,
    );
};

/** SQS redelivers until it succeeds (at most 3 attempts here). */
const retry = async (c: Case, deps: Partial<SettlementDeps> = {}) => {
  for (let attempt = 1; ; attempt++) {
    try {
      return await close(c.f, c.f.closesAt, { confirmTimeoutMs: 10_000, ...deps });
    } catch (error) {
      if (attempt === 3) throw error;
    }
  }
};

describe('prize run crash points', () => {
  it('never pays twice after a crash before any write, and finishes on retry', async () => {
    installCrashHooks();
    const probe = await setup();
    const plan = crashPlan(Number.POSITIVE_INFINITY);
    await underCrashPlan(plan, () => close(probe.f));
    const violations: string[] = [];
    await checkExactlyOnce(probe, violations, 'uninterrupted');
    const writes = plan.writes.length;
    expect(writes).toBeGreaterThanOrEqual(6);
    for (let k = 0; k <= writes; k++) {
      const c = await setup();
      await underCrashPlan(crashPlan(k), () => close(c.f));
      await checkAtMostOnce(c, violations, `k=${k} crash`);
      await retry(c);
      await checkExactlyOnce(c, violations, `k=${k} retry`);
    }
    console.info(`prize run: ${writes} writes (${plan.writes.join(', ')}), ${writes + 1} crash points`);
    expect(violations).toEqual([]);
  }, 900_000);
});

describe('prize run chain faults', () => {
  it('finishes on retry after a fault at each chain call, never paying twice', async () => {
    const probe = await setup();
    const counted = faultyChain(settleDeps.chain, Number.POSITIVE_INFINITY, 'before');
    await close(probe.f, probe.f.closesAt, { chain: counted.chainDeps });
    const violations: string[] = [];
    await checkExactlyOnce(probe, violations, 'uninterrupted');
    const sends = counted.names.flatMap((name, i) => (name === 'sendAndConfirm' ? [i] : []));
    expect(sends.length).toBeGreaterThanOrEqual(1);
    const cases: Array<[number, 'before' | 'lost']> = [
      ...counted.names.map((_, i) => [i, 'before'] as [number, 'before']),
      ...sends.map((i) => [i, 'lost'] as [number, 'lost']),
    ];
    for (const [k, mode] of cases) {
      const c = await setup();
      await close(c.f, c.f.closesAt, {
        chain: faultyChain(settleDeps.chain, k, mode).chainDeps,
        confirmTimeoutMs: 10_000,
      }).catch(() => undefined);
      await checkAtMostOnce(c, violations, `call ${k} (${counted.names[k]}, ${mode}) fault`);
      await retry(c);
      await checkExactlyOnce(c, violations, `call ${k} (${counted.names[k]}, ${mode}) retry`);
    }
    console.info(`prize run: ${counted.names.length} chain calls (${counted.names.join(', ')})`);
    expect(violations).toEqual([]);
  }, 900_000);
});
