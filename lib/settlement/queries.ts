// Reads of settlements for the rewards views: a game's recent settlements (GET /rewards/game-rewards-pool) and a
// user's payouts (GET /rewards/me), given to the rewards domain through its ports by the function files.
import type { SettlementSummary } from '../rewards/index.js';
import { type PayoutRecord, payoutRecords, payoutsOfRecipient, recentSettlementItems } from './repository.js';

/** A game's most recent settlements, newest first, with each recipient's line as paid so far. */
export const recentSettlements = async (gameId: string, limit: number): Promise<SettlementSummary[]> => {
  const settlements = await recentSettlementItems(gameId, limit);
  return Promise.all(
    settlements.map(async (s) => {
      const records = new Map((await payoutRecords(gameId, s.day)).map((r) => [r.arcId, r]));
      return {
        day: s.day,
        status: s.status,
        undistributedBeforeLamports: s.undistributedBefore,
        allocatedLamports: s.allocated,
        creatorPartLamports: s.creatorPart,
        playerPartLamports: s.playerPart,
        players: s.players,
        settledAt: s.settledAt ?? null,
        recipients: s.lines.map((line) => {
          const record = records.get(line.arcId);
          const carried = record?.status === 'carried';
          return {
            wallet: line.wallet,
            roles: line.roles,
            rank: line.rank,
            shareLamports: line.share,
            carriedInLamports: line.carriedIn,
            sentLamports: carried ? '0' : line.send,
            feeLamports: carried ? '0' : line.fee,
            carriedOutLamports: carried ? line.due : line.carryOut,
            status: record?.status ?? 'pending',
            signature: record?.status === 'confirmed' ? (record.signature ?? null) : null,
          };
        }),
      };
    }),
  );
};

/** A settlement payout as GET /rewards/me lists it. */
export const payoutView = (r: PayoutRecord) => ({
  gameId: r.gameId,
  day: r.day,
  roles: r.roles,
  rank: r.rank,
  shareLamports: r.share,
  carriedInLamports: r.carriedIn,
  sentLamports: r.status === 'carried' ? '0' : r.send,
  feeLamports: r.status === 'carried' ? '0' : r.fee,
  carriedOutLamports: r.status === 'carried' ? r.due : r.carryOut,
  status: r.status,
  wallet: r.wallet,
  signature: r.status === 'confirmed' ? (r.signature ?? null) : null,
  usd: r.usd ?? null,
  paidAt: r.completedAt ?? null,
});

/** A user's settlement payouts across games, newest day first: `limit` from `offset`, and the total. */
export const payoutsOf = async (arcId: string, page: { limit: number; offset: number }) => {
  const { records, total } = await payoutsOfRecipient(arcId, page.offset + page.limit);
  return { payouts: records.slice(page.offset).map(payoutView), total };
};
