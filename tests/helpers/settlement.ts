// Seeding a settled-able game day against the local stack: a game whose creators have wallets, a pool filled by
// a real multiplier purchase on the local chain, and players with counted points on one UTC day.
import { randomUUID } from 'node:crypto';
import { GetCommand } from '@aws-sdk/lib-dynamodb';
import { sideEffects as rewardsDeps } from '../../functions/rewards/purchase-multiplier.js';
import { dynamo } from '../../lib/adapters/dynamodb.js';
import { ChainError, makeChain } from '../../lib/chain/index.js';
import type { AuthContext } from '../../lib/core/auth.js';
import { getGame, saveGame } from '../../lib/games/repository.js';
import { batchSavePoints } from '../../lib/play/saves/save.js';
import { purchaseMultiplier } from '../../lib/rewards/purchases/purchase.js';
import type { CommitmentRecord } from '../../lib/rewards/settlement/commitment-repository.js';
import { type PrizeRef, settlementKeys, settlementTable } from '../../lib/rewards/settlement/keys.js';
import type { PayoutRecord } from '../../lib/rewards/settlement/repository.js';
import type { SettlementDeps } from '../../lib/rewards/settlement/settle.js';
import { localDirectory } from '../../lib/user/directory.js';
import { ensureUserForSubject } from '../../lib/user/service.js';
import { loadWallet } from '../../lib/user/wallet.js';
import { registerGame } from './games.js';
import { createDeveloper, type Developer } from './users.js';

export const SOL = 1_000_000_000n;
export const chain = makeChain({ rpcUrl: process.env.SOLANA_RPC_URL ?? '', pollMs: 50 });

export interface Member {
  arcId: string;
  wallet: string;
  auth: AuthContext;
}

/** An IdP user with its embedded wallet, funded when asked. */
export const newMember = async (lamports = 0n): Promise<Member> => {
  const subject = `did:local:st-${randomUUID().slice(0, 8)}`;
  const arcId = await ensureUserForSubject(subject);
  const wallet = (await loadWallet(arcId))?.address;
  if (!wallet) throw new Error('expected an embedded wallet');
  if (lamports > 0n) await chain.airdrop(wallet, lamports);
  return { arcId, wallet, auth: { scheme: 'bearer', userId: arcId, subject } };
};

export interface SeededDay {
  dev: Developer;
  gameId: string;
  day: string;
  /** The creators of the verified split (dev first), funded so their payouts land. */
  creators: Member[];
  /** The day's players, best first (points descending). */
  players: Member[];
  points: number[];
  vaultAddress: string;
  /** When the day's settlement delay has passed. */
  after: Date;
}

/**
 * A game with a verified 60/40 split between its developer and a co-creator, a 3x/24 h multiplier bought on
 * the local chain (the pool), and `playerCount` players scoring on `day` (every second one funded: the others'
 * accounts do not exist, so small payouts to them carry over).
 */
export const seedDay = async (options: {
  day: string;
  playerCount: number;
  split?: boolean;
  /** Runs once the game exists, before anything happens to it (a webhook endpoint that must see every event). */
  onGame?: (dev: Developer, gameId: string) => Promise<void>;
}): Promise<SeededDay> => {
  const dev = await createDeveloper();
  const devWallet = (await loadWallet(dev.arcId))?.address ?? '';
  await chain.airdrop(devWallet, SOL / 100n);
  const coCreator = await newMember(SOL / 100n);
  const game = await registerGame(dev);
  if (options.split !== false) {
    const record = await getGame(game.id);
    if (!record) throw new Error('game vanished');
    await saveGame(
      {
        ...record,
        version: record.version + 1,
        ownershipVerified: true,
        requestedOrgRewardsSplit: { [dev.arcId]: 6_000, [coCreator.arcId]: 4_000 },
      },
      record,
    );
  }
  await options.onGame?.(dev, game.id);
  const buyer = await newMember(SOL);
  const bought = await purchaseMultiplier(
    buyer.auth,
    { gameId: game.id, tier: '3x', durationSeconds: 86_400, idempotencyKey: randomUUID() },
    rewardsDeps,
  );
  if (bought.status !== 'completed') throw new Error(`purchase ${bought.status}`);
  const players = await Promise.all(
    Array.from({ length: options.playerCount }, (_, i) => newMember(i % 2 === 1 ? SOL / 100n : 0n)),
  );
  const points = players.map((_, i) => 1_000 - i * 50);
  await batchSavePoints(
    { scheme: 'hmac', userId: dev.arcId, apiKey: dev.apiKey },
    { gameId: game.id, entries: players.map((p, i) => ({ playerId: p.arcId, points: points[i] ?? 1 })) },
    { directory: localDirectory, now: () => new Date(`${options.day}T12:00:00.000Z`) },
  );
  return {
    dev,
    gameId: game.id,
    day: options.day,
    creators: [
      {
        arcId: dev.arcId,
        wallet: devWallet,
        auth: { scheme: 'hmac', userId: dev.arcId, apiKey: dev.apiKey },
      },
      coCreator,
    ],
    players,
    points,
    vaultAddress: bought.vaultAddress,
    after: new Date(Date.parse(`${options.day}T00:00:00.000Z`) + 86_400_000 + 7 * 3_600_000),
  };
};

/**
 * A random past UTC day, so that tests never share a board: from 2020 to two days ago, so that a day is always due
 * by the real clock too (a fixed span once reached past today, and a handler on the real clock found it not due).
 */
export const randomDay = () => {
  const span = Math.floor((Date.now() - Date.UTC(2020, 0, 1)) / 86_400_000) - 2;
  return new Date(Date.UTC(2020, 0, 1) + Math.floor(Math.random() * span) * 86_400_000)
    .toISOString()
    .slice(0, 10);
};

const settlementItem = async (key: { pk: string; sk: string }) =>
  (await dynamo().send(new GetCommand({ TableName: settlementTable(), Key: key, ConsistentRead: true })))
    .Item;

/** A line's transfer record, as stored. */
export const payoutOf = async (gameId: string, day: string, arcId: string) =>
  (await settlementItem(settlementKeys.payout(gameId, day, arcId))) as PayoutRecord | undefined;

/** A run's commitment record (its transaction's signature and fee), as stored. */
export const commitmentOf = async (gameId: string, day: string, prize?: PrizeRef) =>
  (await settlementItem(settlementKeys.commitment(gameId, day, prize))) as CommitmentRecord | undefined;

/** The fee the run's commitment cost the vault (0 when none was confirmed). */
export const commitmentFee = async (gameId: string, day: string, prize?: PrizeRef): Promise<bigint> => {
  const record = await commitmentOf(gameId, day, prize);
  return record?.status === 'confirmed' ? BigInt(record.fee ?? 0) : 0n;
};

/**
 * The run's commitment transactions that landed (of every signature it recorded) and what they cost the vault:
 * never more than one, whatever crashed or was retried.
 */
export const landedCommitments = async (gameId: string, day: string, prize?: PrizeRef) => {
  const record = await commitmentOf(gameId, day, prize);
  const signatures = [
    ...(record?.previousSignatures ?? []),
    ...(record?.signature ? [record.signature] : []),
  ];
  const landed: string[] = [];
  for (const signature of signatures) {
    const state = await chain.getSignatureStatus(signature);
    if (state.status === 'confirmed' || state.status === 'finalized') landed.push(signature);
  }
  return { record, landed, fee: landed.length > 0 ? BigInt(record?.fee ?? 0) : 0n };
};

/** What a recipient is owed by a game from payouts that could not land (lamports). */
export const carryOf = async (gameId: string, arcId: string) =>
  BigInt((await settlementItem(settlementKeys.carry(gameId, arcId)))?.lamports ?? 0);

type ChainDeps = SettlementDeps['chain'];

/** The chain, failing its k-th call: reads and sends throw before reaching it; one send lands and is lost. */
export const faultyChain = (real: ChainDeps, k: number, mode: 'before' | 'lost' | 'recordedUnsent') => {
  let calls = 0;
  const names: string[] = [];
  const wrap =
    <A extends unknown[], R>(name: string, fn: (...args: A) => Promise<R>) =>
    async (...args: A): Promise<R> => {
      const index = calls++;
      names.push(name);
      if (index !== k) return fn(...args);
      if (name === 'sendAndConfirm' && mode === 'lost') {
        await fn(...args);
        throw new ChainError('CONFIRM_TIMEOUT', 'simulated: landed, confirmation lost');
      }
      if (name === 'sendAndConfirm' && mode === 'recordedUnsent') {
        // The signature is recorded (onSent), then the process loses the RPC before broadcasting.
        const options = args[1] as {
          onSent?: (s: { signature: string; lastValidBlockHeight: number; fee: bigint }) => Promise<void>;
        };
        await options.onSent?.({
          signature: '1111111111111111111111111111111111111111111111111111111111111111',
          lastValidBlockHeight: 1,
          fee: 5_000n,
        });
        throw new ChainError('RPC_UNAVAILABLE', 'simulated: RPC lost before broadcasting');
      }
      throw new ChainError('RPC_UNAVAILABLE', `simulated: ${name} failed`);
    };
  const chainDeps: ChainDeps = {
    getBalance: wrap('getBalance', real.getBalance),
    getMinimumBalanceForRentExemption: wrap(
      'getMinimumBalanceForRentExemption',
      real.getMinimumBalanceForRentExemption,
    ),
    estimateBudget: wrap('estimateBudget', real.estimateBudget),
    sendAndConfirm: wrap('sendAndConfirm', real.sendAndConfirm),
    confirm: wrap('confirm', real.confirm),
    getSignatureStatus: wrap('getSignatureStatus', real.getSignatureStatus),
    getBlockHeight: wrap('getBlockHeight', real.getBlockHeight),
  };
  return { chainDeps, names };
};
