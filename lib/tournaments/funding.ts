// Funding a tournament period's prizes with a studio's deposit (docs/tournaments.md, "Funding"): the tournaments
// domain decides which period and whether it may still be funded; the rewards domain moves and books the lamports.
import type { AuthContext } from '../core/auth.js';
import { AppError, errors } from '../core/errors.js';
import { requireOwnedGame } from '../games/index.js';
import { periodRecordItem, transact } from '../play/index.js';
import {
  depositToPeriod,
  type InboundDeps,
  knownDeposit,
  MAX_DEPOSIT_LAMPORTS,
  MIN_DEPOSIT_LAMPORTS,
} from '../rewards/index.js';
import { nextPeriod, periodAt, periodNamed } from './schedule.js';
import { requireTournament, runOf } from './service.js';

export interface DepositBody {
  lamports: bigint;
  periodId?: string | undefined;
  idempotencyKey: string;
}

const notRunning = (message: string) => new AppError('TOURNAMENT_NOT_RUNNING', message);

/**
 * POST …/deposits: the caller (owner or creator) deposits into one period's prize fund (`periodId`, or the period
 * running now, else the next). Before a new deposit's intent the period's record is made sure of, so the period
 * closes (and its fund is paid or goes back to the pool) even if nobody enters it.
 */
export const depositToTournament = async (
  auth: AuthContext,
  params: { gameId: string; tournamentId: string },
  body: DepositBody,
  deps: InboundDeps,
) => {
  if (body.lamports < MIN_DEPOSIT_LAMPORTS || body.lamports > MAX_DEPOSIT_LAMPORTS)
    throw errors.validation('The deposit is out of range', [
      {
        path: 'lamports',
        message: `must be between ${MIN_DEPOSIT_LAMPORTS} and ${MAX_DEPOSIT_LAMPORTS} lamports`,
      },
    ]);
  const game = await requireOwnedGame(auth, params.gameId);
  const t = await requireTournament(game.id, params.tournamentId);
  if (t.prizes.length === 0)
    throw errors.validation('This tournament has no prize table: there is nothing to fund', [
      {
        path: 'prizes',
        message: 'set a prize table (update the tournament before it starts) to fund its periods',
      },
    ]);
  const now = deps.now();
  // The key's deposit, read once: a retry without `periodId` resumes it, even after its period ended.
  const known =
    (await knownDeposit(
      { gameId: game.id, tournamentId: t.tournamentId },
      auth.userId,
      body.idempotencyKey,
    )) ?? null;
  const periodId = body.periodId ?? known?.periodId;
  const p = periodId ? periodNamed(t, periodId) : (periodAt(t, now) ?? nextPeriod(t, now));
  if (!p) {
    if (periodId) throw errors.notFound('Period');
    throw notRunning('The tournament has no period left to fund');
  }
  return depositToPeriod(
    auth.userId,
    {
      gameId: game.id,
      tournamentId: t.tournamentId,
      periodId: p.id,
      periodEndsAt: p.endsAt,
      lamports: body.lamports,
      idempotencyKey: body.idempotencyKey,
    },
    async () => {
      if (t.status === 'cancelled')
        throw notRunning('The tournament is cancelled: it can no longer be funded');
      if (Date.parse(p.endsAt) <= deps.now().getTime())
        throw notRunning('The period has ended: deposits fund a period before its end');
      await transact([periodRecordItem(game.id, runOf(t, p))]);
    },
    deps,
    known,
  );
};
