// The batch-save planner as a pure function: game caps, the state read and the entries in, results and typed
// writes out. No stack: each case is plain data, and each asserts exact values.
import { describe, expect, it } from 'vitest';
import { metaOf } from '../../lib/play/ranks/board.js';
import type { EntryReason, EntryStatus, PlanWrite, SaveEntry } from '../../lib/play/saves/model.js';
import {
  type DayTotal,
  type PlanGame,
  type PlanInput,
  planPlayer,
  type StoredSession,
} from '../../lib/play/saves/plan.js';

const GAME = 'g1';
const ARC = 'arc-1';
const NOW = new Date('2026-03-10T12:00:00.000Z');
const TODAY = '2026-03-10';
const DEFAULT_SESSION = `backend-${TODAY}-${ARC}`;
const DAY_SECONDS = 24 * 3600;
const NO_RISK = { score: 0, reasons: [] };
/** A board nothing was saved on yet (its meta item absent). */
const EMPTY_BOARD = metaOf(undefined);

type Caps = Partial<Omit<PlanGame, 'id'>>;

const input = (
  caps: Caps = {},
  state: {
    days?: Record<string, DayTotal>;
    sessions?: Record<string, Partial<StoredSession>>;
    idempotency?: Record<string, number>;
    multiplierBps?: number;
    now?: Date;
  } = {},
): PlanInput => ({
  game: {
    id: GAME,
    maxScorePerSession: null,
    maxSessionsPerDay: null,
    maxCumulativePointsPerDay: null,
    ...caps,
  },
  arcId: ARC,
  now: state.now ?? NOW,
  multiplierBps: state.multiplierBps ?? 10_000,
  days: new Map(Object.entries(state.days ?? {})),
  boards: {
    days: new Map(),
    allTime: EMPTY_BOARD,
  },
  sessions: new Map(
    Object.entries(state.sessions ?? {}).map(([id, s]) => [
      id,
      {
        status: 'active',
        arcId: ARC,
        source: 'backend',
        day: TODAY,
        points: 0,
        saves: 0,
        capHits: 0,
        createdAt: NOW.toISOString(),
        riskScore: 0,
        ...s,
      },
    ]),
  ),
  idempotency: new Map(Object.entries(state.idempotency ?? {}).map(([k, accepted]) => [k, { accepted }])),
});

/** Entries of one player, indexed in order. */
const entries = (...list: Array<Omit<SaveEntry, 'playerId'>>) =>
  list.map((e, index) => ({ index, entry: { playerId: 'p1', ...e } }));

/** Each result as [accepted, status, reason]. */
const outcomes = (plan: ReturnType<typeof planPlayer>) =>
  plan.results.map((r) => [r.accepted, r.status, r.reason] as const);

const who = { gameId: GAME, arcId: ARC };

interface CapCase {
  name: string;
  caps: Caps;
  state?: Parameters<typeof input>[1];
  entries: Array<Omit<SaveEntry, 'playerId'>>;
  expected: Array<readonly [number, EntryStatus, EntryReason | null]>;
}

describe('planPlayer: caps', () => {
  const cases: CapCase[] = [
    {
      name: 'no caps: everything is accepted',
      caps: {},
      entries: [{ points: 30 }, { points: 50 }],
      expected: [
        [30, 'accepted', null],
        [50, 'accepted', null],
      ],
    },
    {
      name: 'maxScorePerSession clips the entry that crosses it and rejects the next',
      caps: { maxScorePerSession: 100 },
      entries: [{ points: 60 }, { points: 60 }, { points: 10 }],
      expected: [
        [60, 'accepted', null],
        [40, 'clipped', 'max_score_per_session'],
        [0, 'rejected', 'max_score_per_session'],
      ],
    },
    {
      name: 'maxScorePerSession counts the points the session already holds',
      caps: { maxScorePerSession: 100 },
      state: { sessions: { s1: { points: 90 } } },
      entries: [{ points: 20, sessionId: 's1' }],
      expected: [[10, 'clipped', 'max_score_per_session']],
    },
    {
      name: 'maxScorePerSession is per session: another session has its own room',
      caps: { maxScorePerSession: 50 },
      entries: [
        { points: 50, sessionId: 's1' },
        { points: 50, sessionId: 's2' },
      ],
      expected: [
        [50, 'accepted', null],
        [50, 'accepted', null],
      ],
    },
    {
      name: "maxCumulativePointsPerDay counts the day's total read and what the plan adds",
      caps: { maxCumulativePointsPerDay: 100 },
      state: { days: { [TODAY]: { points: 70, sessions: 1 } } },
      entries: [{ points: 20 }, { points: 20 }],
      expected: [
        [20, 'accepted', null],
        [10, 'clipped', 'max_cumulative_points_per_day'],
      ],
    },
    {
      name: 'maxCumulativePointsPerDay spans sessions',
      caps: { maxCumulativePointsPerDay: 100 },
      entries: [
        { points: 80, sessionId: 's1' },
        { points: 80, sessionId: 's2' },
      ],
      expected: [
        [80, 'accepted', null],
        [20, 'clipped', 'max_cumulative_points_per_day'],
      ],
    },
    {
      name: 'a day already at its cap rejects',
      caps: { maxCumulativePointsPerDay: 100 },
      state: { days: { [TODAY]: { points: 100, sessions: 1 } } },
      entries: [{ points: 5 }],
      expected: [[0, 'rejected', 'max_cumulative_points_per_day']],
    },
    {
      name: 'the tighter cap names the reason: the day',
      caps: { maxScorePerSession: 50, maxCumulativePointsPerDay: 80 },
      state: { days: { [TODAY]: { points: 40, sessions: 1 } } },
      entries: [{ points: 45 }],
      expected: [[40, 'clipped', 'max_cumulative_points_per_day']],
    },
    {
      name: 'the tighter cap names the reason: the session (also on a tie)',
      caps: { maxScorePerSession: 40, maxCumulativePointsPerDay: 80 },
      state: { days: { [TODAY]: { points: 40, sessions: 1 } } },
      entries: [{ points: 45 }],
      expected: [[40, 'clipped', 'max_score_per_session']],
    },
    {
      name: 'maxSessionsPerDay rejects a new session beyond it, and counts the sessions the plan opens',
      caps: { maxSessionsPerDay: 2 },
      state: { days: { [TODAY]: { points: 0, sessions: 1 } } },
      entries: [
        { points: 5, sessionId: 's1' },
        { points: 5, sessionId: 's2' },
        { points: 5, sessionId: 's1' },
      ],
      expected: [
        [5, 'accepted', null],
        [0, 'rejected', 'max_sessions_per_day'],
        [5, 'accepted', null],
      ],
    },
    {
      name: 'maxSessionsPerDay does not stop saves to a session already open',
      caps: { maxSessionsPerDay: 1 },
      state: { days: { [TODAY]: { points: 10, sessions: 1 } }, sessions: { s1: { points: 10 } } },
      entries: [{ points: 5, sessionId: 's1' }],
      expected: [[5, 'accepted', null]],
    },
    {
      name: "a committed, another player's or an SDK session is closed to backend saves",
      caps: {},
      state: {
        sessions: {
          done: { status: 'committed' },
          theirs: { arcId: 'arc-2' },
          sdk: { source: 'sdk' },
        },
      },
      entries: [
        { points: 5, sessionId: 'done' },
        { points: 5, sessionId: 'theirs' },
        { points: 5, sessionId: 'sdk' },
      ],
      expected: [
        [0, 'rejected', 'session_closed'],
        [0, 'rejected', 'session_closed'],
        [0, 'rejected', 'session_closed'],
      ],
    },
  ];

  it.each(cases)('$name', ({ caps, state, entries: list, expected }) => {
    expect(outcomes(planPlayer(input(caps, state), entries(...list)))).toEqual(expected);
  });

  it('plans the writes of a new session with every cap, each write guarded by its cap less what it adds', () => {
    const caps = { maxScorePerSession: 60, maxSessionsPerDay: 3, maxCumulativePointsPerDay: 100 };
    const plan = planPlayer(input(caps), entries({ points: 50 }, { points: 30 }));
    expect(outcomes(plan)).toEqual([
      [50, 'accepted', null],
      [10, 'clipped', 'max_score_per_session'],
    ]);
    expect(plan.total).toBe(60);
    expect(plan.at).toBe('2026-03-10T12:00:00.000Z');
    expect(plan.writes).toEqual<PlanWrite[]>([
      {
        kind: 'addToDay',
        ...who,
        day: TODAY,
        points: 60,
        sessions: 1,
        meta: EMPTY_BOARD,
        requires: { pointsAtMost: 40, sessionsAtMost: 2 },
      },
      { kind: 'addToAllTime', ...who, points: 60, meta: EMPTY_BOARD },
      {
        kind: 'openSession',
        ...who,
        sessionId: DEFAULT_SESSION,
        day: TODAY,
        points: 60,
        saves: 2,
        capHits: 1,
        // A cap hit (0.3) and ending on maxScorePerSession (0.2).
        risk: { score: 0.5, reasons: ['cap_hit', 'at_session_cap'] },
        requires: { absent: true },
      },
    ]);
  });

  it('plans the writes of an open session: active, still the player’s, under its cap', () => {
    const plan = planPlayer(
      input(
        { maxScorePerSession: 100 },
        {
          days: { [TODAY]: { points: 30, sessions: 1 } },
          sessions: { s1: { points: 30, saves: 3, createdAt: '2026-03-10T11:00:00.000Z' } },
        },
      ),
      entries({ points: 25, sessionId: 's1' }),
    );
    expect(plan.writes).toEqual<PlanWrite[]>([
      {
        kind: 'addToDay',
        ...who,
        day: TODAY,
        points: 25,
        sessions: 0,
        // The total as read: its move on the board starts there (no reachedAt stored in this fixture).
        read: { points: 30, reachedAt: '' },
        meta: EMPTY_BOARD,
        requires: { pointsAtMost: null, sessionsAtMost: null },
      },
      { kind: 'addToAllTime', ...who, points: 25, meta: EMPTY_BOARD },
      {
        kind: 'addToSession',
        ...who,
        sessionId: 's1',
        points: 25,
        saves: 1,
        capHits: 0,
        risk: NO_RISK,
        requires: { status: 'active', arcId: ARC, pointsAtMost: 75 },
      },
    ]);
  });

  it('still opens the session and counts the save of an entry the day cap rejects, adding no points', () => {
    const plan = planPlayer(
      input(
        { maxCumulativePointsPerDay: 100, maxSessionsPerDay: 5 },
        { days: { [TODAY]: { points: 100, sessions: 1 } } },
      ),
      entries({ points: 5 }),
    );
    expect(plan.total).toBe(0);
    expect(plan.writes).toEqual<PlanWrite[]>([
      {
        kind: 'addToDay',
        ...who,
        day: TODAY,
        points: 0,
        sessions: 1,
        read: { points: 100, reachedAt: '' },
        meta: EMPTY_BOARD,
        requires: { pointsAtMost: null, sessionsAtMost: 4 },
      },
      {
        kind: 'openSession',
        ...who,
        sessionId: DEFAULT_SESSION,
        day: TODAY,
        points: 0,
        saves: 1,
        capHits: 1,
        risk: { score: 0.3, reasons: ['cap_hit'] },
        requires: { absent: true },
      },
    ]);
  });

  it('writes nothing for entries a closed session rejects', () => {
    const plan = planPlayer(
      input({}, { sessions: { s1: { status: 'invalidated' } } }),
      entries({ points: 9, sessionId: 's1' }),
    );
    expect(plan).toEqual({
      results: [
        {
          index: 0,
          playerId: 'p1',
          arcId: ARC,
          sessionId: 's1',
          requested: 9,
          accepted: 0,
          status: 'rejected',
          reason: 'session_closed',
        },
      ],
      writes: [],
      total: 0,
      at: NOW.toISOString(),
    });
  });
});

describe('planPlayer: multipliers apply before the caps', () => {
  const cases: Array<{
    name: string;
    bps: number;
    caps: Caps;
    points: number[];
    expected: Array<readonly [number, EntryStatus, EntryReason | null]>;
  }> = [
    {
      name: '1x leaves points as they are',
      bps: 10_000,
      caps: {},
      points: [10],
      expected: [[10, 'accepted', null]],
    },
    {
      name: '1.5x scales and rounds down',
      bps: 15_000,
      caps: {},
      points: [10, 3],
      expected: [
        [15, 'accepted', null],
        [4, 'accepted', null],
      ],
    },
    {
      name: '2x meets maxScorePerSession sooner',
      bps: 20_000,
      caps: { maxScorePerSession: 100 },
      points: [40, 40],
      expected: [
        [80, 'accepted', null],
        [20, 'clipped', 'max_score_per_session'],
      ],
    },
    {
      name: '3x is clipped by the day, not tripled past it',
      bps: 30_000,
      caps: { maxCumulativePointsPerDay: 50 },
      points: [20],
      expected: [[50, 'clipped', 'max_cumulative_points_per_day']],
    },
  ];

  it.each(cases)('$name', ({ bps, caps, points, expected }) => {
    const plan = planPlayer(
      input(caps, { multiplierBps: bps }),
      entries(...points.map((p) => ({ points: p }))),
    );
    expect(outcomes(plan)).toEqual(expected);
    expect(plan.results.map((r) => r.requested)).toEqual(points);
    expect(plan.total).toBe(expected.reduce((sum, [accepted]) => sum + accepted, 0));
  });

  it('keeps the multiplied result in the idempotency record, so a replay never multiplies again', () => {
    const plan = planPlayer(
      input({}, { multiplierBps: 20_000 }),
      entries({ points: 15, idempotencyKey: 'k1' }),
    );
    expect(plan.writes.at(-1)).toEqual<PlanWrite>({
      kind: 'recordIdempotency',
      gameId: GAME,
      key: 'k1',
      accepted: 30,
      status: 'accepted',
      expiresAt: NOW.getTime() / 1000 + DAY_SECONDS,
      requires: { absent: true },
    });
    const replay = planPlayer(
      input({}, { multiplierBps: 20_000, idempotency: { k1: 30 } }),
      entries({ points: 15, idempotencyKey: 'k1' }),
    );
    expect(outcomes(replay)).toEqual([[30, 'duplicate', null]]);
  });
});

describe('planPlayer: idempotent replays', () => {
  it('answers a key recorded earlier with its result, adds nothing and writes nothing', () => {
    const plan = planPlayer(
      input({ maxScorePerSession: 100 }, { idempotency: { k1: 25 } }),
      entries({ points: 40, idempotencyKey: 'k1' }),
    );
    expect(outcomes(plan)).toEqual([[25, 'duplicate', null]]);
    expect(plan.writes).toEqual([]);
    expect(plan.total).toBe(0);
  });

  it('answers a key repeated within the plan with its first result, recorded once', () => {
    const plan = planPlayer(
      input({ maxScorePerSession: 100 }),
      entries({ points: 10, idempotencyKey: 'k1' }, { points: 99, idempotencyKey: 'k1' }, { points: 5 }),
    );
    expect(outcomes(plan)).toEqual([
      [10, 'accepted', null],
      [10, 'duplicate', null],
      [5, 'accepted', null],
    ]);
    expect(plan.total).toBe(15);
    const records = plan.writes.filter((w) => w.kind === 'recordIdempotency');
    expect(records.map((w) => [w.key, w.accepted, w.status])).toEqual([['k1', 10, 'accepted']]);
  });

  it('takes no room under the caps for a replay: the entry after it still fits', () => {
    const plan = planPlayer(
      input({ maxCumulativePointsPerDay: 50 }, { idempotency: { old: 40 } }),
      entries({ points: 40, idempotencyKey: 'old' }, { points: 50 }),
    );
    expect(outcomes(plan)).toEqual([
      [40, 'duplicate', null],
      [50, 'accepted', null],
    ]);
  });

  it('records a rejected entry too, so its replay stays rejected', () => {
    const plan = planPlayer(
      input({ maxCumulativePointsPerDay: 10 }, { days: { [TODAY]: { points: 10, sessions: 1 } } }),
      entries({ points: 5, idempotencyKey: 'k2' }),
    );
    expect(plan.writes.filter((w) => w.kind === 'recordIdempotency')).toEqual([
      {
        kind: 'recordIdempotency',
        gameId: GAME,
        key: 'k2',
        accepted: 0,
        status: 'rejected',
        expiresAt: NOW.getTime() / 1000 + DAY_SECONDS,
        requires: { absent: true },
      },
    ]);
    const replay = planPlayer(
      input({ maxCumulativePointsPerDay: 10 }, { idempotency: { k2: 0 } }),
      entries({ points: 5, idempotencyKey: 'k2' }),
    );
    expect(outcomes(replay)).toEqual([[0, 'duplicate', null]]);
  });
});

describe('planPlayer: UTC day boundaries', () => {
  const LAST_MS = new Date('2026-03-10T23:59:59.999Z');
  const MIDNIGHT = new Date('2026-03-11T00:00:00.000Z');
  const full = { days: { '2026-03-10': { points: 100, sessions: 3 } } };
  const caps = { maxCumulativePointsPerDay: 100, maxSessionsPerDay: 3 };

  const cases: Array<{
    name: string;
    now: Date;
    sessionId?: string;
    expected: readonly [number, EntryStatus, EntryReason | null];
    sessionIdSaved: string;
    day: string;
  }> = [
    {
      name: "the last millisecond of a day counts towards that day's (full) caps",
      now: LAST_MS,
      expected: [0, 'rejected', 'max_sessions_per_day'],
      sessionIdSaved: `backend-2026-03-10-${ARC}`,
      day: '2026-03-10',
    },
    {
      name: 'midnight UTC starts a new day: new default session, fresh caps',
      now: MIDNIGHT,
      expected: [30, 'accepted', null],
      sessionIdSaved: `backend-2026-03-11-${ARC}`,
      day: '2026-03-11',
    },
  ];

  it.each(cases)('$name', ({ now, expected, sessionIdSaved, day }) => {
    const plan = planPlayer(input(caps, { ...full, now }), entries({ points: 30 }));
    expect(outcomes(plan)).toEqual([expected]);
    expect(plan.results[0]?.sessionId).toBe(sessionIdSaved);
    expect(plan.writes.filter((w) => w.kind === 'addToDay').map((w) => w.day)).toEqual(
      expected[0] > 0 ? [day] : [],
    );
  });

  it("a session opened before midnight keeps counting towards its own day's total and cap", () => {
    const plan = planPlayer(
      input(caps, {
        now: new Date('2026-03-11T00:00:01.000Z'),
        days: { '2026-03-10': { points: 95, sessions: 3 } },
        sessions: { evening: { day: '2026-03-10', points: 20, createdAt: '2026-03-10T23:50:00.000Z' } },
      }),
      entries({ points: 30, sessionId: 'evening' }, { points: 30 }),
    );
    expect(outcomes(plan)).toEqual([
      [5, 'clipped', 'max_cumulative_points_per_day'],
      [30, 'accepted', null],
    ]);
    expect(plan.writes.filter((w) => w.kind === 'addToDay')).toEqual<PlanWrite[]>([
      {
        kind: 'addToDay',
        ...who,
        day: '2026-03-10',
        points: 5,
        sessions: 0,
        read: { points: 95, reachedAt: '' },
        meta: EMPTY_BOARD,
        requires: { pointsAtMost: 95, sessionsAtMost: null },
      },
      {
        kind: 'addToDay',
        ...who,
        day: '2026-03-11',
        points: 30,
        sessions: 1,
        meta: EMPTY_BOARD,
        requires: { pointsAtMost: 70, sessionsAtMost: 2 },
      },
    ]);
    expect(plan.writes.filter((w) => w.kind === 'addToAllTime')).toEqual([
      { kind: 'addToAllTime', ...who, points: 35, meta: EMPTY_BOARD },
    ]);
  });
});

describe('planPlayer: refusals a concurrent save could disprove', () => {
  it('checks that each session refused by maxSessionsPerDay is still absent when the plan is written', () => {
    const plan = planPlayer(
      input(
        { maxSessionsPerDay: 1 },
        { days: { [TODAY]: { points: 10, sessions: 1 } }, sessions: { s1: {} } },
      ),
      entries(
        { points: 5, sessionId: 's1' },
        { points: 5, sessionId: 's2' },
        { points: 5, sessionId: 's3' },
        { points: 5, sessionId: 's2' },
      ),
    );
    expect(outcomes(plan).map(([, status]) => status)).toEqual([
      'accepted',
      'rejected',
      'rejected',
      'rejected',
    ]);
    expect(plan.writes.filter((w) => w.kind === 'sessionStillAbsent')).toEqual([
      { kind: 'sessionStillAbsent', gameId: expect.any(String), sessionId: 's2', requires: { absent: true } },
      { kind: 'sessionStillAbsent', gameId: expect.any(String), sessionId: 's3', requires: { absent: true } },
    ]);
  });

  it('writes only the checks when every entry is refused (the refusal still waits for them)', () => {
    const plan = planPlayer(
      input({ maxSessionsPerDay: 1 }, { days: { [TODAY]: { points: 10, sessions: 1 } } }),
      entries({ points: 5, sessionId: 'late' }),
    );
    expect(plan.writes.map((w) => w.kind)).toEqual(['sessionStillAbsent']);
  });
});
