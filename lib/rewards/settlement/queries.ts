// Reads of settlements for the pool's views: a game's recent settlements (GET /rewards/game-rewards-pool) and a
// user's payouts (GET /rewards/me). The views' shapes are declared here once; the contracts describe them on the wire.
import type { PayoutLine } from './model.js';
import { type PayoutRecord, payoutRecords, payoutsOfRecipient, recentSettlementItems } from './repository.js';

type LineStatus = PayoutRecord['status'];

/** One recipient's line of a settled day, as paid so far. */
export interface RecipientView {
  wallet: string | null;
  roles: PayoutLine['roles'];
  rank: number | null;
  shareLamports: string;
  carriedInLamports: string;
  sentLamports: string;
  feeLamports: string;
  carriedOutLamports: string;
  status: LineStatus;
  signature: string | null;
}

/** A settled day of a game's pool, as the pool view lists it. */
export interface SettlementSummary {
  day: string;
  status: 'paying' | 'settled';
  undistributedBeforeLamports: string;
  allocatedLamports: string;
  creatorPartLamports: string;
  playerPartLamports: string;
  players: number;
  settledAt: string | null;
  recipients: RecipientView[];
}

/** One settlement payout to a user, as GET /rewards/me lists it. */
export interface PayoutEntry extends RecipientView {
  gameId: string;
  day: string;
  usd: number | null;
  paidAt: string | null;
  /** A tournament prize's period. */
  tournament: { tournamentId: string; periodId: string } | null;
}

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
export const payoutView = (r: PayoutRecord): PayoutEntry => ({
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
  tournament: r.prize ? { tournamentId: r.prize.tournamentId, periodId: r.prize.periodId } : null,
});

/** A user's settlement payouts across games, newest day first: `limit` from `offset`, and the total. */
export const payoutsOf = async (
  arcId: string,
  page: { limit: number; offset: number },
  gameId?: string,
): Promise<{ payouts: PayoutEntry[]; total: number }> => {
  const { records, total } = await payoutsOfRecipient(arcId, page.offset + page.limit, gameId);
  return { payouts: records.slice(page.offset).map(payoutView), total };
};
