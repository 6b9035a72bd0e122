// A payout run's statement (lib/rewards/settlement/statement.ts): its lines are recomputed from its inputs with the
// allocation the run used, its root is over canonical items, and each line's proof checks against the root. Each
// tampering an attacker could try on a published statement fails a named check.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { canonicalJson } from '../../lib/core/canonical-json.js';
import {
  type AllocationInput,
  allocateDay,
  allocatePrizes,
  type PrizeAllocationInput,
} from '../../lib/rewards/settlement/allocation.js';
import {
  checkStatement,
  dayStatement,
  lineProof,
  prizeStatement,
  type Statement,
  statementItems,
  statementRoot,
  verifyLineProof,
} from '../../lib/rewards/settlement/statement.js';
import { foldsTo, proofOf, rootOf, treeLevels } from '../../lib/rewards/settlement/statement-tree.js';
import { buildTree, proofFor } from '../../lib/snapshots/merkle/tree.js';

const RULE = {
  payoutHorizonDays: 30,
  creatorShareBps: 2_000,
  playerShareBps: 8_000,
  playerShareByRankBps: [2_500, 1_800, 1_300, 1_000, 800, 700, 600, 500, 450, 350],
};
const wallet = (i: number) => `Wallet${String(i).padStart(38, '1')}`;

/** A day with 12 players on the board (10 paid), two creators (one also a player), a carry and a walletless player. */
const dayInput = (): AllocationInput => {
  const ranked = Array.from({ length: 12 }, (_, i) => ({
    arcId: `player-${i + 1}`,
    points: 5_000 - i * 100,
  }));
  const wallets = new Map(
    ranked
      .filter((_, i) => i !== 4)
      .map((p, i) => [p.arcId, { address: wallet(i), balance: i % 3 === 0 ? 0n : 1_000_000n }]),
  );
  wallets.set('creator-a', { address: wallet(90), balance: 5_000_000n });
  return {
    undistributed: 90_000_000_000n,
    vaultReserve: 890_880n,
    creatorSplit: { 'creator-a': 7_000, 'player-2': 3_000 },
    ranked,
    carried: new Map([['player-3', 123_456n]]),
    wallets,
    rentExemptMinimum: 890_880n,
    fee: 5_000n,
    rule: RULE,
  };
};

/** Books whose undistributed lamports are `undistributed` (inflow − allocated − earmarked). */
const booksOf = (undistributed: bigint) => ({
  inflow: (undistributed + 7_000_000n + 3_000n).toString(),
  allocated: '7000000',
  earmarked: '3000',
});

const honestDay = (): Statement => {
  const input = dayInput();
  return dayStatement('game-1', '2026-11-30', booksOf(input.undistributed), input, allocateDay(input).lines);
};

const failed = async (statement: Statement, root?: string) =>
  (await checkStatement(statement, root)).filter((c) => !c.ok);

describe('a daily statement', () => {
  it('passes every check, down to the last paid rank only', async () => {
    const statement = honestDay();
    expect(statement.inputs.standings).toHaveLength(10);
    expect(statement.lines.length).toBeGreaterThanOrEqual(11);
    const root = await statementRoot(statement);
    expect(root).toMatch(/^[0-9a-f]{64}$/);
    expect(await checkStatement(statement, root)).toEqual([
      { name: 'pool', ok: true },
      { name: 'standings', ok: true },
      { name: 'lines', ok: true },
      { name: 'root', ok: true },
    ]);
  });

  it('encodes each item as canonical JSON: the header first, then the lines in order', async () => {
    const statement = honestDay();
    const items = statementItems(statement).map((b) => new TextDecoder().decode(b));
    expect(items).toHaveLength(statement.lines.length + 1);
    expect(JSON.parse(items[0] ?? '')).toMatchObject({ version: 1, gameId: 'game-1', run: '2026-11-30' });
    expect(items[1]).toBe(canonicalJson(statement.lines[0]));
    // Keys sorted, no whitespace, lamports as strings.
    expect(items[1]).toMatch(
      /^\{"arcId":"[^"]+","carriedIn":"\d+","carryOut":"\d+","due":"\d+","fee":"\d+",/,
    );
  });

  it('gives every line a proof that checks against the root, and none to a changed line', async () => {
    const statement = honestDay();
    const root = await statementRoot(statement);
    for (const line of statement.lines) {
      const proved = await lineProof(statement, line.arcId);
      expect(proved?.root).toBe(root);
      expect(await verifyLineProof(line, proved?.proof ?? [], root)).toBe(true);
      expect(
        await verifyLineProof({ ...line, send: String(BigInt(line.send) + 1n) }, proved?.proof ?? [], root),
      ).toBe(false);
    }
    expect(await lineProof(statement, 'nobody')).toBeUndefined();
  });
});

describe("the statements' portable tree", () => {
  it("is the airdrop snapshots' tree: the same root and proofs for any leaves", async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.array(fc.uint8Array({ minLength: 32, maxLength: 32 }), { minLength: 1, maxLength: 70 }),
        async (leaves) => {
          const ours = await treeLevels(leaves);
          const theirs = buildTree(leaves);
          expect(Buffer.from(rootOf(ours)).toString('hex')).toBe(theirs.root.toString('hex'));
          for (let i = 0; i < leaves.length; i++) {
            const proof = proofOf(ours, i);
            expect(proof.map((h) => Buffer.from(h).toString('hex'))).toEqual(
              proofFor(theirs.levels, i).map((h) => h.toString('hex')),
            );
            expect(await foldsTo(leaves[i] as Uint8Array, proof, rootOf(ours))).toBe(true);
          }
        },
      ),
      { numRuns: 60 },
    );
  });
});

describe('a tampered statement fails the check that names it', () => {
  const sent = (s: Statement) => s.lines.findIndex((l) => l.send !== '0');

  it('a line changed after the commitment: lines and root', async () => {
    const honest = honestDay();
    const root = await statementRoot(honest);
    const tampered = structuredClone(honest);
    const i = sent(tampered);
    const line = tampered.lines[i];
    if (!line) throw new Error('no sent line');
    line.wallet = wallet(77);
    expect((await failed(tampered, root)).map((c) => c.name)).toEqual(['lines', 'root']);
  });

  it('an amount off by one lamport', async () => {
    const honest = honestDay();
    const root = await statementRoot(honest);
    const tampered = structuredClone(honest);
    const line = tampered.lines[sent(tampered)];
    if (!line) throw new Error('no sent line');
    line.send = String(BigInt(line.send) - 1n);
    line.carryOut = '1';
    const failures = await failed(tampered, root);
    expect(failures.map((c) => c.name)).toEqual(['lines', 'root']);
    expect(failures[0]?.reason).toMatch(/the rules give .* send \d+ carry 0, the statement says .* carry 1/);
  });

  it('a line dropped, or one added', async () => {
    const honest = honestDay();
    const root = await statementRoot(honest);
    const dropped = structuredClone(honest);
    dropped.lines.pop();
    expect((await failed(dropped, root)).map((c) => c.name)).toEqual(['lines', 'root']);
    const added = structuredClone(honest);
    added.lines.push({ ...(added.lines[0] as Statement['lines'][number]), arcId: 'stranger' });
    expect((await failed(added, root)).map((c) => c.name)).toEqual(['lines', 'root']);
  });

  it('standings reordered: the board is out of order, and its lines no longer follow', async () => {
    const honest = honestDay();
    const root = await statementRoot(honest);
    const tampered = structuredClone(honest);
    const [first, second] = tampered.inputs.standings;
    if (!first || !second) throw new Error('short board');
    [first.arcId, second.arcId] = [second.arcId, first.arcId];
    const names = (await failed(tampered, root)).map((c) => c.name);
    expect(names).toContain('lines');
    expect(names).toContain('root');
    // Points swapped too, so the order stands: still the lines and the root.
    const swapped = structuredClone(tampered);
    const [a, b] = swapped.inputs.standings;
    if (!a || !b) throw new Error('short board');
    a.points = 6_000;
    expect((await failed(swapped, root)).map((c) => c.name)).toEqual(['lines', 'root']);
    // A board whose points rise is refused outright.
    const rising = structuredClone(honest);
    const [top, next] = rising.inputs.standings;
    if (!top || !next) throw new Error('short board');
    next.points = top.points + 1;
    expect((await failed(rising)).map((c) => c.name)).toContain('standings');
  });

  it('inputs and lines rewritten together recompute, but the root no longer matches the commitment', async () => {
    const input = dayInput();
    const honest = dayStatement(
      'game-1',
      '2026-11-30',
      booksOf(input.undistributed),
      input,
      allocateDay(input).lines,
    );
    const root = await statementRoot(honest);
    const richer = { ...input, undistributed: input.undistributed * 2n };
    // Inputs inflated alone: the pool's books no longer give them.
    const inflated = dayStatement(
      'game-1',
      '2026-11-30',
      booksOf(input.undistributed),
      richer,
      allocateDay(richer).lines,
    );
    expect((await failed(inflated)).map((c) => c.name)).toEqual(['pool']);
    const rewritten = dayStatement(
      'game-1',
      '2026-11-30',
      booksOf(richer.undistributed),
      richer,
      allocateDay(richer).lines,
    );
    expect((await failed(rewritten)).map((c) => c.name)).toEqual([]);
    expect((await failed(rewritten, root)).map((c) => c.name)).toEqual(['root']);
  });

  it('an amount that is not a lamport count is a failed check, not a crash', async () => {
    const tampered = structuredClone(honestDay());
    tampered.inputs.fee = '-5000';
    expect(await failed(tampered)).toEqual([
      { name: 'lines', ok: false, reason: 'fee is not a lamport amount: -5000' },
    ]);
    tampered.inputs.fee = '5000';
    tampered.inputs.pool.inflow = '1e9';
    expect(await failed(tampered)).toEqual([
      { name: 'pool', ok: false, reason: 'inflow is not a lamport amount: 1e9' },
    ]);
  });
});

describe('a prize statement', () => {
  const prizeInput = (): PrizeAllocationInput => {
    const ranked = Array.from({ length: 6 }, (_, i) => ({ arcId: `p-${i + 1}`, points: 900 - i * 10 }));
    return {
      undistributed: 20_000_000_000n,
      vaultReserve: 890_880n,
      poolBps: 1_000,
      poolRoom: 10_000_000_000n,
      fund: 1_000_000_000n,
      earmarked: 1_000_000_000n,
      table: [
        { fromRank: 1, toRank: 1, bps: 5_000 },
        { fromRank: 2, toRank: 3, bps: 2_000 },
      ],
      ranked,
      carried: new Map(),
      wallets: new Map(ranked.map((p, i) => [p.arcId, { address: wallet(i), balance: 10n ** 9n }])),
      rentExemptMinimum: 890_880n,
      fee: 5_000n,
    };
  };

  it('passes, lists the board down to the last paid rank, and fails a changed prize', async () => {
    const input = prizeInput();
    const statement = prizeStatement(
      'game-1',
      { tournamentId: 't-1', periodId: '2026-11-30' },
      booksOf(input.undistributed),
      input,
      allocatePrizes(input).lines,
    );
    expect(statement.run).toBe('t-1/2026-11-30');
    expect(statement.inputs.standings.map((s) => s.rank)).toEqual([1, 2, 3]);
    const root = await statementRoot(statement);
    expect(await failed(statement, root)).toEqual([]);
    const tampered = structuredClone(statement);
    const top = tampered.lines[0];
    if (!top) throw new Error('no prize');
    top.send = String(BigInt(top.send) + 1n);
    expect((await failed(tampered, root)).map((c) => c.name)).toEqual(['lines', 'root']);
  });
});

describe('any honest day', () => {
  it('verifies, and moving one lamport between two lines fails it (property)', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.bigInt({ min: 0n, max: 10n ** 12n }),
        fc.integer({ min: 1, max: 12 }),
        fc.bigInt({ min: 0n, max: 10n ** 7n }),
        async (undistributed, players, carry) => {
          const base = dayInput();
          const input = {
            ...base,
            undistributed,
            ranked: base.ranked.slice(0, players),
            carried: new Map([['player-1', carry]]),
          };
          const statement = dayStatement(
            'g',
            '2026-01-01',
            booksOf(undistributed),
            input,
            allocateDay(input).lines,
          );
          const root = await statementRoot(statement);
          expect(await failed(statement, root)).toEqual([]);
          const movable = statement.lines.findIndex((l) => BigInt(l.send) > 0n);
          const other = statement.lines.findIndex((l, i) => i !== movable && BigInt(l.send) > 0n);
          if (movable < 0 || other < 0) return;
          const tampered = structuredClone(statement);
          const from = tampered.lines[movable];
          const to = tampered.lines[other];
          if (!from || !to) return;
          from.send = String(BigInt(from.send) - 1n);
          to.send = String(BigInt(to.send) + 1n);
          expect((await failed(tampered, root)).map((c) => c.name)).toEqual(['lines', 'root']);
        },
      ),
      { seed: 20261202, numRuns: 60 },
    );
  });
});
