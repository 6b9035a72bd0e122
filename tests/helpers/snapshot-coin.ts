// A launched game coin with an airdrop token held by `holders` wallets, on the local stack's chain: the setup the
// cost bench measures a snapshot build and a claim on (the same steps as tests/integration/snapshots.test.ts).
import { randomUUID } from 'node:crypto';
import { PutCommand } from '@aws-sdk/lib-dynamodb';
import { type Address, address, type KeyPairSigner } from '@solana/kit';
import { Keypair } from '@solana/web3.js';
import {
  findAssociatedTokenPda,
  getCreateAssociatedTokenIdempotentInstruction,
  getMintToInstruction,
  TOKEN_PROGRAM_ADDRESS,
} from '@solana-program/token';
import { dynamo } from '../../lib/adapters/dynamodb.js';
import { makeChain } from '../../lib/chain/index.js';
import { newKeypair } from '../../lib/chain/spl.js';
import { getGame, linkCoin, saveGame } from '../../lib/games/repository.js';
import * as coin from '../../lib/launcher/coin.js';
import * as steps from '../../lib/launcher/coin-steps.js';
import { launcherKeys } from '../../lib/launcher/keys.js';
import type { JobRecord } from '../../lib/launcher/model.js';
import { registerGame } from './games.js';
import { keypairWalletSigner } from './keypair-signer.js';
import { createMint } from './spl-fixtures.js';
import { createDeveloper } from './users.js';

const SOL = 1_000_000_000n;
const TOKEN = 1_000_000n;

const mintTo = async (
  chain: ReturnType<typeof makeChain>,
  authority: KeyPairSigner,
  mint: Address,
  owner: string,
  amount: bigint,
) => {
  const [ata] = await findAssociatedTokenPda({
    mint,
    owner: address(owner),
    tokenProgram: TOKEN_PROGRAM_ADDRESS,
  });
  await chain.sendAndConfirm({
    feePayer: authority.address,
    instructions: [
      getCreateAssociatedTokenIdempotentInstruction({ payer: authority, ata, owner: address(owner), mint }),
      getMintToInstruction({ mint, token: ata, mintAuthority: authority, amount }),
    ],
  });
};

/** The completed launch job of a coin made by the launch steps directly, and its mint's link to the job. */
export const recordCompletedLaunch = async (launch: {
  gameId: string;
  userId: string;
  sealed: Awaited<ReturnType<typeof coin.generateLaunchKeys>>;
  symbol: string;
  name: string;
  uri?: string;
}) => {
  const now = new Date().toISOString();
  const jobId = randomUUID();
  const job: JobRecord = {
    jobId,
    gameId: launch.gameId,
    userId: launch.userId,
    status: 'completed',
    progress: 100,
    stage: 'complete',
    message: 'done',
    error: null,
    emissionDays: 7,
    buyAmount: null,
    gameCoinSymbol: launch.symbol,
    symbolSource: 'custom',
    coinName: launch.name,
    coinUri: launch.uri ?? 'https://a.example/c.json',
    ...launch.sealed,
    mintTx: null,
    supplyTx: null,
    buyTx: null,
    tokensBought: null,
    bundleTx: null,
    executionArn: null,
    deadlineAt: now,
    createdAt: now,
    updatedAt: now,
    completedAt: now,
  };
  const TableName = process.env.LAUNCHER_TABLE;
  await dynamo().send(new PutCommand({ TableName, Item: { ...launcherKeys.job(jobId), ...job } }));
  await dynamo().send(
    new PutCommand({
      TableName,
      Item: { ...launcherKeys.mintJob(launch.sealed.coinMint), jobId, gameId: launch.gameId },
    }),
  );
  return jobId;
};

/** A game whose coin was launched 8 days ago (7 emission days: the whole airdrop pool due) and its holders. */
export const launchedCoinWithHolders = async (holderCount: number) => {
  const chain = makeChain({ rpcUrl: process.env.SOLANA_RPC_URL ?? '', pollMs: 50 });
  const { signer: payer } = await newKeypair();
  await chain.airdrop(payer.address, 5n * SOL);
  const userId = randomUUID();
  const sealed = await coin.generateLaunchKeys();
  const launch = { userId, keys: await coin.openLaunchKeys(sealed) };
  const deps = { chain, signer: keypairWalletSigner(() => payer) };
  await steps.createCoinMint(deps, launch, { name: 'Cost', symbol: 'COST', uri: 'https://a.example/c.json' });
  await steps.mintCoinSupply(deps, launch);

  const airdropMint = await createMint(chain, payer);
  const holders = Array.from({ length: holderCount }, () => Keypair.generate());
  for (const [i, h] of holders.entries())
    await mintTo(chain, payer, airdropMint, h.publicKey.toBase58(), BigInt(1 + i) * TOKEN);

  const dev = await createDeveloper();
  const view = await registerGame(dev);
  const game = await getGame(view.id);
  if (!game) throw new Error('game missing');
  const coinMint = sealed.coinMint;
  const now = new Date().toISOString();
  const launchedAt = new Date(Date.now() - 8 * 86_400_000).toISOString();
  await saveGame(
    {
      ...game,
      version: game.version + 1,
      airdropTokenAddress: airdropMint,
      coin: {
        coinMint,
        gameCoinSymbol: 'COST',
        emissionDays: 7,
        status: 'active',
        emissionStartAt: launchedAt,
        emissionEndAt: now,
      },
    },
    game,
  );
  await linkCoin(coinMint, game.id);
  await recordCompletedLaunch({ gameId: game.id, userId, sealed, symbol: 'COST', name: 'Cost' });
  return { chain, coinMint, holders, gameId: game.id };
};
