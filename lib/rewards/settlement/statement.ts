// A payout run's statement (docs/provable-payouts.md): what the run read (the frozen standings down to the last
// paid rank, the pool's figures, each recipient's carry and wallet) and what it allocated, line by line. Anyone
// holding a statement recomputes its lines with the allocation the run used (./allocation.ts: this module and that
// one are what the SDK's verifier imports, never a copy) and its merkle root, the one the run committed on chain
// before its first transfer.
//
// Encoding, byte for byte: each item is RFC 8785 canonical JSON (keys sorted, no spaces, lamports as decimal
// strings) in UTF-8. Item 0 is the header (version, game, run, inputs), items 1… are the lines in the run's order.
// A leaf is sha256(0x00 ‖ sha256(item)), in the tree the airdrop snapshots use (sorted pairs, node = sha256(0x01 ‖
// min ‖ max), the last node of an odd level hashed with itself: ./statement-tree.ts).
//
// Portable on purpose (no node:crypto, no Buffer, no package: WebCrypto's digest, so hashing is async): the SDK
// bundles this module for Node and browsers.
import { canonicalJson } from '../../core/canonical-json.js';
import type { PayoutRule } from '../model.js';
import {
  type AllocationInput,
  allocateDay,
  allocatePrizes,
  type PrizeAllocationInput,
} from './allocation.js';
import type { PayoutLine } from './model.js';
import { foldsTo, fromHex, proofOf, rootOf, sha256, toHex, treeLevels } from './statement-tree.js';

export const STATEMENT_VERSION = 1;

/** A recipient as the run read it: its wallet (null: none), that wallet's balance, and its carry. */
export interface StatementRecipient {
  arcId: string;
  wallet: string | null;
  /** Lamports on chain when the run froze (0: the account did not exist). */
  balance: string;
  carriedIn: string;
}

/** The pool's books as the run read them (lamports): what came in, what earlier runs allocated, what deposits hold. */
export interface PoolFigures {
  inflow: string;
  allocated: string;
  earmarked: string;
}

/** The figures of a pool's books (poolBooks), or zeros when the game has no pool. */
export const poolFigures = (
  books: { inflow: bigint; allocated: bigint; earmarked: bigint } | undefined,
): PoolFigures => ({
  inflow: String(books?.inflow ?? 0n),
  allocated: String(books?.allocated ?? 0n),
  earmarked: String(books?.earmarked ?? 0n),
});

interface CommonInputs {
  pool: PoolFigures;
  /** The pool's undistributed lamports before the run: inflow − allocated − earmarked. */
  undistributed: string;
  vaultReserve: string;
  rentExemptMinimum: string;
  /** The fee of one transfer, paid out of each sent line. */
  fee: string;
  /** The board in rank order, down to the last rank the rule pays. */
  standings: Array<{ rank: number; arcId: string; points: number }>;
  /** Everyone the run allocated to, by Arc ID. */
  recipients: StatementRecipient[];
}

export interface DayInputs extends CommonInputs {
  kind: 'day';
  rule: PayoutRule;
  /** The game's effective creators' split: Arc ID → basis points. */
  creatorSplit: Record<string, number>;
}

export interface PrizeInputs extends CommonInputs {
  kind: 'prize';
  poolBps: number;
  poolRoom: string;
  fund: string;
  earmarked: string;
  table: Array<{ fromRank: number; toRank: number; bps: number }>;
}

export interface Statement {
  version: typeof STATEMENT_VERSION;
  gameId: string;
  /** The UTC day of a daily settlement, or `<tournamentId>/<periodId>` of a prize run. */
  run: string;
  inputs: DayInputs | PrizeInputs;
  lines: PayoutLine[];
}

/** A run's name in its statement and its commitment's memo: the UTC day, or `<tournamentId>/<periodId>`. */
export const runName = (run: {
  day: string;
  prize?: { tournamentId: string; periodId: string } | undefined;
}) => (run.prize ? `${run.prize.tournamentId}/${run.prize.periodId}` : run.day);

/** The memo of a run's commitment: what the game's vault signs before the run's first transfer. */
export const statementMemo = (gameId: string, run: string, root: string): string =>
  `arcadia:statement:v1:${gameId}:${run}:${root}`;

/** The memo of a payout transfer, tying it to its run and line (or tournament prize) on chain. */
export const payoutMemo = (
  gameId: string,
  day: string,
  arcId: string,
  prize?: { tournamentId: string; periodId: string },
) =>
  prize
    ? `arcadia:prize:${gameId}:${prize.tournamentId}:${prize.periodId}:${arcId}`
    : `arcadia:payout:${gameId}:${day}:${arcId}`;

const recipientsOf = (input: AllocationInput | PrizeAllocationInput, lines: readonly PayoutLine[]) =>
  lines.map(
    (line): StatementRecipient => ({
      arcId: line.arcId,
      wallet: input.wallets.get(line.arcId)?.address ?? null,
      balance: (input.wallets.get(line.arcId)?.balance ?? 0n).toString(),
      carriedIn: (input.carried.get(line.arcId) ?? 0n).toString(),
    }),
  );

const standingsOf = (ranked: AllocationInput['ranked'], paidRanks: number) =>
  ranked.slice(0, paidRanks).map((s, i) => ({ rank: i + 1, arcId: s.arcId, points: s.points }));

/** The statement of a daily run, from the inputs its allocation was computed from and the lines it produced. */
export const dayStatement = (
  gameId: string,
  day: string,
  pool: PoolFigures,
  input: AllocationInput,
  lines: readonly PayoutLine[],
): Statement => ({
  version: STATEMENT_VERSION,
  gameId,
  run: day,
  inputs: {
    kind: 'day',
    pool,
    undistributed: input.undistributed.toString(),
    vaultReserve: input.vaultReserve.toString(),
    rentExemptMinimum: input.rentExemptMinimum.toString(),
    fee: input.fee.toString(),
    rule: { ...input.rule, playerShareByRankBps: [...input.rule.playerShareByRankBps] },
    creatorSplit: { ...input.creatorSplit },
    standings: standingsOf(input.ranked, input.rule.playerShareByRankBps.length),
    recipients: recipientsOf(input, lines),
  },
  lines: [...lines],
});

/** The last rank a prize table pays. */
const lastPaidRank = (table: PrizeAllocationInput['table']) => Math.max(0, ...table.map((r) => r.toRank));

/** The statement of a tournament period's prize run. */
export const prizeStatement = (
  gameId: string,
  run: { tournamentId: string; periodId: string },
  pool: PoolFigures,
  input: PrizeAllocationInput,
  lines: readonly PayoutLine[],
): Statement => ({
  version: STATEMENT_VERSION,
  gameId,
  run: runName({ day: '', prize: run }),
  inputs: {
    kind: 'prize',
    pool,
    undistributed: input.undistributed.toString(),
    vaultReserve: input.vaultReserve.toString(),
    rentExemptMinimum: input.rentExemptMinimum.toString(),
    fee: input.fee.toString(),
    poolBps: input.poolBps,
    poolRoom: input.poolRoom.toString(),
    fund: input.fund.toString(),
    earmarked: input.earmarked.toString(),
    table: input.table.map((r) => ({ fromRank: r.fromRank, toRank: r.toRank, bps: r.bps })),
    standings: standingsOf(input.ranked, lastPaidRank(input.table)),
    recipients: recipientsOf(input, lines),
  },
  lines: [...lines],
});

/** The canonical bytes of each item: the header, then every line. */
export const statementItems = (statement: Statement): Uint8Array[] => {
  const { lines, ...header } = statement;
  return [header, ...lines].map((item) => {
    const text = canonicalJson(item);
    if (text === undefined) throw new TypeError('a statement item has no canonical JSON');
    return new TextEncoder().encode(text);
  });
};

/** A leaf of the statement's tree: sha256(0x00 ‖ sha256(item)). */
export const statementLeaf = async (item: Uint8Array): Promise<Uint8Array> => {
  const data = new Uint8Array(33);
  data.set(await sha256(item), 1);
  return sha256(data);
};

/** The levels of the statement's merkle tree over its items (header first), leaves up. */
export const statementTree = async (statement: Statement): Promise<Uint8Array[][]> =>
  treeLevels(await Promise.all(statementItems(statement).map(statementLeaf)));

/** The root, hex: what the commitment's memo carries. */
export const statementRoot = async (statement: Statement): Promise<string> =>
  toHex(rootOf(await statementTree(statement)));

/** A line's leaf index in the tree, and its proof (hex hashes, leaves up) against the statement's root. */
export interface LineProof {
  line: PayoutLine;
  leafIndex: number;
  proof: string[];
  root: string;
}

/** A recipient's line with its proof against the statement's root. */
export const lineProof = async (statement: Statement, arcId: string): Promise<LineProof | undefined> => {
  const index = statement.lines.findIndex((line) => line.arcId === arcId);
  if (index < 0) return undefined;
  const levels = await statementTree(statement);
  return {
    line: statement.lines[index] as PayoutLine,
    leafIndex: index + 1,
    proof: proofOf(levels, index + 1).map(toHex),
    root: toHex(rootOf(levels)),
  };
};

const HEX_HASH = /^[0-9a-f]{64}$/;

/** Whether a line (as canonical JSON item) belongs to the tree of `root` by `proof`. */
export const verifyLineProof = async (
  line: PayoutLine,
  proof: readonly string[],
  root: string,
): Promise<boolean> => {
  const text = canonicalJson(line);
  if (text === undefined || !HEX_HASH.test(root) || !proof.every((h) => HEX_HASH.test(h))) return false;
  return foldsTo(await statementLeaf(new TextEncoder().encode(text)), proof.map(fromHex), fromHex(root));
};

/** One named check of a verification, with why it failed. */
export interface Check {
  name: string;
  ok: boolean;
  reason?: string;
}

const big = (value: string, what: string): bigint => {
  if (!/^(0|[1-9][0-9]*)$/.test(value)) throw new RangeError(`${what} is not a lamport amount: ${value}`);
  return BigInt(value);
};

/** The allocation inputs a statement states, as the allocation takes them. */
const landingOf = (inputs: Statement['inputs']) => ({
  undistributed: big(inputs.undistributed, 'undistributed'),
  vaultReserve: big(inputs.vaultReserve, 'vaultReserve'),
  rentExemptMinimum: big(inputs.rentExemptMinimum, 'rentExemptMinimum'),
  fee: big(inputs.fee, 'fee'),
  carried: new Map(inputs.recipients.map((r) => [r.arcId, big(r.carriedIn, `${r.arcId}'s carry`)])),
  wallets: new Map(
    inputs.recipients.flatMap((r) =>
      r.wallet === null
        ? []
        : [[r.arcId, { address: r.wallet, balance: big(r.balance, `${r.arcId}'s balance`) }]],
    ),
  ),
  ranked: inputs.standings.map((s) => ({ arcId: s.arcId, points: s.points })),
});

/** The lines the run's published rules give for the statement's inputs. */
export const recomputeLines = (statement: Statement): PayoutLine[] => {
  const { inputs } = statement;
  const landing = landingOf(inputs);
  if (inputs.kind === 'day')
    return allocateDay({ ...landing, creatorSplit: inputs.creatorSplit, rule: inputs.rule }).lines;
  return allocatePrizes({
    ...landing,
    poolBps: inputs.poolBps,
    poolRoom: big(inputs.poolRoom, 'poolRoom'),
    fund: big(inputs.fund, 'fund'),
    earmarked: big(inputs.earmarked, 'earmarked'),
    table: inputs.table,
  }).lines;
};

/** Why a standings list is not a board in rank order (ranks 1…n, points > 0 and never rising), or undefined. */
const standingsProblem = (standings: Statement['inputs']['standings']): string | undefined => {
  for (const [i, s] of standings.entries()) {
    if (s.rank !== i + 1) return `rank ${s.rank} at position ${i + 1}`;
    if (!(Number.isSafeInteger(s.points) && s.points > 0)) return `rank ${s.rank} has ${s.points} points`;
    const above = standings[i - 1];
    if (above && above.points < s.points) return `rank ${s.rank} has more points than rank ${above.rank}`;
  }
  const seen = new Set(standings.map((s) => s.arcId));
  return seen.size === standings.length ? undefined : 'a player is ranked twice';
};

/** The undistributed lamports the run allocated from are its pool's books: inflow − allocated − earmarked. */
const poolCheck = (inputs: Statement['inputs']): Check => {
  try {
    const { inflow, allocated, earmarked } = inputs.pool;
    const books = big(inflow, 'inflow') - big(allocated, 'allocated') - big(earmarked, 'earmarked');
    return books === big(inputs.undistributed, 'undistributed')
      ? { name: 'pool', ok: true }
      : {
          name: 'pool',
          ok: false,
          reason: `the books give ${books} undistributed lamports, the statement allocates from ${inputs.undistributed}`,
        };
  } catch (error) {
    return { name: 'pool', ok: false, reason: (error as Error).message };
  }
};

const describeLine = (line: PayoutLine | undefined) =>
  line ? `${line.arcId} send ${line.send} carry ${line.carryOut}` : 'none';

/**
 * The checks a statement passes on its own: the undistributed lamports are its pool's books, its standings are a
 * board in rank order, its lines are exactly what
 * the allocation gives for its inputs (same recipients, order and amounts, to the lamport), and its root is the
 * committed one when given. The chain checks (the commitment transaction, each transfer) are the verifier's.
 */
export const checkStatement = async (statement: Statement, committedRoot?: string): Promise<Check[]> => {
  const checks: Check[] = [];
  checks.push(poolCheck(statement.inputs));
  const problem = standingsProblem(statement.inputs.standings);
  checks.push(problem ? { name: 'standings', ok: false, reason: problem } : { name: 'standings', ok: true });
  let expected: PayoutLine[] | undefined;
  try {
    expected = recomputeLines(statement);
  } catch (error) {
    checks.push({ name: 'lines', ok: false, reason: (error as Error).message });
  }
  if (expected) {
    const count = Math.max(expected.length, statement.lines.length);
    let mismatch: string | undefined;
    for (let i = 0; i < count && !mismatch; i++) {
      const want = expected[i];
      const got = statement.lines[i];
      if (canonicalJson(want) !== canonicalJson(got))
        mismatch = `line ${i + 1}: the rules give ${describeLine(want)}, the statement says ${describeLine(got)}`;
    }
    checks.push(mismatch ? { name: 'lines', ok: false, reason: mismatch } : { name: 'lines', ok: true });
  }
  if (committedRoot !== undefined) {
    const root = await statementRoot(statement);
    checks.push(
      root === committedRoot.toLowerCase()
        ? { name: 'root', ok: true }
        : {
            name: 'root',
            ok: false,
            reason: `the statement hashes to ${root}, the commitment says ${committedRoot}`,
          },
    );
  }
  return checks;
};
