// Provable payouts (docs/provable-payouts.md): the allocation rules and the statement code the platform runs
// (bundled from its own modules, not copied), and `verifyStatement`, which checks a published run against its
// rules and against the chain. Portable: fetch and WebCrypto (and bs58 for the memos on chain).
import bs58 from 'bs58';
import {
  type Check,
  checkStatement,
  payoutMemo,
  type Statement,
  statementMemo,
} from '../../lib/rewards/settlement/statement.js';
import type { components } from './openapi.generated.js';

export {
  type AllocationInput,
  allocateDay,
  allocatePrizes,
  type PrizeAllocationInput,
} from '../../lib/rewards/settlement/allocation.js';
export type { PayoutLine } from '../../lib/rewards/settlement/model.js';
export {
  type Check,
  checkStatement,
  type LineProof,
  lineProof,
  payoutMemo,
  recomputeLines,
  STATEMENT_VERSION,
  type Statement,
  statementItems,
  statementLeaf,
  statementMemo,
  statementRoot,
  verifyLineProof,
} from '../../lib/rewards/settlement/statement.js';

/** A run as `GET /rewards/statements/{gameId}/days/{day}` (or `…/prizes/{tournamentId}/{periodId}`) publishes it. */
export type PublishedRun = components['schemas']['RunStatement'];

export interface VerifyStatementOptions {
  /**
   * The game's vault, from a source you trust (`GET /rewards/game-rewards-pool/{gameId}`, or the game's page):
   * the commitment and every transfer must be its. Default: the run's own `vaultAddress`.
   */
  vault?: string;
  fetch?: typeof fetch;
}

export interface Verification {
  ok: boolean;
  checks: Check[];
}

const MEMO_PROGRAM = 'MemoSq4gqABAXKb96qnH8TysNcWxMyWCqXgDLGmfcHr';

/** The parts of a `getTransaction` answer (encoding `json`) the checks read. */
interface ChainTransaction {
  slot: number;
  transaction: {
    signatures: string[];
    message: {
      accountKeys: string[];
      header: { numRequiredSignatures: number };
      instructions: Array<{ programIdIndex: number; accounts: number[]; data: string }>;
    };
  };
  meta: { err: unknown; fee: number; preBalances: number[]; postBalances: number[] } | null;
}

const rpcCall = async <T>(
  rpcUrl: string,
  fetcher: typeof fetch,
  method: string,
  params: unknown[],
): Promise<T> => {
  const response = await fetcher(rpcUrl, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ jsonrpc: '2.0', id: 1, method, params }),
  });
  if (!response.ok) throw new Error(`the RPC answered ${method} with ${response.status}`);
  const body = (await response.json()) as { result?: T; error?: { message?: string } };
  if (body.error) throw new Error(`the RPC refused ${method}: ${body.error.message ?? 'unknown error'}`);
  return body.result as T;
};

const rpcTransaction = async (rpcUrl: string, signature: string, fetcher: typeof fetch) =>
  (await rpcCall<ChainTransaction | null>(rpcUrl, fetcher, 'getTransaction', [
    signature,
    { encoding: 'json', maxSupportedTransactionVersion: 0, commitment: 'confirmed' },
  ])) ?? undefined;

const memosOf = (tx: ChainTransaction): string[] => {
  const { accountKeys, instructions } = tx.transaction.message;
  return instructions
    .filter((ix) => accountKeys[ix.programIdIndex] === MEMO_PROGRAM)
    .map((ix) => new TextDecoder().decode(bs58.decode(ix.data)));
};

const signersOf = (tx: ChainTransaction) =>
  tx.transaction.message.accountKeys.slice(0, tx.transaction.message.header.numRequiredSignatures);

/** Lamports an account gained in the transaction (negative: lost). */
const delta = (tx: ChainTransaction, account: string): bigint | undefined => {
  const i = tx.transaction.message.accountKeys.indexOf(account);
  if (i < 0 || !tx.meta) return undefined;
  return BigInt(tx.meta.postBalances[i] ?? 0) - BigInt(tx.meta.preBalances[i] ?? 0);
};

const pass = (name: string): Check => ({ name, ok: true });
const fail = (name: string, reason: string): Check => ({ name, ok: false, reason });

/** The commitment: on chain, landed, signed by the vault, its memo the run's root. Its slot, when it landed. */
const checkCommitment = async (
  run: PublishedRun,
  statement: Statement,
  vault: string,
  rpc: (signature: string) => Promise<ChainTransaction | undefined>,
): Promise<{ check: Check; landed?: { signature: string; slot: number } }> => {
  const name = 'commitment';
  const commitment = run.commitment;
  if (!commitment?.signature)
    return {
      check: fail(
        name,
        commitment?.reason ? `none was sent: ${commitment.reason}` : 'the run names no commitment',
      ),
    };
  const tx = await rpc(commitment.signature);
  if (!tx?.meta) return { check: fail(name, `${commitment.signature} is not on chain`) };
  if (tx.meta.err !== null) return { check: fail(name, `${commitment.signature} failed on chain`) };
  if (!signersOf(tx).includes(vault))
    return { check: fail(name, `${commitment.signature} is not signed by the game's vault ${vault}`) };
  const memo = statementMemo(statement.gameId, statement.run, run.root ?? '');
  if (!memosOf(tx).includes(memo))
    return { check: fail(name, `its memo is not ${memo} (found: ${memosOf(tx).join(' | ') || 'none'})`) };
  return { check: pass(name), landed: { signature: commitment.signature, slot: tx.slot } };
};

/** What a paid line's transaction shows, or why it does not show the payment the run says it made. */
const transferProblem = (
  tx: ChainTransaction | undefined,
  expected: { vault: string; wallet: string; sent: bigint; due: bigint; memo: string },
): string | undefined => {
  if (!tx?.meta || tx.meta.err !== null) return 'not a landed transaction';
  if (!signersOf(tx).includes(expected.vault)) return 'not signed by the vault';
  const fee = BigInt(tx.meta.fee);
  const gained = delta(tx, expected.wallet) ?? 0n;
  if (gained !== expected.sent) return `${expected.wallet} gained ${gained}, the run says ${expected.sent}`;
  const lost = -(delta(tx, expected.vault) ?? 0n);
  if (lost !== expected.sent + fee) return `the vault lost ${lost}, not ${expected.sent + fee}`;
  if (expected.sent + fee !== expected.due)
    return `sent ${expected.sent} + fee ${fee} is not the line's due ${expected.due}`;
  if (!memosOf(tx).includes(expected.memo)) return `its memo does not name the run (${expected.memo})`;
  return undefined;
};

/** A line's transfer: the vault sent it to the line's wallet, due = sent + fee, and named the run. */
const checkTransfer = async (
  run: PublishedRun,
  statement: Statement,
  index: number,
  vault: string,
  rpc: (signature: string) => Promise<ChainTransaction | undefined>,
): Promise<{ check: Check; landed?: { signature: string; slot: number } }> => {
  const line = statement.lines[index];
  const payout = run.payouts.find((p) => p.arcId === line?.arcId);
  const name = `payout ${index + 1} (${line?.arcId})`;
  if (!line || !payout) return { check: fail(name, 'the run publishes no payout for this line') };
  if (payout.status === 'carried')
    return {
      check:
        BigInt(line.send) === 0n || payout.reason
          ? { name, ok: true, reason: `carried over: ${payout.reason ?? 'it could not land'}` }
          : fail(name, 'carried without a reason'),
    };
  if (payout.status !== 'confirmed' || !payout.signature)
    return { check: fail(name, `not paid (${payout.status})`) };
  if (!line.wallet) return { check: fail(name, 'paid, but the line has no wallet') };
  const prize =
    run.tournamentId && run.periodId ? { tournamentId: run.tournamentId, periodId: run.periodId } : undefined;
  const tx = await rpc(payout.signature);
  const problem = transferProblem(tx, {
    vault,
    wallet: line.wallet,
    sent: BigInt(payout.sentLamports),
    due: BigInt(line.due),
    memo: payoutMemo(statement.gameId, run.day, line.arcId, prize),
  });
  return problem
    ? { check: fail(name, `${payout.signature}: ${problem}`) }
    : { check: pass(name), ...(tx ? { landed: { signature: payout.signature, slot: tx.slot } } : {}) };
};

/**
 * The commitment landed before the run's first transfer: in an earlier slot, or earlier in the same slot (the
 * vault's signature history lists a slot's transactions in their order in its block, newest first).
 */
const orderCheck = async (
  committed: { signature: string; slot: number } | undefined,
  transfers: ReadonlyArray<{ signature: string; slot: number }>,
  olderThan: (signature: string) => Promise<string[]>,
): Promise<Check> => {
  if (!committed) return fail('order', 'no commitment landed');
  for (const transfer of transfers) {
    const before =
      transfer.slot > committed.slot ||
      (transfer.slot === committed.slot &&
        (await olderThan(transfer.signature)).includes(committed.signature));
    if (!before)
      return fail(
        'order',
        `the commitment landed in slot ${committed.slot}, not before the payout ${transfer.signature} (slot ${transfer.slot})`,
      );
  }
  return pass('order');
};

/**
 * Verify a published run: its lines are what the rules give for its inputs, its root is theirs, the commitment
 * on chain is the game's vault's, carries that root and landed before every transfer, and each paid line's
 * transfer moved exactly what the run says, from the vault to the line's wallet. Each check names what failed.
 */
export const verifyStatement = async (
  run: PublishedRun,
  rpcUrl: string,
  options: VerifyStatementOptions = {},
): Promise<Verification> => {
  const statement = run.statement as Statement | null;
  if (!statement || !run.root)
    return {
      ok: false,
      checks: [fail('statement', 'this run was paid before statements existed: it has none')],
    };
  const checks: Check[] = [];
  checks.push(
    statement.gameId === run.gameId && statement.run === run.run
      ? pass('run')
      : fail('run', `the statement is of ${statement.gameId} ${statement.run}, not ${run.gameId} ${run.run}`),
  );
  checks.push(...(await checkStatement(statement, run.root)));
  const vault = options.vault ?? run.vaultAddress ?? '';
  checks.push(
    run.vaultAddress === vault
      ? pass('vault')
      : fail('vault', `the run names ${run.vaultAddress}, the game's vault is ${vault}`),
  );
  const fetcher = options.fetch ?? fetch;
  const cache = new Map<string, Promise<ChainTransaction | undefined>>();
  const rpc = (signature: string) => {
    const found = cache.get(signature) ?? rpcTransaction(rpcUrl, signature, fetcher);
    cache.set(signature, found);
    return found;
  };
  const committed = await checkCommitment(run, statement, vault, rpc);
  checks.push(committed.check);
  const transfers: Array<{ signature: string; slot: number }> = [];
  for (let i = 0; i < statement.lines.length; i++) {
    const transfer = await checkTransfer(run, statement, i, vault, rpc);
    checks.push(transfer.check);
    if (transfer.landed) transfers.push(transfer.landed);
  }
  const olderThan = async (signature: string) =>
    (
      await rpcCall<Array<{ signature: string }>>(rpcUrl, fetcher, 'getSignaturesForAddress', [
        vault,
        { before: signature, limit: 1000, commitment: 'confirmed' },
      ])
    ).map((entry) => entry.signature);
  checks.push(await orderCheck(committed.landed, transfers, olderThan));
  return { ok: checks.every((c) => c.ok), checks };
};
