// What one player's entries of a batch save do, decided from the state read before (pure: no I/O, nothing
// DynamoDB-shaped): the per-entry results and the typed writes that apply them, each carrying the conditions it
// relies on (saves/model.ts). saves/writes.ts turns the writes into transaction items; saves/save.ts reads,
// plans, writes and retries.
import type { GameRecord } from '../../games/index.js';
import { applyMultiplier } from '../../rewards/index.js';
import { defaultSessionId, utcDay } from '../keys.js';
import { type BoardMeta, metaOf } from '../ranks/board.js';
import { type PeriodState, planEntry, sessionMark } from '../ranks/tournament-entries.js';
import { assessRisk } from '../risk.js';
import type {
  AddToDay,
  AddToSession,
  EntryReason,
  EntryResult,
  Indexed,
  OpenSession,
  PlanWrite,
  PlayerPlan,
  RecordIdempotency,
  SessionChange,
  SessionStillAbsent,
  TotalRead,
} from './model.js';

/**
 * The game settings a plan reads: its id and caps. A game always has caps (its own or the defaults); null checks
 * none, for the plan on its own.
 */
export interface PlanGame {
  id: GameRecord['id'];
  maxScorePerSession: number | null;
  maxSessionsPerDay: number | null;
  maxCumulativePointsPerDay: number | null;
}

/** A player's total of one UTC day as read. */
export interface DayTotal {
  points: number;
  sessions: number;
  /** When it reached its points (absent for a total that never had any). */
  reachedAt?: string | undefined;
  /** The shard its board entry is in (undefined: off the board). */
  shard?: number | undefined;
  /** Whether a counted activity of the player marked the day already (lib/insights: an active player). */
  played?: boolean | undefined;
}

/** A session as read. Entries count towards it only while it is an active backend session of the player. */
export interface StoredSession {
  status: string;
  arcId: string;
  source: string;
  /** The UTC day it opened on: it keeps counting towards that day's total. */
  day: string;
  points: number;
  saves: number;
  capHits: number;
  createdAt: string;
  /** The risk score last written (0 for a session written before scores were kept). */
  riskScore: number;
  /** The tournament periods it counts into (`sessionMark`). */
  marks?: ReadonlySet<string> | undefined;
}

/** What one plan reads: the game, the player, the state read for them, and the instant it is made at. */
export interface PlanInput {
  game: PlanGame;
  arcId: string;
  now: Date;
  /** Active multiplier: each entry's points are scaled before the caps. */
  multiplierBps: number;
  /** Day totals by UTC day (absent: nothing yet). */
  days: ReadonlyMap<string, DayTotal>;
  /** The all-time total (absent: nothing yet). */
  allTime?: TotalRead | undefined;
  /** The day the player was first seen in the game (undefined: not yet, or before the insights kept it). */
  firstDay?: string | undefined;
  /** The boards' meta items as read (ranks/board.ts `metaOf`): the day boards' by UTC day, and the all-time board's. */
  boards: { days: ReadonlyMap<string, BoardMeta>; allTime: BoardMeta };
  /** Sessions by id (absent: a new session). */
  sessions: ReadonlyMap<string, StoredSession>;
  /** What earlier requests accepted, by idempotency key. */
  idempotency: ReadonlyMap<string, { accepted: number }>;
  /** The tournament periods of the game running at `now`, with the player's entries (none: no tournament). */
  tournaments?: readonly PeriodState[] | undefined;
}

interface SessionPlan {
  sessionId: string;
  exists: boolean;
  day: string;
  points: number;
  saves: number;
  capHits: number;
  createdAt: string;
  add: number;
  addSaves: number;
  addCapHits: number;
}

interface DayPlan {
  points: number;
  sessions: number;
  add: number;
  newSessions: number;
}

interface Planning {
  input: PlanInput;
  today: string;
  at: string;
  sessions: Map<string, SessionPlan>;
  days: Map<string, DayPlan>;
  results: EntryResult[];
  idempotency: Array<{ key: string; result: EntryResult }>;
  seenKeys: Map<string, EntryResult>;
  /** New sessions refused by maxSessionsPerDay (checked still absent when the plan is written). */
  refused: Set<string>;
}

const IDEMPOTENCY_TTL_SECONDS = 24 * 3600;

const room = (cap: number | null, used: number) =>
  cap === null ? Number.POSITIVE_INFINITY : Math.max(0, cap - used);

/** The player's total of a day as read, with what this plan adds to it. */
const dayPlan = (p: Planning, day: string): DayPlan => {
  let d = p.days.get(day);
  if (!d) {
    const read = p.input.days.get(day);
    d = { points: read?.points ?? 0, sessions: read?.sessions ?? 0, add: 0, newSessions: 0 };
    p.days.set(day, d);
  }
  return d;
};

/** The session an entry counts towards (opened when new), or why the entry takes no points. */
const sessionFor = (p: Planning, sessionId: string): SessionPlan | EntryReason => {
  const planned = p.sessions.get(sessionId);
  if (planned) return planned;
  const { game, arcId } = p.input;
  const stored = p.input.sessions.get(sessionId);
  if (stored && (stored.status !== 'active' || stored.arcId !== arcId || stored.source !== 'backend'))
    return 'session_closed';
  if (!stored) {
    const day = dayPlan(p, p.today);
    if (game.maxSessionsPerDay !== null && day.sessions + day.newSessions >= game.maxSessionsPerDay) {
      p.refused.add(sessionId);
      return 'max_sessions_per_day';
    }
    day.newSessions += 1;
  }
  const session: SessionPlan = {
    sessionId,
    exists: stored !== undefined,
    day: stored?.day ?? p.today,
    points: stored?.points ?? 0,
    saves: stored?.saves ?? 0,
    capHits: stored?.capHits ?? 0,
    createdAt: stored?.createdAt ?? p.at,
    add: 0,
    addSaves: 0,
    addCapHits: 0,
  };
  p.sessions.set(sessionId, session);
  return session;
};

/** How much of `points` the session's and the day's caps let in, and which one clipped it. */
const capped = (game: PlanGame, session: SessionPlan, day: DayPlan, points: number) => {
  const sessionRoom = room(game.maxScorePerSession, session.points + session.add);
  const dayRoom = room(game.maxCumulativePointsPerDay, day.points + day.add);
  const accepted = Math.min(points, sessionRoom, dayRoom);
  const reason: EntryReason | null =
    accepted === points
      ? null
      : sessionRoom <= dayRoom
        ? 'max_score_per_session'
        : 'max_cumulative_points_per_day';
  return { accepted, reason };
};

const record = (p: Planning, result: EntryResult, key: string | undefined) => {
  p.results.push(result);
  if (key) {
    p.seenKeys.set(key, result);
    p.idempotency.push({ key, result });
  }
};

const planOne = (p: Planning, { index, entry }: Indexed) => {
  const { game, arcId, multiplierBps } = p.input;
  const sessionId = entry.sessionId ?? defaultSessionId(p.today, arcId);
  const base = { index, playerId: entry.playerId, arcId, sessionId, requested: entry.points };
  const key = entry.idempotencyKey;
  const earlier = key ? (p.seenKeys.get(key) ?? p.input.idempotency.get(key)) : undefined;
  if (earlier) {
    p.results.push({ ...base, accepted: earlier.accepted, status: 'duplicate', reason: null });
    return;
  }
  const session = sessionFor(p, sessionId);
  if (typeof session === 'string') {
    record(p, { ...base, accepted: 0, status: 'rejected', reason: session }, key);
    return;
  }
  const day = dayPlan(p, session.day);
  const { accepted, reason } = capped(game, session, day, applyMultiplier(entry.points, multiplierBps));
  session.add += accepted;
  session.addSaves += 1;
  if (reason) session.addCapHits += 1;
  day.add += accepted;
  const status = reason === null ? 'accepted' : accepted > 0 ? 'clipped' : 'rejected';
  record(p, { ...base, accepted, status, reason }, key);
};

/** A bound on a stored value: the cap less what the write adds, when there is a cap and the write adds. */
const bound = (cap: number | null, add: number) => (cap !== null && add > 0 ? cap - add : null);

/** A total as its board move starts from: its points and when it reached them (none: not on the board). */
const totalRead = (points: number, read: DayTotal | undefined): TotalRead | undefined =>
  points !== 0 || read?.reachedAt !== undefined
    ? { points, reachedAt: read?.reachedAt ?? '', shard: read?.shard }
    : undefined;

const dayWrite = ({ game, arcId, days, boards }: PlanInput, day: string, d: DayPlan): AddToDay => ({
  kind: 'addToDay',
  gameId: game.id,
  arcId,
  day,
  points: d.add,
  sessions: d.newSessions,
  read: totalRead(d.points, days.get(day)),
  // Every day a plan writes is read with its board's meta item (saves/save.ts); absent there: an empty board.
  meta: boards.days.get(day) ?? metaOf(undefined),
  requires: {
    pointsAtMost: bound(game.maxCumulativePointsPerDay, d.add),
    sessionsAtMost: bound(game.maxSessionsPerDay, d.newSessions),
  },
});

const sessionWrite = (
  { game, arcId, now }: PlanInput,
  s: SessionPlan,
  marks: Array<[string, number]>,
): OpenSession | AddToSession => {
  const change: SessionChange = {
    ...(marks.length > 0 ? { marks } : {}),
    gameId: game.id,
    arcId,
    sessionId: s.sessionId,
    points: s.add,
    saves: s.addSaves,
    capHits: s.addCapHits,
    risk: assessRisk({
      points: s.points + s.add,
      saves: s.saves + s.addSaves,
      capHits: s.capHits + s.addCapHits,
      maxScorePerSession: game.maxScorePerSession,
      durationSeconds: (now.getTime() - Date.parse(s.createdAt)) / 1000,
    }),
  };
  return s.exists
    ? {
        kind: 'addToSession',
        ...change,
        requires: { status: 'active', arcId, pointsAtMost: bound(game.maxScorePerSession, s.add) },
      }
    : { kind: 'openSession', ...change, day: s.day, requires: { absent: true } };
};

const idempotencyWrite = (
  { game, now }: PlanInput,
  { key, result }: { key: string; result: EntryResult },
): RecordIdempotency => ({
  kind: 'recordIdempotency',
  gameId: game.id,
  key,
  accepted: result.accepted,
  status: result.status,
  expiresAt: Math.floor(now.getTime() / 1000) + IDEMPOTENCY_TTL_SECONDS,
  requires: { absent: true },
});

/**
 * Decide, from the state read, what each entry of one player may add, and the writes that apply it: caps are
 * re-checked by the writes' conditions, so a stale plan fails instead of overshooting. The idempotency record
 * keeps the result (after any multiplier), so a replay never multiplies twice.
 */
export const planPlayer = (input: PlanInput, entries: Indexed[]): PlayerPlan => {
  const p: Planning = {
    input,
    today: utcDay(input.now),
    at: input.now.toISOString(),
    sessions: new Map(),
    days: new Map(),
    results: [],
    idempotency: [],
    seenKeys: new Map(),
    refused: new Set(),
  };
  for (const entry of entries) planOne(p, entry);
  // Each running tournament period the player is (or, open, becomes) an entrant of counts the sessions' adds.
  const adds = [...p.sessions.values()].map((s) => ({
    sessionId: s.sessionId,
    add: s.add,
    marks: input.sessions.get(s.sessionId)?.marks ?? new Set<string>(),
  }));
  const entryWrites = (input.tournaments ?? []).flatMap((state) => {
    const w = planEntry(input.game.id, input.arcId, state, adds);
    return w ? [w] : [];
  });
  const marksOf = (sessionId: string) =>
    entryWrites.flatMap((w) =>
      w.counted
        .filter(([sid]) => sid === sessionId)
        .map(([, add]): [string, number] => [sessionMark(w.run), add]),
    );
  const days = [...p.days].filter(([, d]) => d.add !== 0 || d.newSessions !== 0);
  const total = days.reduce((sum, [, d]) => sum + d.add, 0);
  const writes: PlanWrite[] = [
    ...days.map(([day, d]) => dayWrite(input, day, d)),
    ...(total > 0
      ? [
          {
            kind: 'addToAllTime' as const,
            gameId: input.game.id,
            arcId: input.arcId,
            points: total,
            read: input.allTime,
            meta: input.boards.allTime,
          },
        ]
      : []),
    ...[...p.sessions.values()].map((s) => sessionWrite(input, s, marksOf(s.sessionId))),
    ...p.idempotency.map((r) => idempotencyWrite(input, r)),
    ...[...p.refused].map(
      (sessionId): SessionStillAbsent => ({
        kind: 'sessionStillAbsent',
        gameId: input.game.id,
        sessionId,
        requires: { absent: true },
      }),
    ),
    ...entryWrites,
  ];
  return { results: p.results, writes, total, at: p.at };
};
