// Airdrop snapshots and claims against the local stack: a real game coin (launch steps of
// lib/launcher/coin-steps.ts on the stack's local chain), a classic SPL airdrop token with several holders, the
// SQS builder (crash + retry, partial batch failures), the snapshot endpoints, and claim transactions executed
// on chain.
// Fixtures go through the API's chain adapter (@solana/kit); the claim transactions the API returns are decoded,
// co-signed and sent by a @solana/web3.js client, as players' wallets do, which proves wire compatibility.
// The claim functions' metrics are read from their output: enabled before any module builds them.
import '../helpers/enable-metrics.js';
import { createHash, randomUUID } from 'node:crypto';
import { GetQueueUrlCommand, ReceiveMessageCommand, SQSClient } from '@aws-sdk/client-sqs';
import { PutCommand } from '@aws-sdk/lib-dynamodb';
import {
  type Address,
  address,
  type Base64EncodedWireTransaction,
  createAddressWithSeed,
  type KeyPairSigner,
} from '@solana/kit';
// The client side: a player's wallet decodes the claim transaction the API returns, co-signs and sends it.
import {
  getAssociatedTokenAddressSync,
  getOrCreateAssociatedTokenAccount,
  transfer as splTransfer,
  TOKEN_2022_PROGRAM_ID,
} from '@solana/spl-token';
import { Keypair, PublicKey, Transaction } from '@solana/web3.js';
import {
  getCreateAccountWithSeedInstruction,
  getTransferSolInstruction,
  SYSTEM_PROGRAM_ADDRESS,
} from '@solana-program/system';
import {
  findAssociatedTokenPda,
  getCreateAssociatedTokenIdempotentInstruction,
  getMintToInstruction,
  getTransferCheckedInstruction,
  TOKEN_PROGRAM_ADDRESS,
} from '@solana-program/token';
import type { SQSEvent } from 'aws-lambda';
import bs58 from 'bs58';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { handler as updateGameHandler } from '../../functions/games/update-game.js';
import {
  sideEffects as buildClaimDeps,
  handler as buildClaimHandler,
} from '../../functions/snapshots/build-claim-transactions.js';
import {
  sideEffects as builderDeps,
  handler as buildSnapshotsHandler,
} from '../../functions/snapshots/build-snapshots.js';
import { handler as claimStatusHandler } from '../../functions/snapshots/get-claim-status.js';
import { handler as getSnapshotHandler } from '../../functions/snapshots/get-snapshot.js';
import { handler as proofHandler } from '../../functions/snapshots/get-snapshot-proof.js';
import { handler as holdersHandler } from '../../functions/snapshots/list-snapshot-holders.js';
import { dynamo } from '../../lib/adapters/dynamodb.js';
import {
  makeChain,
  memoInstruction,
  TOKEN_2022_PROGRAM_ADDRESS,
  type TransactionPlan,
} from '../../lib/chain/index.js';
import { newKeypair } from '../../lib/chain/spl.js';
import { listAirdropCoins } from '../../lib/games/index.js';
import { getGame, linkCoin, saveGame } from '../../lib/games/repository.js';
import * as coin from '../../lib/launcher/coin.js';
import * as steps from '../../lib/launcher/coin-steps.js';
import { buildSnapshot, processSnapshotBatch } from '../../lib/snapshots/builder.js';
import { buildClaimTransactions } from '../../lib/snapshots/claims/claims.js';
import { migrateLegacyClaims } from '../../lib/snapshots/claims/migration.js';
import { findVaultAddress } from '../../lib/snapshots/coins.js';
import { buildDistribution, leafHash, verifyProof } from '../../lib/snapshots/merkle.js';
import { sendSnapshotMessages } from '../../lib/snapshots/queue.js';
import {
  deleteLegacyClaim,
  getClaimRecord,
  getSummary,
  listClaimCoins,
  listLegacyClaims,
  putMigratedClaim,
} from '../../lib/snapshots/repository.js';
import { scheduleSnapshots } from '../../lib/snapshots/schedule.js';
import { putSnapshotObjects } from '../../lib/snapshots/storage.js';
import { registerGame } from '../helpers/games.js';
import { invoke } from '../helpers/http.js';
import { keypairWalletSigner } from '../helpers/keypair-signer.js';
import { metricTotal, stdoutRecords } from '../helpers/metrics.js';
import { recordCompletedLaunch } from '../helpers/snapshot-coin.js';
import { createMint, createTokenAccount } from '../helpers/spl-fixtures.js';
import { createDeveloper, hmacHeaders } from '../helpers/users.js';
import { localConnection } from '../helpers/web3-connection.js';
import {
  type Receiver,
  startDeliveryWorker,
  subscribeReceiver,
  verifiedPayloads,
  waitFor,
} from '../helpers/webhooks.js';

const SOL = 1_000_000_000n;
const TOKEN = 1_000_000n; // airdrop token: 6 decimals
const POOL = 100_000_000_000_000n; // 10 % of the coin's 10^15 base units
const chain = makeChain({ rpcUrl: process.env.SOLANA_RPC_URL ?? '', pollMs: 50 });

type Body<T> = { data: T; error?: { code: string; message: string } };

/** A player's wallet talks to the RPC node itself (web3.js), not through the API's chain adapter. */
const client = localConnection();

const send = (plan: TransactionPlan) => chain.sendAndConfirm(plan);

/** Mint `amount` to the owner's ATA (created idempotently, so amount 0 leaves an empty account). */
const mintToOwner = async (authority: KeyPairSigner, mint: Address, owner: PublicKey, amount: bigint) => {
  const [ata] = await findAssociatedTokenPda({
    mint,
    owner: address(owner.toBase58()),
    tokenProgram: TOKEN_PROGRAM_ADDRESS,
  });
  await send({
    feePayer: authority.address,
    instructions: [
      getCreateAssociatedTokenIdempotentInstruction({
        payer: authority,
        ata,
        owner: address(owner.toBase58()),
        mint,
      }),
      ...(amount > 0n ? [getMintToInstruction({ mint, token: ata, mintAuthority: authority, amount })] : []),
    ],
  });
};

/** A second, non-associated token account of `owner` holding `amount`. */
const mintToExtraAccount = async (
  authority: KeyPairSigner,
  mint: Address,
  owner: PublicKey,
  amount: bigint,
) => {
  const account = await createTokenAccount(chain, authority, { mint, owner: address(owner.toBase58()) });
  await send({
    feePayer: authority.address,
    instructions: [getMintToInstruction({ mint, token: account, mintAuthority: authority, amount })],
  });
};

/** A launched coin (mint + supply in the custodial vault) on a game whose airdrop token has these holders. */
const setUp = async () => {
  const { signer: payer } = await newKeypair();
  await chain.airdrop(payer.address, 5n * SOL);
  const userId = randomUUID();
  const signer = keypairWalletSigner(() => payer);
  const sealed = await coin.generateLaunchKeys();
  const launch = { userId, keys: await coin.openLaunchKeys(sealed) };
  const deps = { chain, signer };
  await steps.createCoinMint(deps, launch, { name: 'Snap', symbol: 'SNAP', uri: 'https://a.example/c.json' });
  await steps.mintCoinSupply(deps, launch);

  const holders = {
    a: Keypair.generate(),
    b: Keypair.generate(),
    c: Keypair.generate(),
    d: Keypair.generate(),
  };
  const airdropMint = await createMint(chain, payer); // classic SPL Token, 6 decimals, payer as mint authority
  await mintToOwner(payer, airdropMint, holders.a.publicKey, 100n * TOKEN);
  await mintToOwner(payer, airdropMint, holders.b.publicKey, 200n * TOKEN);
  await mintToExtraAccount(payer, airdropMint, holders.b.publicKey, 100n * TOKEN); // aggregated with B's ATA
  await mintToOwner(payer, airdropMint, holders.c.publicKey, 0n); // zero balance: excluded
  await mintToOwner(payer, airdropMint, holders.d.publicKey, TOKEN / 2n); // below 1 whole token: excluded

  const dev = await createDeveloper();
  const view = await registerGame(dev);
  const game = await getGame(view.id);
  if (!game) throw new Error('game missing');
  const coinMint = sealed.coinMint;
  const now = new Date().toISOString();
  // Launched 8 days ago with 7 emission days: the whole airdrop pool is due, so the first snapshot releases it.
  const launchedAt = new Date(Date.now() - 8 * 86_400_000).toISOString();
  await saveGame(
    {
      ...game,
      version: game.version + 1,
      airdropTokenAddress: airdropMint,
      coin: {
        coinMint,
        gameCoinSymbol: 'SNAP',
        emissionDays: 7,
        status: 'active',
        emissionStartAt: launchedAt,
        emissionEndAt: now,
      },
    },
    game,
  );
  await linkCoin(coinMint, game.id);
  await recordCompletedLaunch({ gameId: game.id, userId, sealed, symbol: 'SNAP', name: 'Snap' });
  return {
    coinMint,
    airdropMint,
    holders,
    vault: launch.keys.vault.address,
    vaultSigner: launch.keys.vault,
    gameId: game.id,
    dev,
    payer,
  };
};

const sqsEvent = (records: Array<{ messageId: string; body: string }>): SQSEvent =>
  ({
    Records: records.map((r) => ({ ...r, attributes: {}, eventSource: 'aws:sqs' })),
  }) as unknown as SQSEvent;

const expected = (holders: { a: Keypair; b: Keypair }) => ({
  a: POOL / 4n, // 100 of 400 eligible tokens
  b: (POOL * 3n) / 4n, // 300 (two accounts) of 400
  root: buildDistribution([
    { claimant: holders.a.publicKey.toBytes(), amountUnlocked: POOL / 4n },
    { claimant: holders.b.publicKey.toBytes(), amountUnlocked: (POOL * 3n) / 4n },
  ]).tree.root.toString('hex'),
});

let ctx: Awaited<ReturnType<typeof setUp>>;
beforeAll(async () => {
  ctx = await setUp();
}, 120_000);

describe('snapshot builder (SQS)', () => {
  it('retried after a crash between the objects and the summary, produces the same root; nothing more due keeps the version', async () => {
    const { a, b, root } = expected(ctx.holders);
    let crashedRoot: string | undefined;
    const crashing = {
      ...builderDeps,
      putObjects: async (objects: Parameters<typeof putSnapshotObjects>[0]) => {
        await putSnapshotObjects(objects);
        crashedRoot = /-([0-9a-f]{16})\//.exec(objects[0]?.key ?? '')?.[1];
        throw new Error('simulated crash after writing the objects');
      },
    };
    await expect(buildSnapshot(ctx.coinMint, crashing)).rejects.toThrow('simulated crash');
    expect(await getSummary(ctx.coinMint)).toBeUndefined();
    expect(crashedRoot).toBe(root.slice(0, 16));

    const result = await buildSnapshotsHandler(
      sqsEvent([
        { messageId: 'ok', body: JSON.stringify({ coinMint: ctx.coinMint }) },
        { messageId: 'malformed', body: '{"coinMint": 42}' },
        { messageId: 'not-json', body: 'nope' },
      ]),
    );
    expect(result).toEqual({
      batchItemFailures: [{ itemIdentifier: 'malformed' }, { itemIdentifier: 'not-json' }],
    });
    const summary = await getSummary(ctx.coinMint);
    expect(summary).toMatchObject({
      merkleRoot: root,
      holderCount: 2,
      totalAllocation: (a + b).toString(),
      version: 1,
      airdropMint: ctx.airdropMint,
    });
    expect(a + b).toBe(POOL);

    const again = await buildSnapshot(ctx.coinMint, builderDeps);
    expect(again.status).toBe('unchanged');
    expect((await getSummary(ctx.coinMint))?.version).toBe(1);
  });

  it('reports only the failed items of a batch', async () => {
    const result = await processSnapshotBatch(
      [
        { messageId: '1', body: JSON.stringify({ coinMint: ctx.coinMint }) },
        { messageId: '2', body: JSON.stringify({ coinMint: Keypair.generate().publicKey.toBase58() }) },
        { messageId: '3', body: JSON.stringify({ coinMint: ctx.coinMint }) },
      ],
      async (mint) => {
        if (mint !== ctx.coinMint) throw new Error('RPC down');
        return { status: 'skipped', reason: 'test' };
      },
    );
    expect(result.batchItemFailures).toEqual([{ itemIdentifier: '2' }]);
  });

  it('the schedule queues one message per coin whose game has an airdrop token', async () => {
    // This run's messages carry its own requestedAt: the schedule run by tests/http/schedules.test.ts may queue
    // this coin on the same queue meanwhile.
    const requestedAt = new Date(Date.now() - Math.floor(Math.random() * 1_000_000));
    const { queued } = await scheduleSnapshots({
      listAirdropCoins,
      sendSnapshotMessages,
      now: () => requestedAt,
    });
    expect(queued).toBeGreaterThanOrEqual(1);
    const sqs = new SQSClient({ useQueueUrlAsEndpoint: false });
    const { QueueUrl } = await sqs.send(new GetQueueUrlCommand({ QueueName: 'arcadia-dev-snapshots' }));
    const ours = (body: string) =>
      body.includes(ctx.coinMint) && body.includes(`"requestedAt":"${requestedAt.toISOString()}"`);
    const bodies: string[] = [];
    const deadline = Date.now() + 10_000;
    while (Date.now() < deadline && !bodies.some(ours)) {
      const { Messages = [] } = await sqs.send(
        new ReceiveMessageCommand({ QueueUrl, MaxNumberOfMessages: 10, WaitTimeSeconds: 1 }),
      );
      bodies.push(...Messages.map((m) => m.Body ?? ''));
    }
    const mine = bodies.filter(ours);
    expect(mine).toHaveLength(1);
    expect(JSON.parse(mine[0] as string)).toMatchObject({ coinMint: ctx.coinMint });
  });

  it('skips a mint that is no game coin with an airdrop token (acknowledged, not retried)', async () => {
    const outcome = await buildSnapshot(Keypair.generate().publicKey.toBase58(), builderDeps);
    expect(outcome.status).toBe('skipped');
  });
});

describe('snapshot endpoints', () => {
  const get = <T>(
    handler: typeof getSnapshotHandler,
    path: string,
    params: Record<string, string>,
    query?: Record<string, string>,
  ) => invoke<Body<T>>(handler, { method: 'GET', path, pathParameters: params, ...(query ? { query } : {}) });

  it('serves the summary; 404 for an unknown coin, 400 for a malformed one', async () => {
    const ok = await get<{
      merkleRoot: string;
      holderCount: number;
      slot: number;
      readSlots: { first: number; last: number };
    }>(getSnapshotHandler, `/token-launcher/snapshot/${ctx.coinMint}`, { tokenMint: ctx.coinMint });
    expect(ok.status).toBe(200);
    expect(ok.body.data).toMatchObject({
      tokenMint: ctx.coinMint,
      merkleRoot: expected(ctx.holders).root,
      holderCount: 2,
      version: 1,
    });
    // The slot range the holder pages were read at, after the slot read before them.
    const { slot, readSlots } = ok.body.data;
    expect(readSlots.first).toBeGreaterThanOrEqual(slot);
    expect(readSlots.last).toBeGreaterThanOrEqual(readSlots.first);
    const unknown = Keypair.generate().publicKey.toBase58();
    expect(
      (await get(getSnapshotHandler, `/token-launcher/snapshot/${unknown}`, { tokenMint: unknown })).status,
    ).toBe(404);
    const bad = await get(getSnapshotHandler, '/token-launcher/snapshot/not-an-address', {
      tokenMint: 'not-an-address',
    });
    expect(bad.status).toBe(400);
    expect(bad.body.error?.code).toBe('VALIDATION_ERROR');
  });

  it('serves a proof that verifies with verifyProof; a tampered one does not', async () => {
    const user = ctx.holders.b.publicKey;
    const res = await get<{ amount: string; index: number; proof: string[]; merkleRoot: string }>(
      proofHandler,
      `/token-launcher/snapshot/${ctx.coinMint}/proof/${user.toBase58()}`,
      { tokenMint: ctx.coinMint, userAddress: user.toBase58() },
    );
    expect(res.status).toBe(200);
    expect(res.body.data).toMatchObject({ tokenMint: ctx.coinMint, userAddress: user.toBase58() });
    const { amount, proof, merkleRoot } = res.body.data;
    expect(amount).toBe(((POOL * 3n) / 4n).toString());
    const root = Buffer.from(merkleRoot, 'hex');
    const siblings = proof.map((h) => Buffer.from(h, 'hex'));
    expect(verifyProof(leafHash(user.toBytes(), BigInt(amount)), siblings, root)).toBe(true);
    expect(verifyProof(leafHash(user.toBytes(), BigInt(amount) + 1n), siblings, root)).toBe(false);
    const flipped = siblings.map((s) => Buffer.from(s));
    const head = flipped[0] as Buffer;
    head.writeUInt8(head.readUInt8(0) ^ 1, 0);
    expect(verifyProof(leafHash(user.toBytes(), BigInt(amount)), flipped, root)).toBe(false);
  });

  it('answers 404 for zero-balance, below-minimum and unknown wallets; 400 for a malformed one', async () => {
    for (const wallet of [
      ctx.holders.c.publicKey.toBase58(),
      ctx.holders.d.publicKey.toBase58(),
      ctx.vault,
    ]) {
      const res = await get(proofHandler, `/token-launcher/snapshot/${ctx.coinMint}/proof/${wallet}`, {
        tokenMint: ctx.coinMint,
        userAddress: wallet,
      });
      expect(res.status, wallet).toBe(404);
      expect(res.body.error?.code).toBe('NOT_FOUND');
    }
    const bad = await get(proofHandler, `/token-launcher/snapshot/${ctx.coinMint}/proof/0OIl`, {
      tokenMint: ctx.coinMint,
      userAddress: '0OIl',
    });
    expect(bad.status).toBe(400);
  });

  it('pages the holders in leaf order', async () => {
    type Holders = { index: number; address: string; amount: string }[];
    const all = await invoke<{ data: Holders; meta: { limit: number; offset: number; total: number } }>(
      holdersHandler,
      {
        method: 'GET',
        path: `/token-launcher/snapshot/${ctx.coinMint}/holders`,
        pathParameters: { tokenMint: ctx.coinMint },
      },
    );
    expect(all.status).toBe(200);
    expect(all.body.meta).toEqual({ limit: 100, offset: 0, total: 2 });
    expect(all.body.data.map((h) => h.address).sort()).toEqual(
      [ctx.holders.a.publicKey.toBase58(), ctx.holders.b.publicKey.toBase58()].sort(),
    );
    expect(all.body.data.map((h) => h.index)).toEqual([0, 1]);
    const second = await invoke<{ data: Holders }>(holdersHandler, {
      method: 'GET',
      path: `/token-launcher/snapshot/${ctx.coinMint}/holders`,
      pathParameters: { tokenMint: ctx.coinMint },
      query: { limit: '1', offset: '1' },
    });
    expect(second.body.data).toEqual([all.body.data[1]]);
  });

  it('answers for the airdrop token mint (SPEC §4.1) exactly as for the game coin mint', async () => {
    // Another game airdropping the same token, without a coin: the lookup still finds the one snapshot.
    const other = await getGame((await registerGame(await createDeveloper())).id);
    if (!other) throw new Error('game missing');
    await saveGame({ ...other, version: other.version + 1, airdropTokenAddress: ctx.airdropMint }, other);
    const bodies = async (tokenMint: string) => {
      const wallet = ctx.holders.a.publicKey.toBase58();
      const [summary, proof, holders] = await Promise.all([
        get(getSnapshotHandler, `/token-launcher/snapshot/${tokenMint}`, { tokenMint }),
        get(proofHandler, `/token-launcher/snapshot/${tokenMint}/proof/${wallet}`, {
          tokenMint,
          userAddress: wallet,
        }),
        get(holdersHandler, `/token-launcher/snapshot/${tokenMint}/holders`, { tokenMint }, { limit: '1' }),
      ]);
      return [summary, proof, holders].map((res) => ({ status: res.status, body: res.body }));
    };
    const byAirdrop = await bodies(ctx.airdropMint);
    const byCoin = await bodies(ctx.coinMint);
    expect(byAirdrop.map((r) => r.status)).toEqual([200, 200, 200]);
    expect(byAirdrop).toEqual(byCoin);
    expect(byAirdrop[0]?.body.data).toMatchObject({
      tokenMint: ctx.coinMint,
      airdropTokenAddress: ctx.airdropMint,
      merkleRoot: expected(ctx.holders).root,
    });
    // An airdrop token no game with a snapshot uses is a 404, as is an unknown mint.
    const unused = Keypair.generate().publicKey.toBase58();
    expect((await bodies(unused)).map((r) => r.status)).toEqual([404, 404, 404]);
  });
});

describe('exercise claim', () => {
  type Built = {
    transactions: string[];
    amount: string;
    claimNumber: number;
    receiptAddress: string;
    blockhash: string;
    lastValidBlockHeight: number;
    pending: boolean;
  };
  type Status = {
    canClaim: boolean;
    state: string;
    amount: string | null;
    claimed: string;
    claimable: string;
    claims: number;
    claimedAt: string | null;
    signature: string | null;
    pending: { claimNumber: number; amount: string } | null;
  };
  const build = (participant: string, referrer?: string) =>
    invoke<Body<Built>>(buildClaimHandler, {
      method: 'POST',
      path: '/token-launcher/exercise-claim/build-transactions',
      body: { gtokenAddress: ctx.coinMint, participant, ...(referrer ? { referrer } : {}) },
    });
  const status = (wallet: string) =>
    invoke<Body<Status>>(claimStatusHandler, {
      method: 'GET',
      path: `/token-launcher/exercise-claim/${ctx.coinMint}/status/${wallet}`,
      pathParameters: { gtokenAddress: ctx.coinMint, wallet },
    });
  /** What a player's wallet does with a built claim: decode, co-sign, send, then wait for it to land. */
  const sendSigned = async (built: Built, signer: Keypair) => {
    const tx = Transaction.from(Buffer.from(built.transactions[0] as string, 'base64'));
    tx.partialSign(signer);
    const raw = tx.serialize();
    const signature = await client.sendRawTransaction(raw, { preflightCommitment: 'confirmed' });
    return chain.confirm(
      { signature, lastValidBlockHeight: built.lastValidBlockHeight },
      { raw: raw.toString('base64') as Base64EncodedWireTransaction, timeoutMs: 20_000 },
    );
  };
  const coinBalance = (owner: PublicKey) =>
    chain.getTokenAccountBalance(
      getAssociatedTokenAddressSync(
        new PublicKey(ctx.coinMint),
        owner,
        false,
        TOKEN_2022_PROGRAM_ID,
      ).toBase58(),
    );
  /** A stranger's transfer to any address, with any memo: what anybody can put on chain. */
  const strangerTransfer = async (to: string, lamports: bigint, memo: string) => {
    const { signer: stranger } = await newKeypair();
    await chain.airdrop(stranger.address, SOL);
    await send({
      feePayer: stranger.address,
      instructions: [
        getTransferSolInstruction({ source: stranger, destination: address(to), amount: lamports }),
        memoInstruction(memo),
      ],
    });
  };

  // The game's webhook endpoint for claim.landed, delivered by the worker (in-process) on the stack's queue.
  let worker: Awaited<ReturnType<typeof startDeliveryWorker>> | undefined;
  let hooks: { receiver: Receiver; secret: string } | undefined;
  beforeAll(async () => {
    worker = await startDeliveryWorker();
    hooks = await subscribeReceiver(ctx.dev, ctx.gameId, ['claim.landed']);
  });
  afterAll(async () => {
    await worker?.stop();
    await hooks?.receiver.close();
  });

  it('records the claim before signing: a second build is the same claim again; it lands once; status moves claimable → pending → claimed', async () => {
    const participant = ctx.holders.a;
    const wallet = participant.publicKey.toBase58();
    await chain.airdrop(participant.publicKey.toBase58(), SOL);

    const before = await status(wallet);
    expect(before.body.data).toMatchObject({
      gtokenAddress: ctx.coinMint,
      canClaim: true,
      state: 'claimable',
      amount: (POOL / 4n).toString(),
      claimedAt: null,
      pending: null,
    });
    expect((await status(ctx.holders.c.publicKey.toBase58())).body.data).toMatchObject({
      canClaim: false,
      state: 'not_eligible',
    });

    // The build that records the claim counts it (ClaimsBuilt, read from the function's output); building the
    // same claim again does not.
    let first: Awaited<ReturnType<typeof build>> | undefined;
    const firstMetrics = await stdoutRecords(async () => {
      first = await build(wallet);
    });
    if (!first) throw new Error('no build');
    expect(metricTotal(firstMetrics, 'ClaimsBuilt')).toBe(1);
    expect(first.status).toBe(200);
    expect(first.body.data).toMatchObject({ amount: (POOL / 4n).toString(), claimNumber: 0, pending: false });
    expect(first.body.data.transactions).toHaveLength(1);
    // Built again before it lands (another referrer even, as anybody may): another transaction for the same claim
    // (number, amount, receipt), never a second payable one.
    let second: Awaited<ReturnType<typeof build>> | undefined;
    const secondMetrics = await stdoutRecords(async () => {
      second = await build(wallet, ctx.holders.b.publicKey.toBase58());
    });
    if (!second) throw new Error('no build');
    expect(metricTotal(secondMetrics, 'ClaimsBuilt')).toBe(0);
    expect(second.status).toBe(200);
    expect(second.body.data).toMatchObject({
      claimNumber: 0,
      amount: first.body.data.amount,
      receiptAddress: first.body.data.receiptAddress,
      pending: false,
    });
    expect(second.body.data.transactions).not.toEqual(first.body.data.transactions);
    expect(await getClaimRecord(ctx.coinMint, wallet, 0)).toMatchObject({ attempt: 2, status: 'pending' });
    expect((await status(wallet)).body.data).toMatchObject({
      state: 'pending',
      canClaim: true,
      amount: (POOL / 4n).toString(),
      claimable: '0',
      pending: { claimNumber: 0, amount: (POOL / 4n).toString() },
    });

    // The first build's transaction still lands: the participant signed it, and the record moved to the second.
    const signature = await sendSigned(first.body.data, participant);
    expect(await coinBalance(participant.publicKey)).toBe(POOL / 4n);
    expect(bs58.decode(signature)).toHaveLength(64);

    // The attack: before anything reads the ledger again, ten transfers to the landed claim's receipt with memo
    // amount=0. A ledger that read amounts from memos would count the claim as 0 and pay it again.
    for (let i = 0; i < 10; i++)
      await strangerTransfer(
        first.body.data.receiptAddress,
        1_000_000n,
        `arcadia:claim mint=${ctx.coinMint} claim=0 amount=0`,
      );
    // Neither the other transaction of the same claim nor the same one again can pay twice: the receipt is used.
    await expect(sendSigned(second.body.data, participant)).rejects.toThrow();
    await sendSigned(first.body.data, participant).catch(() => undefined);
    expect(await coinBalance(participant.publicKey)).toBe(POOL / 4n);

    // The status read that sees the claim landed counts it (ClaimsLanded), once.
    let after: Awaited<ReturnType<typeof status>> | undefined;
    const landedMetrics = await stdoutRecords(async () => {
      after = await status(wallet);
    });
    if (!after) throw new Error('no status');
    expect(metricTotal(landedMetrics, 'ClaimsLanded')).toBe(1);
    expect(metricTotal(await stdoutRecords(() => status(wallet)), 'ClaimsLanded')).toBe(0);
    expect(after.body.data).toMatchObject({
      canClaim: false,
      state: 'claimed',
      amount: (POOL / 4n).toString(),
      claimed: (POOL / 4n).toString(),
      claimable: '0',
      claims: 1,
      pending: null,
    });
    expect(after.body.data.claimedAt).toEqual(expect.any(String));
    // The participant sent it, not the platform, and it is not the attempt recorded last: the status names the
    // transaction that landed all the same (the vault signed it; not one of the strangers' transfers with the
    // claim's memo).
    expect(after.body.data.signature).toBe(signature);
    const rebuilt = await build(wallet);
    expect(rebuilt.status).toBe(409);
    expect(rebuilt.body.error?.code).toBe('CONFLICT');
    expect(await coinBalance(participant.publicKey)).toBe(POOL / 4n);

    // The landing is a claim.landed webhook of the coin's game, delivered once, signed (standardwebhooks).
    const landedFor = () =>
      verifiedPayloads(hooks?.receiver as Receiver, hooks?.secret ?? '').filter(
        (p) => p.type === 'claim.landed' && p.data.wallet === wallet,
      );
    await waitFor(() => landedFor().length >= 1, 10_000, 'claim.landed');
    await new Promise((resolve) => setTimeout(resolve, 1_500));
    const landedEvents = landedFor();
    expect(landedEvents).toHaveLength(1);
    expect(landedEvents[0]).toMatchObject({
      version: 1,
      gameId: ctx.gameId,
      data: { wallet, mint: ctx.coinMint, amount: (POOL / 4n).toString() },
    });
    expect(landedEvents[0]?.data.signature).toBe(signature);
  });

  it('a changed amount breaks the vault signature', async () => {
    const participant = ctx.holders.b;
    await chain.airdrop(participant.publicKey.toBase58(), SOL);
    const built = await build(participant.publicKey.toBase58());
    expect(built.status).toBe(200);
    const tx = Transaction.from(Buffer.from(built.body.data.transactions[0] as string, 'base64'));
    // Wire compatibility: web3.js decodes the kit-built transaction; the participant pays and signs last.
    expect(tx.feePayer?.toBase58()).toBe(participant.publicKey.toBase58());
    expect(tx.signatures.find((s) => s.publicKey.equals(participant.publicKey))?.signature).toBeNull();
    expect(tx.verifySignatures(false)).toBe(true); // vault signed, participant still to sign
    const transfer = tx.instructions.find(
      (ix) => ix.programId.equals(TOKEN_2022_PROGRAM_ID) && ix.data[0] === 12,
    );
    if (!transfer) throw new Error('no TransferChecked instruction');
    const data = Buffer.from(transfer.data);
    data.writeBigUInt64LE(data.readBigUInt64LE(1) * 2n, 1);
    transfer.data = data;
    tx.partialSign(participant);
    expect(tx.verifySignatures(true)).toBe(false);
    await expect(
      client.sendRawTransaction(tx.serialize({ verifySignatures: false }), {
        preflightCommitment: 'confirmed',
      }),
    ).rejects.toThrow();
    expect((await status(participant.publicKey.toBase58())).body.data).toMatchObject({
      state: 'pending',
      claimed: '0',
    });
  });

  it('a pre-funded receipt neither zeroes the victim’s claim nor stops it; an expired claim frees its number', async () => {
    const victim = ctx.holders.b;
    const wallet = victim.publicKey.toBase58();
    // The stranger learns the victim's receipt from the public build endpoint and funds it with rent and a memo.
    const seen = await build(wallet);
    expect(seen.status).toBe(200);
    const seenAttempt = (await getClaimRecord(ctx.coinMint, wallet, 0))?.attempt ?? 0;
    await strangerTransfer(
      seen.body.data.receiptAddress,
      await chain.getMinimumBalanceForRentExemption(0),
      `arcadia:claim mint=${ctx.coinMint} claim=0 amount=99999999999999`,
    );
    expect((await status(wallet)).body.data).toMatchObject({
      canClaim: true,
      state: 'pending',
      amount: ((POOL * 3n) / 4n).toString(),
      claimed: '0',
    });

    // The chain moves past the claim's lifetime unlanded (its height read as 1000 blocks later): the number is
    // freed and the next build is a new transaction for the same claim number and amount.
    const later = {
      ...buildClaimDeps,
      chain: {
        ...buildClaimDeps.chain,
        getBlockHeight: async () => (await buildClaimDeps.chain.getBlockHeight()) + 1000,
      },
    };
    const rebuilt = await buildClaimTransactions({ gtokenAddress: ctx.coinMint, participant: wallet }, later);
    expect(rebuilt).toMatchObject({
      claimNumber: 0,
      pending: false,
      amount: ((POOL * 3n) / 4n).toString(),
      receiptAddress: seen.body.data.receiptAddress,
    });
    expect(await getClaimRecord(ctx.coinMint, wallet, 0)).toMatchObject({
      attempt: seenAttempt + 1,
      status: 'pending',
    });

    // The victim signs the claim: it lands on the funded receipt and pays exactly the allocation.
    await sendSigned(rebuilt as unknown as Built, victim);
    expect(await coinBalance(victim.publicKey)).toBe((POOL * 3n) / 4n);
    expect((await status(wallet)).body.data).toMatchObject({
      state: 'claimed',
      claimed: ((POOL * 3n) / 4n).toString(),
      claims: 1,
    });
    expect((await build(wallet)).status).toBe(409);
  });

  it('404 for a wallet without allocation', async () => {
    const res = await build(ctx.holders.c.publicKey.toBase58());
    expect(res.status).toBe(404);
  });

  it('the airdrop token cannot change while the coin is active (409 AIRDROP_TOKEN_FROZEN)', async () => {
    const path = `/games/update/${ctx.gameId}`;
    const update = (airdropTokenAddress: string | null) =>
      invoke<Body<unknown>>(updateGameHandler, {
        method: 'POST',
        path,
        headers: hmacHeaders(ctx.dev, 'POST', path),
        pathParameters: { gameId: ctx.gameId },
        body: { airdropTokenAddress },
      });
    const other = await createMint(chain, ctx.payer);
    for (const next of [other, null]) {
      const res = await update(next);
      expect(res.status).toBe(409);
      expect(res.body.error?.code).toBe('AIRDROP_TOKEN_FROZEN');
    }
    expect((await getGame(ctx.gameId))?.airdropTokenAddress).toBe(ctx.airdropMint);
    // The same token again is no change.
    expect((await update(ctx.airdropMint)).status).toBe(200);
  });
});

describe('claims of the release that read amounts from memos', () => {
  /** That release's receipt: 0 bytes, created with seed "arcadia-claim:<coin>:<wallet>[:<n>]" from the vault. */
  const legacyReceipt = async (wallet: string, n: number) => {
    const seed = `c${createHash('sha256')
      .update(`arcadia-claim:${ctx.coinMint}:${wallet}${n === 0 ? '' : `:${n}`}`)
      .digest('hex')
      .slice(0, 31)}`;
    return {
      seed,
      address: await createAddressWithSeed({
        baseAddress: address(ctx.vault),
        seed,
        programAddress: SYSTEM_PROGRAM_ADDRESS,
      }),
    };
  };
  const legacyItem = (wallet: string, claimNumber: number, amount: string) =>
    dynamo().send(
      new PutCommand({
        TableName: process.env.SNAPSHOTS_TABLE,
        Item: {
          pk: `SNAPSHOT#${ctx.coinMint}`,
          sk: claimNumber === 0 ? `CLAIM#${wallet}` : `CLAIM#${wallet}#${claimNumber}`,
          coinMint: ctx.coinMint,
          wallet,
          claimNumber,
          amount,
          signature: null,
          claimedAt: new Date().toISOString(),
        },
      }),
    );
  const migrationDeps = {
    chain,
    listClaimCoins,
    listLegacyClaims,
    findVaultAddress,
    putMigratedClaim,
    deleteLegacyClaim,
    now: () => new Date(),
  };

  it('rebuilds them from the vault’s own transactions: the amount paid, not the memo; unbacked items go', async () => {
    // A claim that release built and that landed: 0-byte receipt, vault → wallet transfer, claim memo.
    const { signer: claimant } = await newKeypair();
    await chain.airdrop(claimant.address, SOL);
    const paid = 1_234_567n;
    const receipt = await legacyReceipt(claimant.address, 0);
    const mint = address(ctx.coinMint);
    const tokenProgram = TOKEN_2022_PROGRAM_ADDRESS;
    const [[vaultAta], [claimantAta]] = await Promise.all([
      findAssociatedTokenPda({ mint, owner: address(ctx.vault), tokenProgram }),
      findAssociatedTokenPda({ mint, owner: claimant.address, tokenProgram }),
    ]);
    const landed = await send({
      feePayer: claimant.address,
      instructions: [
        getCreateAccountWithSeedInstruction({
          payer: claimant,
          newAccount: receipt.address,
          baseAccount: ctx.vaultSigner,
          base: ctx.vaultSigner.address,
          seed: receipt.seed,
          amount: await chain.getMinimumBalanceForRentExemption(0),
          space: 0,
          programAddress: SYSTEM_PROGRAM_ADDRESS,
        }),
        getCreateAssociatedTokenIdempotentInstruction({
          payer: claimant,
          ata: claimantAta,
          owner: claimant.address,
          mint,
          tokenProgram,
        }),
        getTransferCheckedInstruction(
          {
            source: vaultAta,
            mint,
            destination: claimantAta,
            authority: ctx.vaultSigner,
            amount: paid,
            decimals: 6,
          },
          { programAddress: tokenProgram },
        ),
        memoInstruction(`arcadia:claim mint=${ctx.coinMint} claim=0 amount=${paid}`),
      ],
    });
    // What that release recorded after ten dust transfers with memo amount=0: a claim of 0.
    await legacyItem(claimant.address, 0, '0');
    // And a victim whose receipt a stranger funded: recorded as a landed claim that never happened.
    const victim = Keypair.generate().publicKey.toBase58();
    await legacyItem(victim, 0, '99999999999999');

    const blocked = await invoke<Body<unknown>>(buildClaimHandler, {
      method: 'POST',
      path: '/token-launcher/exercise-claim/build-transactions',
      body: { gtokenAddress: ctx.coinMint, participant: claimant.address },
    });
    expect(blocked.status).toBe(409);
    expect(blocked.body.error?.code).toBe('CLAIM_MIGRATION_PENDING');

    // The table is shared with other test files: only this coin's part of the report is ours.
    const ours = <T extends { coinMint: string }>(list: T[]) =>
      list.filter((c) => c.coinMint === ctx.coinMint);
    const report = await migrateLegacyClaims(migrationDeps);
    expect(ours(report.migrated)).toEqual([
      {
        coinMint: ctx.coinMint,
        wallet: claimant.address,
        claimNumber: 0,
        amount: paid.toString(),
        signature: landed,
      },
    ]);
    expect(ours(report.deleted)).toEqual([{ coinMint: ctx.coinMint, wallet: victim, claimNumber: 0 }]);
    expect(await getClaimRecord(ctx.coinMint, claimant.address, 0)).toMatchObject({
      status: 'landed',
      amount: paid.toString(),
      signature: landed,
    });
    expect(await getClaimRecord(ctx.coinMint, victim, 0)).toBeUndefined();
    // The claims built since (holders a and b) were records already: left as they are. A second run does nothing.
    const again = await migrateLegacyClaims(migrationDeps);
    expect([ours(again.migrated), ours(again.deleted)]).toEqual([[], []]);
    const after = await invoke<Body<{ claimed: string; claims: number }>>(claimStatusHandler, {
      method: 'GET',
      path: `/token-launcher/exercise-claim/${ctx.coinMint}/status/${claimant.address}`,
      pathParameters: { gtokenAddress: ctx.coinMint, wallet: claimant.address },
    });
    expect(after.body.data).toMatchObject({ claimed: paid.toString(), claims: 1 });
  });
});

describe('the airdrop released in rounds on the local chain', () => {
  it('a holder that claims and moves its tokens to a fresh wallet is paid only what it accrued; Σ ≤ pool', async () => {
    const coin = await setUp();
    const { a, b } = coin.holders;
    const game = await getGame(coin.gameId);
    const startMs = Date.parse(game?.coin?.emissionStartAt ?? '');
    const endMs =
      Date.parse(`${(game?.coin?.emissionStartAt ?? '').slice(0, 10)}T00:00:00.000Z`) + 7 * 86_400_000;
    const at = (ms: number) => ({ ...builderDeps, now: () => new Date(ms) });
    const allocation = async (wallet: PublicKey) => {
      const res = await invoke<Body<{ allocated: string; claimed: string }>>(claimStatusHandler, {
        method: 'GET',
        path: `/token-launcher/exercise-claim/${coin.coinMint}/status/${wallet.toBase58()}`,
        pathParameters: { gtokenAddress: coin.coinMint, wallet: wallet.toBase58() },
      });
      return { allocated: BigInt(res.body.data.allocated), claimed: BigInt(res.body.data.claimed) };
    };
    const claimAll = async (holder: Keypair) => {
      const built = await invoke<Body<{ transactions: string[]; lastValidBlockHeight: number }>>(
        buildClaimHandler,
        {
          method: 'POST',
          path: '/token-launcher/exercise-claim/build-transactions',
          body: { gtokenAddress: coin.coinMint, participant: holder.publicKey.toBase58() },
        },
      );
      if (built.status !== 200) return built.status;
      const tx = Transaction.from(Buffer.from(built.body.data.transactions[0] as string, 'base64'));
      tx.partialSign(holder);
      const raw = tx.serialize();
      const signature = await client.sendRawTransaction(raw, { preflightCommitment: 'confirmed' });
      await chain.confirm(
        { signature, lastValidBlockHeight: built.body.data.lastValidBlockHeight },
        { raw: raw.toString('base64') as Base64EncodedWireTransaction, timeoutMs: 20_000 },
      );
      return 200;
    };

    // Round 1, halfway through the window: half the pool to a (100 tokens) and b (300).
    const mid = startMs + Math.floor((endMs - startMs) / 2);
    expect((await buildSnapshot(coin.coinMint, at(mid))).status).toBe('created');
    const first = BigInt((await getSummary(coin.coinMint))?.totalAllocation ?? 0);
    expect(first).toBe((POOL * BigInt(mid - startMs)) / BigInt(endMs - startMs));
    const aFirst = (await allocation(a.publicKey)).allocated;
    // Largest remainders: a quarter, or one base unit more.
    expect([first / 4n, first / 4n + 1n]).toContain(aFirst);

    // a claims, then moves all its airdrop tokens to a fresh wallet before the next round.
    await chain.airdrop(a.publicKey.toBase58(), SOL);
    expect(await claimAll(a)).toBe(200);
    const fresh = Keypair.generate();
    await chain.airdrop(fresh.publicKey.toBase58(), SOL);
    const airdropMint = new PublicKey(coin.airdropMint);
    const [from, to] = await Promise.all([
      getOrCreateAssociatedTokenAccount(client, a, airdropMint, a.publicKey),
      getOrCreateAssociatedTokenAccount(client, fresh, airdropMint, fresh.publicKey),
    ]);
    await splTransfer(client, a, from.address, to.address, a, 100n * TOKEN);

    // Round 2 at the window's end: the rest of the pool, to b and the fresh wallet; a accrues nothing more.
    expect((await buildSnapshot(coin.coinMint, at(endMs))).status).toBe('created');
    const summary = await getSummary(coin.coinMint);
    expect(summary?.totalAllocation).toBe(POOL.toString());
    const second = POOL - first;
    expect(await allocation(a.publicKey)).toEqual({ allocated: aFirst, claimed: aFirst });
    expect(await claimAll(a)).toBe(409);
    const freshShare = (await allocation(fresh.publicKey)).allocated;
    expect([second / 4n, second / 4n + 1n]).toContain(freshShare);
    // Every token of the pool is allocated once: a's first round, b's two rounds, the fresh wallet's second.
    expect(aFirst + (await allocation(b.publicKey)).allocated + freshShare).toBe(POOL);
    expect(await claimAll(fresh)).toBe(200);
    // Paid: a its first round only, the fresh wallet the second round's share for the same tokens.
    const balance = (owner: PublicKey) =>
      chain.getTokenAccountBalance(
        getAssociatedTokenAddressSync(
          new PublicKey(coin.coinMint),
          owner,
          false,
          TOKEN_2022_PROGRAM_ID,
        ).toBase58(),
      );
    const paid = (await balance(a.publicKey)) + (await balance(fresh.publicKey));
    expect(paid).toBe(aFirst + freshShare);
    // Nothing is left to release: a later round changes nothing.
    expect((await buildSnapshot(coin.coinMint, at(endMs + 3_600_000))).status).toBe('unchanged');
  });
});
