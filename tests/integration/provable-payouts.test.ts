// Provable payouts through the local stack: an honest daily run and an honest prize run verify end to end on the
// local chain with the SDK's verifyStatement (and its command), the public reads serve each run and each line
// with its proof, the webhook carries the root and the commitment, a run paid before statements says it has
// none, and every tampering an attacker could publish fails the check that names it.
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { DeleteCommand, ScanCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { generateKeyPairSigner } from '@solana/kit';
import { beforeAll, describe, expect, it } from 'vitest';
import { handler as getDay } from '../../functions/rewards/get-day-statement.js';
import { handler as getDayLine } from '../../functions/rewards/get-day-statement-line.js';
import { handler as getPrize } from '../../functions/rewards/get-prize-statement.js';
import { handler as getPrizeLine } from '../../functions/rewards/get-prize-statement-line.js';
import { handler as listRuns } from '../../functions/rewards/list-statements.js';
import { sideEffects as settleDeps } from '../../functions/settlement/settle-game-days.js';
import { dynamo } from '../../lib/adapters/dynamodb.js';
import { memoInstruction } from '../../lib/chain/index.js';
import { settings } from '../../lib/core/config.js';
import { buildCommitment, vaultSigner } from '../../lib/rewards/payout.js';
import { settlementKeys, settlementTable } from '../../lib/rewards/settlement/keys.js';
import { settleGameDay } from '../../lib/rewards/settlement/settle.js';
import { type PublishedRun, verifyLineProof, verifyStatement } from '../../sdk/src/statements.js';
import { invoke } from '../helpers/http.js';
import { close, fixture } from '../helpers/prizes.js';
import { chain, randomDay, type SeededDay, SOL, seedDay } from '../helpers/settlement.js';

const rpcUrl = () => process.env.SOLANA_RPC_URL ?? '';

const dayRun = async (gameId: string, day: string) =>
  invoke<{ data: PublishedRun }>(getDay, {
    method: 'GET',
    path: `/rewards/statements/${gameId}/days/${day}`,
    pathParameters: { gameId, day },
  });

const failedChecks = async (run: PublishedRun, vault: string) =>
  (await verifyStatement(run, rpcUrl(), { vault })).checks.filter((c) => !c.ok).map((c) => c.name);

/** A published run, as an attacker would change it: a deep copy edited in place. */
const tampered = (
  run: PublishedRun,
  edit: (copy: PublishedRun & { statement: NonNullable<PublishedRun['statement']> }) => void,
) => {
  const copy = structuredClone(run) as PublishedRun & { statement: NonNullable<PublishedRun['statement']> };
  edit(copy);
  return copy;
};

describe('a daily run, published and verified', () => {
  let seeded: SeededDay;
  let run: PublishedRun;

  beforeAll(async () => {
    seeded = await seedDay({ day: randomDay(), playerCount: 12 });
    const outcome = await settleGameDay(seeded.gameId, seeded.day, {
      ...settleDeps,
      now: () => seeded.after,
    });
    expect(outcome.status).toBe('settled');
    const res = await dayRun(seeded.gameId, seeded.day);
    expect(res.status).toBe(200);
    run = res.body.data;
  }, 240_000);

  it('verifies end to end: every rule, the root, the commitment before the transfers, each transfer', async () => {
    const result = await verifyStatement(run, rpcUrl(), { vault: seeded.vaultAddress });
    expect(result.checks.filter((c) => !c.ok)).toEqual([]);
    expect(result.ok).toBe(true);
    const names = result.checks.map((c) => c.name);
    expect(names.slice(0, 7)).toEqual(['run', 'pool', 'standings', 'lines', 'root', 'vault', 'commitment']);
    expect(names.at(-1)).toBe('order');
    expect(names.filter((n) => n.startsWith('payout '))).toHaveLength(run.payouts.length);
    expect(run).toMatchObject({
      kind: 'day',
      run: seeded.day,
      status: 'settled',
      vaultAddress: seeded.vaultAddress,
      commitment: {
        status: 'confirmed',
        memo: `arcadia:statement:v1:${seeded.gameId}:${seeded.day}:${run.root}`,
        feeLamports: '5000',
        reason: null,
      },
    });
    // Both confirmed and carried lines are published, each as it went.
    expect(run.payouts.some((p) => p.status === 'confirmed')).toBe(true);
    expect(run.payouts.some((p) => p.status === 'carried')).toBe(true);
  });

  it('lists the run with its root and commitment, newest day first, in cursor pages', async () => {
    const res = await invoke<{ data: Array<Record<string, unknown>>; meta: { nextCursor: string | null } }>(
      listRuns,
      {
        method: 'GET',
        path: `/rewards/statements/${seeded.gameId}`,
        pathParameters: { gameId: seeded.gameId },
        query: { limit: '1' },
      },
    );
    expect(res.status).toBe(200);
    expect(res.body.data).toEqual([
      expect.objectContaining({
        run: seeded.day,
        root: run.root,
        commitment: { status: 'confirmed', signature: run.commitment?.signature },
      }),
    ]);
    // One run only: the next page is empty.
    const next = await invoke<{ data: unknown[]; meta: { nextCursor: string | null } }>(listRuns, {
      method: 'GET',
      path: `/rewards/statements/${seeded.gameId}`,
      pathParameters: { gameId: seeded.gameId },
      query: { limit: '1', cursor: res.body.meta.nextCursor ?? seeded.day },
    });
    expect(next.status).toBe(200);
    expect(next.body.data).toEqual([]);
    expect(next.body.meta.nextCursor).toBeNull();
    const bad = await invoke(listRuns, {
      method: 'GET',
      path: `/rewards/statements/${seeded.gameId}`,
      pathParameters: { gameId: seeded.gameId },
      query: { cursor: 'DAY#x' },
    });
    expect(bad.status).toBe(400);
  });

  it("serves a recipient's line with a proof that checks against the committed root", async () => {
    for (const line of run.statement?.lines ?? []) {
      const res = await invoke<{
        data: {
          line: typeof line;
          proof: string[];
          root: string;
          leafIndex: number;
          payout: { status: string };
        };
      }>(getDayLine, {
        method: 'GET',
        path: `/rewards/statements/${seeded.gameId}/days/${seeded.day}/lines/${line.arcId}`,
        pathParameters: { gameId: seeded.gameId, day: seeded.day, arcId: line.arcId },
      });
      expect(res.status).toBe(200);
      expect(res.body.data.root).toBe(run.root);
      expect(res.body.data.line).toEqual(line);
      expect(await verifyLineProof(res.body.data.line, res.body.data.proof, run.root ?? '')).toBe(true);
      expect(
        await verifyLineProof(
          { ...line, due: `${BigInt(line.due) + 1n}` },
          res.body.data.proof,
          run.root ?? '',
        ),
      ).toBe(false);
    }
  });

  it('answers 404 for a recipient without a line, a day that never ran and an unknown game; 400 for a bad day', async () => {
    const get = (gameId: string, day: string, arcId?: string) =>
      arcId
        ? invoke(getDayLine, { method: 'GET', path: '/', pathParameters: { gameId, day, arcId } })
        : invoke(getDay, { method: 'GET', path: '/', pathParameters: { gameId, day } });
    const message = async (res: Promise<{ status: number; body: { error?: { message?: string } } }>) => {
      const { status, body } = await res;
      return `${status} ${body.error?.message}`;
    };
    expect(await message(get(seeded.gameId, seeded.day, 'nobody'))).toBe('404 Line not found');
    expect(await message(get(seeded.gameId, '2019-01-01'))).toBe('404 Settlement not found');
    // The game is read beside the run: its absence, not the run's, is the answer.
    for (const arcId of [undefined, 'nobody'])
      expect(await message(get('00000000-0000-4000-8000-000000000000', seeded.day, arcId))).toBe(
        '404 Game not found',
      );
    const bad = await get(seeded.gameId, '2026-13');
    expect(bad.status).toBe(400);
    expect(bad.body).toMatchObject({ error: { code: 'VALIDATION_ERROR' } });
  });

  it('sends settlement.completed with the root and the commitment', async () => {
    const { Items = [] } = await dynamo().send(
      new ScanCommand({
        TableName: settings().WEBHOOKS_TABLE,
        FilterExpression: 'gameId = :g AND #t = :t',
        ExpressionAttributeNames: { '#t': 'type' },
        ExpressionAttributeValues: { ':g': seeded.gameId, ':t': 'settlement.completed' },
      }),
    );
    expect(Items).toHaveLength(1);
    expect(JSON.parse(String(Items[0]?.payload)).data.statement).toEqual({
      root: run.root,
      commitment: run.commitment?.signature,
    });
  });

  describe('every tampering fails the check that names it', () => {
    const sentLine = (copy: PublishedRun & { statement: NonNullable<PublishedRun['statement']> }) => {
      const line = copy.statement.lines.find((l) => l.send !== '0');
      if (!line) throw new Error('no sent line');
      return line;
    };

    it('a line changed after the commitment', async () => {
      const elsewhere = (await generateKeyPairSigner()).address;
      const copy = tampered(run, (c) => {
        sentLine(c).wallet = elsewhere;
      });
      const failed = await failedChecks(copy, seeded.vaultAddress);
      expect(failed).toEqual(expect.arrayContaining(['lines', 'root']));
      // And its transfer no longer matches it: the wallet it names received nothing.
      expect(failed.some((name) => name.startsWith('payout '))).toBe(true);
    });

    it('a line dropped', async () => {
      const copy = tampered(run, (c) => {
        c.statement.lines.pop();
      });
      expect(await failedChecks(copy, seeded.vaultAddress)).toEqual(
        expect.arrayContaining(['lines', 'root']),
      );
    });

    it('a line added', async () => {
      const copy = tampered(run, (c) => {
        c.statement.lines.push({ ...sentLine(c), arcId: 'stranger' });
      });
      expect(await failedChecks(copy, seeded.vaultAddress)).toEqual(
        expect.arrayContaining(['lines', 'root']),
      );
    });

    it('an amount off by one lamport', async () => {
      const copy = tampered(run, (c) => {
        const line = sentLine(c);
        line.send = `${BigInt(line.send) + 1n}`;
        line.due = `${BigInt(line.due) + 1n}`;
        line.share = `${BigInt(line.share) + 1n}`;
      });
      expect(await failedChecks(copy, seeded.vaultAddress)).toEqual(
        expect.arrayContaining(['lines', 'root']),
      );
    });

    it('standings reordered', async () => {
      const copy = tampered(run, (c) => {
        const [a, b] = c.statement.inputs.standings;
        if (!a || !b) throw new Error('no standings');
        [a.arcId, b.arcId] = [b.arcId, a.arcId];
      });
      expect(await failedChecks(copy, seeded.vaultAddress)).toEqual(
        expect.arrayContaining(['lines', 'root']),
      );
      const worse = tampered(run, (c) => {
        const [a, b] = c.statement.inputs.standings;
        if (!a || !b) throw new Error('no standings');
        [a.points, b.points] = [b.points, a.points];
      });
      expect(await failedChecks(worse, seeded.vaultAddress)).toContain('standings');
    });

    it('a commitment with the same memo, signed by another key', async () => {
      const stranger = await generateKeyPairSigner();
      await chain.airdrop(stranger.address, SOL);
      const memo = run.commitment?.memo ?? '';
      const signature = await chain.sendAndConfirm({
        feePayer: stranger.address,
        instructions: [memoInstruction(memo, stranger)],
      });
      const copy = tampered(run, (c) => {
        if (c.commitment) c.commitment.signature = signature;
      });
      const result = await verifyStatement(copy, rpcUrl(), { vault: seeded.vaultAddress });
      expect(result.checks.filter((c) => !c.ok)).toEqual([
        expect.objectContaining({
          name: 'commitment',
          reason: expect.stringContaining('not signed by the game'),
        }),
        expect.objectContaining({ name: 'order' }),
      ]);
    });

    it('a commitment signed by the vault, landed after the first payout', async () => {
      const vault = await vaultSigner(seeded.gameId);
      const signature = await chain.sendAndConfirm(
        buildCommitment({ vault, memo: run.commitment?.memo ?? '' }),
      );
      const copy = tampered(run, (c) => {
        if (c.commitment) c.commitment.signature = signature;
      });
      const result = await verifyStatement(copy, rpcUrl(), { vault: seeded.vaultAddress });
      expect(result.checks.filter((c) => !c.ok)).toEqual([
        expect.objectContaining({
          name: 'order',
          reason: expect.stringContaining('not before the payout'),
        }),
      ]);
    });

    it('another vault than the game’s', async () => {
      const other = await generateKeyPairSigner();
      expect(await failedChecks(run, other.address)).toEqual(expect.arrayContaining(['vault', 'commitment']));
    });
  });

  it('the command prints every check ✓ against the running API and chain', async () => {
    const { stdout } = await promisify(execFile)(
      process.execPath,
      [
        '--import',
        'tsx',
        'sdk/src/cli.ts',
        'verify',
        seeded.gameId,
        seeded.day,
        '--api',
        process.env.API_BASE_URL ?? '',
        '--rpc',
        rpcUrl(),
      ],
      { timeout: 60_000 },
    );
    const lines = stdout.trim().split('\n');
    expect(lines.at(-1)).toBe('verified');
    const checks = lines.slice(1, -1);
    expect(checks.length).toBeGreaterThanOrEqual(9);
    for (const line of checks) expect(line).toMatch(/^✓ /);
  }, 90_000);

  it('a run paid before statements existed says it has none', async () => {
    const TableName = settlementTable();
    await dynamo().send(
      new DeleteCommand({ TableName, Key: settlementKeys.statement(seeded.gameId, seeded.day) }),
    );
    await dynamo().send(
      new UpdateCommand({
        TableName,
        Key: settlementKeys.settlement(seeded.gameId, seeded.day),
        UpdateExpression: 'REMOVE statement',
      }),
    );
    await dynamo().send(
      new DeleteCommand({ TableName, Key: settlementKeys.commitment(seeded.gameId, seeded.day) }),
    );
    const res = await dayRun(seeded.gameId, seeded.day);
    expect(res.status).toBe(200);
    expect(res.body.data).toMatchObject({ statement: null, root: null, commitment: null });
    expect(res.body.data.payouts.length).toBeGreaterThan(0);
    const result = await verifyStatement(res.body.data, rpcUrl());
    expect(result).toEqual({
      ok: false,
      checks: [
        expect.objectContaining({ name: 'statement', reason: expect.stringContaining('before statements') }),
      ],
    });
  });
});

describe('a prize run, published and verified', () => {
  it('verifies end to end, serves each line with its proof, and sends tournament.period.paid with the root', async () => {
    const f = await fixture({ playerCount: 3 });
    await close(f);
    const params = { gameId: f.seeded.gameId, tournamentId: f.tournamentId, periodId: f.periodId };
    const res = await invoke<{ data: PublishedRun }>(getPrize, {
      method: 'GET',
      path: '/',
      pathParameters: params,
    });
    expect(res.status).toBe(200);
    const run = res.body.data;
    expect(run).toMatchObject({ kind: 'prize', run: `${f.tournamentId}/${f.periodId}`, status: 'settled' });
    const result = await verifyStatement(run, rpcUrl(), { vault: f.seeded.vaultAddress });
    expect(result.checks.filter((c) => !c.ok)).toEqual([]);
    for (const line of run.statement?.lines ?? []) {
      const proved = await invoke<{ data: { proof: string[]; root: string } }>(getPrizeLine, {
        method: 'GET',
        path: '/',
        pathParameters: { ...params, arcId: line.arcId },
      });
      expect(proved.status).toBe(200);
      expect(await verifyLineProof(line, proved.body.data.proof, run.root ?? '')).toBe(true);
    }
    const listed = await invoke<{ data: Array<{ run: string; root: string }> }>(listRuns, {
      method: 'GET',
      path: '/',
      pathParameters: { gameId: f.seeded.gameId },
      query: { tournamentId: f.tournamentId },
    });
    expect(listed.body.data.map((r) => [r.run, r.root])).toEqual([[run.run, run.root]]);
    const { Items = [] } = await dynamo().send(
      new ScanCommand({
        TableName: settings().WEBHOOKS_TABLE,
        FilterExpression: 'gameId = :g AND #t = :t',
        ExpressionAttributeNames: { '#t': 'type' },
        ExpressionAttributeValues: { ':g': f.seeded.gameId, ':t': 'tournament.period.paid' },
      }),
    );
    expect(JSON.parse(String(Items[0]?.payload)).data.statement).toEqual({
      root: run.root,
      commitment: run.commitment?.signature,
    });
  }, 240_000);
});
