// Tournament use cases (docs/tournaments.md): the studio schedules, changes before start and cancels; players
// join and read; saves learn the periods running now (`runningPeriods`, the play domain's port).
import { randomUUID } from 'node:crypto';
import { transactNamed } from '../adapters/dynamodb.js';
import type { AuthContext } from '../core/auth.js';
import { AppError, type ErrorDetail, errors } from '../core/errors.js';
import { utcDay } from '../core/time.js';
import {
  type GameRecord,
  isController,
  isCreatorOrOwner,
  requireGame,
  requireOwnedGame,
} from '../games/index.js';
import { insightsWrite } from '../insights/index.js';
import {
  getItems,
  joinItems,
  labelEntries,
  periodBoard,
  playerRank,
  type RunningPeriod,
  rankReads,
  tournamentPlayKeys,
} from '../play/index.js';
import { payoutRecords, periodFundView, prizeRunOf } from '../rewards/index.js';
import type { TournamentInput } from './contracts.js';
import {
  DEFAULT_PAYOUT_DELAY_SECONDS,
  DEFAULT_RETENTION_DAYS,
  MAX_BEST_ATTEMPTS,
  MAX_LIVE_TOURNAMENTS_PER_GAME,
  MAX_METADATA_BYTES,
  type PrizeRange,
  type Tournament,
} from './model.js';
import {
  getTournament,
  listEntries,
  listPeriodRecords,
  listTournaments,
  readLive,
  writeTournament,
} from './repository.js';
import {
  nextPeriod,
  type Period,
  periodAt,
  periodNamed,
  type Schedule,
  scheduleEnd,
  scheduleProblems,
} from './schedule.js';

const DAY_SECONDS = 24 * 3600;

/** Why a prize table is invalid (empty: valid): ranges in order, none overlapping, at most 10,000 bps in all. */
export const prizeProblems = (prizes: PrizeRange[]): ErrorDetail[] => {
  const problems: ErrorDetail[] = [];
  let total = 0;
  const sorted = prizes.map((p, i) => ({ ...p, i })).sort((a, b) => a.fromRank - b.fromRank);
  sorted.forEach((p, k) => {
    if (p.toRank < p.fromRank)
      problems.push({ path: `prizes.${p.i}.toRank`, message: 'must be at least fromRank' });
    const previous = sorted[k - 1];
    if (previous && p.fromRank <= previous.toRank)
      problems.push({ path: `prizes.${p.i}.fromRank`, message: `overlaps prizes.${previous.i}` });
    total += (p.toRank - p.fromRank + 1) * p.bps;
  });
  if (total > 10_000)
    problems.push({ path: 'prizes', message: `pays ${total} bps in all: at most 10,000 (the whole pool)` });
  return problems;
};

/** Every problem of a definition, by field (its schedule, its prize table and funding, its limits). */
const definitionProblems = (t: Omit<Tournament, NotInput>, now: Date): ErrorDetail[] => {
  const problems = [...scheduleProblems(t), ...prizeProblems(t.prizes)];
  if (t.prizes.length > 0 && !t.prizePool)
    problems.push({ path: 'prizePool', message: 'a prize table needs a prizePool that funds it' });
  if (t.prizes.length === 0 && t.prizePool)
    problems.push({ path: 'prizes', message: 'a prizePool needs a prize table to pay it' });
  if (Date.parse(t.startsAt) < now.getTime() - 60_000)
    problems.push({ path: 'startsAt', message: 'must not be in the past' });
  if (t.scoring === 'best' && (t.maxAttempts === null || t.maxAttempts > MAX_BEST_ATTEMPTS))
    problems.push({
      path: 'maxAttempts',
      message: `a best-session tournament needs maxAttempts of at most ${MAX_BEST_ATTEMPTS}`,
    });
  if (t.metadata && Buffer.byteLength(JSON.stringify(t.metadata)) > MAX_METADATA_BYTES)
    problems.push({ path: 'metadata', message: `must serialize to at most ${MAX_METADATA_BYTES} bytes` });
  return problems;
};

/** The definition a body describes, checked whole (400 with every problem by field). */
type NotInput = 'tournamentId' | 'gameId' | 'status' | 'createdBy' | 'createdAt' | 'updatedAt';

const definitionOf = (input: TournamentInput, now: Date): Omit<Tournament, NotInput> => {
  const t = {
    title: input.title,
    description: input.description ?? null,
    startsAt: input.startsAt,
    endsAt: input.endsAt ?? null,
    recurrence: input.recurrence ?? null,
    durationSeconds: input.durationSeconds ?? null,
    until: input.until ?? null,
    scoring: input.scoring ?? 'sum',
    joinRequired: input.joinRequired ?? false,
    maxEntrants: input.maxEntrants ?? null,
    maxAttempts: input.maxAttempts ?? null,
    tieRule: 'earliest' as const,
    metadata: input.metadata ?? null,
    prizes: input.prizes ?? [],
    prizePool: input.prizePool ?? null,
    payoutDelaySeconds: input.payoutDelaySeconds ?? DEFAULT_PAYOUT_DELAY_SECONDS,
    retentionDays: input.retentionDays ?? DEFAULT_RETENTION_DAYS,
  };
  const problems = definitionProblems(t, now);
  if (problems.length > 0) throw errors.validation(problems[0]?.message ?? 'Invalid tournament', problems);
  return t;
};

/**
 * A prize table drawing on the game's rewards pool routes the pool's money: only the game's controller (its owner
 * once someone proved the domain, else its creator) may schedule or change one (403), whoever else the route admits.
 */
const assertMayDrawOnPool = (auth: AuthContext, game: GameRecord, t: Pick<Tournament, 'prizePool'>) => {
  if ((t.prizePool?.rewardsPoolBps ?? 0) > 0 && !isController(game, auth.userId))
    throw errors.forbidden(
      "Only the game's controller (its verified owner, else its creator) may draw prizes from its rewards pool",
    );
};

/** Whether a tournament can still run a period at or after `now`. */
const isLive = (t: Tournament, now: Date) => {
  if (t.status !== 'scheduled') return false;
  const end = scheduleEnd(t);
  return end === null || Date.parse(end) > now.getTime();
};

/** The live index without tournaments that are over (they leave it on the next change). */
const pruned = (live: Map<string, Tournament>, now: Date) =>
  new Map([...live].filter(([, t]) => isLive(t, now)));

/** When a period's board is frozen and its prizes paid: its end plus the payout delay. */
const closesAt = (t: Tournament, p: Period) =>
  new Date(Date.parse(p.endsAt) + t.payoutDelaySeconds * 1000).toISOString();

type PeriodRecord = Record<string, unknown> | undefined;

const periodView = (p: Period, now: Date, record: PeriodRecord) => ({
  id: p.id,
  startsAt: p.startsAt,
  endsAt: p.endsAt,
  status:
    now.getTime() < Date.parse(p.startsAt)
      ? ('upcoming' as const)
      : now.getTime() < Date.parse(p.endsAt)
        ? ('running' as const)
        : ('ended' as const),
  entrants: Number(record?.entrants ?? 0),
  closedAt: typeof record?.closedAt === 'string' ? record.closedAt : null,
});

/** Period records by name (entrants, when closed; one batched read). */
const recordsOf = async (gameId: string, periods: Array<{ tournamentId: string; period: Period }>) => {
  const keys = periods.map((p) => tournamentPlayKeys.period(gameId, p.tournamentId, p.period.id));
  const items = await getItems(keys);
  return (tournamentId: string, id: string): PeriodRecord =>
    items.get(`${tournamentPlayKeys.period(gameId, tournamentId, id).pk}|${id}`);
};

/** Tournaments as answered: the definition with its current and next period. */
const views = async (ts: Tournament[], now: Date) => {
  const current = (t: Tournament) => (t.status === 'scheduled' ? periodAt(t, now) : undefined);
  const next = (t: Tournament) => (t.status === 'scheduled' ? nextPeriod(t, now) : undefined);
  const periods = ts.flatMap((t) =>
    [current(t), next(t)].flatMap((p) => (p ? [{ tournamentId: t.tournamentId, period: p }] : [])),
  );
  const records = await recordsOf(ts[0]?.gameId ?? '', periods);
  return ts.map((t) => {
    const { createdBy: _, ...shown } = t;
    const c = current(t);
    const n = next(t);
    return {
      ...shown,
      current: c ? periodView(c, now, records(t.tournamentId, c.id)) : null,
      next: n ? periodView(n, now, records(t.tournamentId, n.id)) : null,
    };
  });
};

const viewOne = async (t: Tournament, now: Date) => {
  const [view] = await views([t], now);
  if (!view) throw new Error('no view');
  return view;
};

export const createTournament = async (
  auth: AuthContext,
  gameId: string,
  input: TournamentInput,
  now = new Date(),
) => {
  const game = await requireOwnedGame(auth, gameId);
  const definition = definitionOf(input, now);
  assertMayDrawOnPool(auth, game, definition);
  const index = await readLive(game.id);
  const live = pruned(index.live, now);
  if (live.size >= MAX_LIVE_TOURNAMENTS_PER_GAME)
    throw new AppError(
      'CONFLICT',
      `A game has at most ${MAX_LIVE_TOURNAMENTS_PER_GAME} live tournaments: cancel one or wait for one to end`,
    );
  const at = now.toISOString();
  const t: Tournament = {
    ...definition,
    tournamentId: randomUUID(),
    gameId: game.id,
    status: 'scheduled',
    createdBy: auth.userId,
    createdAt: at,
    updatedAt: at,
  };
  live.set(t.tournamentId, t);
  await writeTournament(t, index, live, { absent: true });
  return viewOne(t, now);
};

export const requireTournament = async (gameId: string, tournamentId: string) => {
  const t = await getTournament(gameId, tournamentId);
  if (!t) throw errors.notFound('Tournament');
  return t;
};

/** When the first period of a schedule starts. */
const firstStart = (s: Schedule) => {
  const at = Date.parse(s.startsAt);
  return Date.parse(
    periodAt(s, new Date(at))?.startsAt ?? nextPeriod(s, new Date(at - 1000))?.startsAt ?? s.startsAt,
  );
};

export const updateTournament = async (
  auth: AuthContext,
  gameId: string,
  tournamentId: string,
  input: TournamentInput,
  now = new Date(),
) => {
  const game = await requireOwnedGame(auth, gameId);
  const was = await requireTournament(game.id, tournamentId);
  if (was.status !== 'scheduled' || firstStart(was) <= now.getTime())
    throw new AppError(
      'TOURNAMENT_STARTED',
      'The tournament has started or was cancelled: it can no longer change',
    );
  const definition = definitionOf(input, now);
  assertMayDrawOnPool(auth, game, definition);
  const index = await readLive(game.id);
  const t: Tournament = { ...was, ...definition, updatedAt: now.toISOString() };
  const live = pruned(index.live, now);
  live.set(t.tournamentId, t);
  await writeTournament(t, index, live, { updatedAt: was.updatedAt });
  return viewOne(t, now);
};

export const cancelTournament = async (
  auth: AuthContext,
  gameId: string,
  tournamentId: string,
  now = new Date(),
) => {
  const game = await requireOwnedGame(auth, gameId);
  const was = await requireTournament(game.id, tournamentId);
  if (was.status === 'cancelled') return viewOne(was, now);
  const index = await readLive(game.id);
  const t: Tournament = { ...was, status: 'cancelled', updatedAt: now.toISOString() };
  const live = pruned(index.live, now);
  live.delete(t.tournamentId);
  await writeTournament(t, index, live, { updatedAt: was.updatedAt });
  return viewOne(t, now);
};

/**
 * The game a caller may read the tournaments of: its owner or creator (HMAC or bearer), a session token of
 * this game, or any signed-in player (bearer) of a game that exists.
 */
const readableGame = async (
  auth: AuthContext,
  gameId: string,
): Promise<{ game: GameRecord; studio: boolean }> => {
  // A game-scoped token of another game never gets here (lib/http/handler.ts authorizeGame).
  if (auth.scheme === 'hmac') return { game: await requireOwnedGame(auth, gameId), studio: true };
  const game = await requireGame(gameId);
  return { game, studio: auth.scheme === 'bearer' && isCreatorOrOwner(game, auth.userId) };
};

export const listGameTournaments = async (
  auth: AuthContext,
  gameId: string,
  query: { limit: number; cursor?: string | undefined },
  now = new Date(),
) => {
  const { game, studio } = await readableGame(auth, gameId);
  const page = await listTournaments(game.id, query.limit, query.cursor);
  const shown = studio ? page.items : page.items.filter((t) => t.status === 'scheduled');
  return { data: await views(shown, now), meta: { limit: query.limit, nextCursor: page.nextCursor } };
};

export const readTournament = async (
  auth: AuthContext,
  gameId: string,
  tournamentId: string,
  now = new Date(),
) => {
  const { game, studio } = await readableGame(auth, gameId);
  const t = await requireTournament(game.id, tournamentId);
  if (!studio && t.status !== 'scheduled') throw errors.notFound('Tournament');
  return viewOne(t, now);
};

export const listPeriods = async (
  auth: AuthContext,
  gameId: string,
  tournamentId: string,
  query: { limit: number; cursor?: string | undefined },
  now = new Date(),
) => {
  const { game } = await readableGame(auth, gameId);
  const t = await requireTournament(game.id, tournamentId);
  const page = await listPeriodRecords(game.id, t.tournamentId, query.limit, query.cursor);
  const data = page.items.flatMap((item) => {
    const p = periodNamed(t, String(item.sk));
    return p && !expired(t, p, now) ? [periodView(p, now, item)] : [];
  });
  return { data, meta: { limit: query.limit, nextCursor: page.nextCursor } };
};

/** Whether an ended period is past the studio's retention (its board no longer answered). */
const expired = (t: Tournament, p: Period, now: Date) =>
  Date.parse(p.endsAt) + t.retentionDays * DAY_SECONDS * 1000 <= now.getTime();

const standing = (s: { arcId: string; points: number }, rank: number) => ({
  rank,
  arcId: s.arcId,
  points: s.points,
});

export const tournamentBoard = async (
  auth: AuthContext,
  params: { gameId: string; tournamentId: string; periodId: string },
  query: { limit: number; offset: number; arcId?: string | undefined; me?: 'true' | 'false' | undefined },
  now = new Date(),
) => {
  const { game, studio } = await readableGame(auth, params.gameId);
  const t = await requireTournament(game.id, params.tournamentId);
  const p = periodNamed(t, params.periodId);
  if (!p || expired(t, p, now) || Date.parse(p.startsAt) > now.getTime()) throw errors.notFound('Period');
  const board = periodBoard(game.id, { tournamentId: t.tournamentId, period: p.id });
  const who = query.me === 'true' ? auth.userId : studio ? query.arcId : undefined;
  const [page, ranked, records] = await Promise.all([
    rankReads.pageOf(board, query.offset, query.limit),
    who ? playerRank(board, who) : undefined,
    recordsOf(game.id, [{ tournamentId: t.tournamentId, period: p }]),
  ]);
  // With the identifier the studio knows each player by and their display name (one wave of batched reads).
  const me = { rank: ranked?.rank ?? 0, arcId: who ?? '', points: ranked?.points ?? 0 };
  const [entries = [], [self] = [], neighbours = []] = await labelEntries(
    game.id,
    [page.map((s, i) => standing(s, query.offset + i + 1)), who ? [me] : [], ranked?.neighbours ?? []],
    studio ? 'studio' : 'player',
  );
  return {
    period: periodView(p, now, records(t.tournamentId, p.id)),
    entries,
    player: who
      ? {
          arcId: who,
          rank: ranked ? me.rank : null,
          points: me.points,
          playerId: self?.playerId ?? null,
          displayName: self?.displayName ?? null,
          neighbours,
        }
      : null,
  };
};

/** A running (or upcoming) period as the play domain scores it. */
export const runOf = (t: Tournament, p: Period): RunningPeriod => ({
  tournamentId: t.tournamentId,
  period: p.id,
  endsAt: p.endsAt,
  scoring: t.scoring,
  joinRequired: t.joinRequired,
  maxEntrants: t.maxEntrants,
  maxAttempts: t.maxAttempts,
  expiresAt: Math.floor(Date.parse(p.endsAt) / 1000) + t.retentionDays * DAY_SECONDS,
  closesAt: closesAt(t, p),
});

/** The periods of a game's tournaments running at `at` (one GetItem: the game's live index). */
export const runningPeriods = async (gameId: string, at: Date): Promise<RunningPeriod[]> => {
  const { live } = await readLive(gameId);
  return [...live.values()].flatMap((t) => {
    const p = t.status === 'scheduled' ? periodAt(t, at) : undefined;
    return p ? [runOf(t, p)] : [];
  });
};

const entryView = (item: Record<string, unknown>) => ({
  tournamentId: String(item.tournamentId),
  period: String(item.period),
  points: Number(item.points ?? 0),
  attempts: Number(item.attempts ?? 0),
  joinedAt: String(item.joinedAt ?? item.updatedAt ?? ''),
});

/** The player caller of a game: a game-scoped token of this game (checked by the handler), or a bearer token. */
const playerOf = (auth: AuthContext, _gameId: string) => {
  return auth.userId;
};

/** POST …/join: enters the period running now, or else the next one. */
export const joinTournament = async (
  auth: AuthContext,
  gameId: string,
  tournamentId: string,
  now = new Date(),
) => {
  const arcId = playerOf(auth, gameId);
  const game = await requireGame(gameId);
  const t = await requireTournament(game.id, tournamentId);
  const p = t.status === 'scheduled' ? (periodAt(t, now) ?? nextPeriod(t, now)) : undefined;
  if (!p)
    throw new AppError('TOURNAMENT_NOT_RUNNING', 'The tournament is cancelled or has no period left to join');
  const run = runOf(t, p);
  // The entry counts on the day's figures (lib/insights), in the same transaction; a conflict on their item
  // (another write of the game's figures at that instant) is tried again.
  const join = () =>
    transactNamed({
      ...joinItems(game.id, arcId, run, now.toISOString()),
      figures: insightsWrite(game.id, utcDay(now), { tournamentEntrants: 1 }),
    });
  let failed = await join();
  for (
    let retry = 0;
    retry < 3 && failed && Object.values(failed).every((c) => c === 'TransactionConflict');
    retry++
  )
    failed = await join();
  if (failed) {
    if (failed.period === 'ConditionalCheckFailed' && failed.entry !== 'ConditionalCheckFailed')
      throw new AppError('TOURNAMENT_FULL', `The period has its maximum of ${t.maxEntrants} entrants`);
    const key = tournamentPlayKeys.entry(game.id, arcId, t.tournamentId, p.id);
    const item = (await getItems([key])).get(`${key.pk}|${key.sk}`);
    if (!item)
      throw new Error(
        `Joining ${t.tournamentId} ${p.id} of ${game.id} was cancelled: ${JSON.stringify(failed)}`,
      );
    return { created: false, entry: entryView(item) };
  }
  return {
    created: true,
    entry: {
      tournamentId: t.tournamentId,
      period: p.id,
      points: 0,
      attempts: 0,
      joinedAt: now.toISOString(),
    },
  };
};

/** GET /tournament-entries/{gameId}/me. */
export const myEntries = async (
  auth: AuthContext,
  gameId: string,
  query: { limit: number; cursor?: string | undefined },
) => {
  const arcId = playerOf(auth, gameId);
  const game = await requireGame(gameId);
  const page = await listEntries(game.id, arcId, query.limit, query.cursor);
  return { data: page.items.map(entryView), meta: { limit: query.limit, nextCursor: page.nextCursor } };
};

/** GET …/periods/{periodId}/results: the frozen results of a closed period, each prize with its transfer. */
export const periodResults = async (
  auth: AuthContext,
  params: { gameId: string; tournamentId: string; periodId: string },
  now = new Date(),
) => {
  const { game, studio } = await readableGame(auth, params.gameId);
  const t = await requireTournament(game.id, params.tournamentId);
  // A period not started yet answers too (`open`, no results): the studio sees what it deposited for it.
  const p = periodNamed(t, params.periodId);
  if (!p) throw errors.notFound('Period');
  const ref = { tournamentId: t.tournamentId, periodId: p.id };
  const [run, records, fund] = await Promise.all([
    prizeRunOf(game.id, { ...ref, endsAt: p.endsAt }),
    recordsOf(game.id, [{ tournamentId: t.tournamentId, period: p }]),
    periodFundView({ gameId: game.id, ...ref }),
  ]);
  const payouts = run ? await payoutRecords(game.id, run.day, ref) : [];
  const byArc = new Map(payouts.map((r) => [r.arcId, r]));
  const lines = new Map((run?.lines ?? []).map((l) => [l.arcId, l]));
  const [labelled = []] = await labelEntries(
    game.id,
    [run?.prize?.results ?? []],
    studio ? 'studio' : 'player',
  );
  return {
    period: periodView(p, now, records(t.tournamentId, p.id)),
    status: !run ? ('open' as const) : run.status === 'settled' ? ('paid' as const) : ('paying' as const),
    closesAt: closesAt(t, p),
    potLamports: run?.prize?.potLamports ?? null,
    fund,
    voided: run?.prize?.voided ?? null,
    results: labelled.map((r) => {
      const record = byArc.get(r.arcId);
      const carried = record?.status === 'carried';
      return {
        ...r,
        prizeLamports: lines.get(r.arcId)?.share ?? '0',
        payout: record
          ? {
              status: record.status,
              wallet: record.wallet,
              sentLamports: carried ? '0' : record.send,
              feeLamports: carried ? '0' : record.fee,
              carriedOutLamports: carried ? record.due : record.carryOut,
              signature: record.status === 'confirmed' ? (record.signature ?? null) : null,
            }
          : null,
      };
    }),
  };
};
