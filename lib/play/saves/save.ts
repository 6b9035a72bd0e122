import { randomInt } from 'node:crypto';
import type { NativeAttributeValue } from '@aws-sdk/util-dynamodb';
import { isConditionFailure } from '../../adapters/dynamodb.js';
import type { AuthContext } from '../../core/auth.js';
import { AppError } from '../../core/errors.js';
import { countMetric, countMetricBy } from '../../core/metrics.js';
import type { GameRecord } from '../../games/index.js';
import { requireOwnedGame } from '../../games/index.js';
import { insightsWrite } from '../../insights/index.js';
import { outboxItem } from '../../outbox/index.js';
import { activeMultiplierBps, multiplierSlotKey } from '../../rewards/index.js';
import type { IdentityDirectory, PendingImport } from '../../user/index.js';
import { addToStat, parseIdentifiers, resolveIdentifiers } from '../../user/index.js';
import { defaultSessionId, playKeys, RISKY_THRESHOLD, utcDay } from '../keys.js';
import { type BoardMeta, entryShard, MIN_COPIES, metaKey, metaOf } from '../ranks/board.js';
import {
  periodStateKeys,
  periodStates,
  type RunningPeriod,
  type RunningPeriods,
  tournamentPlayKeys,
} from '../ranks/tournament-entries.js';
import { cancellationReasons, getItems, itemKey, type TransactItem, transact } from '../repository.js';
import { failedUnits, groupTransaction, packTransactions } from './groups.js';
import { withInsights } from './insights.js';
import type { EntryResult, Indexed, SaveEntry } from './model.js';
import { type DayTotal, type PlanInput, planPlayer, type StoredSession } from './plan.js';
import { planItems } from './writes.js';

type Item = Record<string, NativeAttributeValue>;

export type { EntryReason, EntryResult, EntryStatus, SaveEntry } from './model.js';

export interface SaveDeps {
  directory: IdentityDirectory;
  /** Where new players go to be imported into the provider (the import queue); absent: at once. */
  imports?: (pending: PendingImport[]) => Promise<void>;
  /** The game's tournament periods running at an instant (absent: the save scores no tournament). */
  tournaments?: RunningPeriods;
  now?: () => Date;
}

/**
 * Entries of one player planned together: the totals with their board counters (a few each, at most 2 per
 * level of the score tree) + sessions + idempotency records stay under 100 items.
 */
const ENTRIES_PER_PLAN = 25;
/**
 * Attempts per player that lose a race while the player's state stays as read (a conflict, or a condition that
 * failed with nothing of the player committed since): after that many the save answers CONFLICT. A lost race
 * after which the player's state moved is not counted: another save of the player committed, so the system
 * progressed (a total's board move is conditional on its exact points, so concurrent saves of one player
 * commit one at a time), and such losses are bounded by the number of saves racing for the player.
 */
const MAX_STALLED_ATTEMPTS = 6;
/** A ceiling on rounds whatever happens (a player whose saves never stop racing). */
const MAX_ROUNDS = 64;

const tooManyRaces = () =>
  new AppError('CONFLICT', 'Too many concurrent saves for one player; retry the batch');

/** Up to ENTRIES_PER_PLAN entries of one player: planned, written and retried together. */
interface Unit {
  arcId: string;
  entries: Indexed[];
}

/** A unit's plan at one attempt: its results and the writes that apply them. */
interface Planned {
  results: EntryResult[];
  total: number;
  items: TransactItem[];
  /** The player's state the plan was made from (what a rival's commit changes). */
  read: string;
  /** Sessions the plan takes over the risk threshold. */
  flagged: number;
  /** The periods the plan enters the player in (counted against their maxEntrants). */
  enters: string[];
}

/** State read for every player of a batch at once, used by each player's first attempt. */
interface Prefetched {
  at: Date;
  state: Map<string, Item>;
  runs: RunningPeriod[];
}

/** The sessions a unit's entries name (an entry without one: the player's default session of the day). */
const sessionIdsOf = ({ arcId, entries }: Unit, today: string) => [
  ...new Set(entries.map(({ entry }) => entry.sessionId ?? defaultSessionId(today, arcId))),
];

/**
 * Every item a unit's plan reads: today's and the all-time total, their boards' meta items, multiplier slot,
 * sessions, idempotency records.
 */
const stateKeys = (game: GameRecord, unit: Unit, today: string, runs: RunningPeriod[]) => [
  ...periodStateKeys(game.id, unit.arcId, runs),
  playKeys.day(game.id, unit.arcId, today),
  playKeys.allTime(game.id, unit.arcId),
  metaKey({ kind: 'day', gameId: game.id, day: today }),
  metaKey({ kind: 'all', gameId: game.id }),
  multiplierSlotKey(game.id, unit.arcId),
  ...sessionIdsOf(unit, today).map((sid) => playKeys.session(game.id, sid)),
  ...unit.entries.flatMap(({ entry }) =>
    entry.idempotencyKey ? [playKeys.idempotency(game.id, entry.idempotencyKey)] : [],
  ),
];

/**
 * The state the units' plans read, strongly consistent and batched: their items (unless prefetched), then the
 * day totals of their sessions opened on an earlier day (such a session keeps counting towards its day).
 */
const readState = async (
  game: GameRecord,
  units: Unit[],
  today: string,
  runs: RunningPeriod[],
  prefetched?: Map<string, Item>,
) => {
  const state = new Map(
    prefetched ?? (await getItems(units.flatMap((u) => stateKeys(game, u, today, runs)))),
  );
  const earlierDays = units.flatMap((unit) =>
    stateKeys(game, unit, today, runs).flatMap((key) => {
      const item = state.get(itemKey(key));
      return item?.sk === 'SESSION' && item.day !== today
        ? [
            playKeys.day(game.id, unit.arcId, String(item.day)),
            metaKey({ kind: 'day', gameId: game.id, day: String(item.day) }),
          ]
        : [];
    }),
  );
  for (const [k, v] of await getItems(earlierDays)) state.set(k, v);
  return state;
};

/** A day total as read (on the board of `day`). */
const dayTotal = (d: Item, gameId: string, day: string): DayTotal => ({
  points: Number(d.points ?? 0),
  sessions: Number(d.sessions ?? 0),
  reachedAt: d.reachedAt === undefined ? undefined : String(d.reachedAt),
  shard: entryShard({ kind: 'day', gameId, day }, d),
  played: d.played === true,
});

/** A session as read. */
const storedSession = (s: Item): StoredSession => ({
  status: String(s.status),
  arcId: String(s.arcId),
  source: String(s.source),
  day: String(s.day),
  points: Number(s.points ?? 0),
  saves: Number(s.saves ?? 0),
  capHits: Number(s.capHits ?? 0),
  createdAt: String(s.createdAt),
  riskScore: Number(s.riskScore ?? 0),
  marks: new Set(Object.keys(s).filter((name) => name.startsWith('t#'))),
});

/** What a unit's plan reads, parsed from the items read (an item absent: absent from its map). */
const planInput = (
  game: GameRecord,
  unit: Unit,
  state: Map<string, Item>,
  at: Date,
  runs: RunningPeriod[],
  full: ReadonlySet<string>,
): PlanInput => {
  const today = utcDay(at);
  const item = (key: { pk: string; sk: string }) => state.get(itemKey(key));
  const sessions = new Map<string, StoredSession>();
  for (const sessionId of sessionIdsOf(unit, today)) {
    const s = item(playKeys.session(game.id, sessionId));
    if (s) sessions.set(sessionId, storedSession(s));
  }
  const days = new Map<string, DayTotal>();
  const dayMetas = new Map<string, BoardMeta>();
  const allTimeMeta = item(metaKey({ kind: 'all', gameId: game.id }));
  for (const day of new Set([today, ...[...sessions.values()].map((s) => s.day)])) {
    const d = item(playKeys.day(game.id, unit.arcId, day));
    if (d) days.set(day, dayTotal(d, game.id, day));
    dayMetas.set(day, metaOf(item(metaKey({ kind: 'day', gameId: game.id, day })), allTimeMeta));
  }
  const boards = { days: dayMetas, allTime: metaOf(allTimeMeta) };
  const all = item(playKeys.allTime(game.id, unit.arcId));
  const allTime = all && {
    points: Number(all.points ?? 0),
    reachedAt: String(all.reachedAt ?? ''),
    shard: entryShard({ kind: 'all', gameId: game.id }, all),
  };
  const firstDay = typeof all?.firstDay === 'string' ? all.firstDay : undefined;
  const idempotency = new Map<string, { accepted: number }>();
  for (const { entry } of unit.entries) {
    const key = entry.idempotencyKey;
    const record = key ? item(playKeys.idempotency(game.id, key)) : undefined;
    if (key && record) idempotency.set(key, { accepted: Number(record.accepted ?? 0) });
  }
  const multiplierBps = activeMultiplierBps(item(multiplierSlotKey(game.id, unit.arcId)), at);
  // A period whose room this batch's earlier players took is full for this one (`allotEntrants`).
  const tournaments = periodStates(game.id, unit.arcId, runs, item).map((p) =>
    full.has(periodName(p.run)) ? { ...p, entrants: p.run.maxEntrants ?? p.entrants } : p,
  );
  return {
    game,
    arcId: unit.arcId,
    now: at,
    multiplierBps,
    days,
    allTime,
    firstDay,
    boards,
    sessions,
    idempotency,
    tournaments,
  };
};

/** The game's tournament periods running at `at` (none without the port). */
const runningPeriods = async (game: GameRecord, at: Date, deps: SaveDeps) =>
  deps.tournaments ? await deps.tournaments(game.id, at) : [];

const periodName = (run: RunningPeriod) => `${run.tournamentId}#${run.period}`;

const planUnit = (
  game: GameRecord,
  unit: Unit,
  state: Map<string, Item>,
  at: Date,
  runs: RunningPeriod[],
  full: ReadonlySet<string> = new Set(),
): Planned => {
  const input = planInput(game, unit, state, at, runs, full);
  const plan = withInsights(input, planPlayer(input, unit.entries));
  // The boards' meta items count as read state too: a race lost to a rival widening one is progress, not a stall.
  const read = JSON.stringify([
    [...input.days],
    input.allTime,
    [...input.boards.days],
    input.boards.allTime,
    [...input.sessions],
    [...input.idempotency],
    input.tournaments?.map((t) => [t.entry, t.entrants, t.meta]),
  ]);
  // Sessions this plan takes over the risk threshold (GET /play/dev/risky-sessions starts listing them).
  const flagged = plan.writes.flatMap((w) =>
    (w.kind === 'openSession' || w.kind === 'addToSession') &&
    w.risk.score > RISKY_THRESHOLD &&
    (input.sessions.get(w.sessionId)?.riskScore ?? 0) <= RISKY_THRESHOLD
      ? [{ sessionId: w.sessionId, riskScore: w.risk.score }]
      : [],
  );
  // Their webhook events commit with the plan's writes, or not at all.
  const events = flagged.map(({ sessionId, riskScore }) =>
    outboxItem('session.flagged', game.id, {
      sessionId,
      arcId: unit.arcId,
      riskScore,
      threshold: RISKY_THRESHOLD,
    }),
  );
  const enters = plan.writes.flatMap((w) => (w.kind === 'addToEntry' && !w.read ? [periodName(w.run)] : []));
  // Sessions flagged and tournament entries made today count on today's figures (merged with the plan's).
  const today = insightsWrite(
    game.id,
    utcDay(at),
    { flaggedSessions: flagged.length, tournamentEntrants: enters.length },
    0,
  );
  return {
    results: plan.results,
    total: plan.total,
    items: [...planItems(plan), ...events, ...(today ? [today] : [])],
    read,
    flagged: flagged.length,
    enters,
  };
};

/**
 * Plans again, with the period full, the units that would enter a period past its room: each plan saw the same
 * entrants, and the merged ADD of one transaction would refuse them all (and again on every retry).
 */
const allotEntrants = <P extends Planned & { unit: Unit }>(
  planned: P[],
  runs: RunningPeriod[],
  replan: (unit: Unit, full: ReadonlySet<string>) => P,
  state: Map<string, Item>,
  gameId: string,
): P[] => {
  const capped = runs.filter((r) => r.maxEntrants !== null);
  if (capped.length === 0) return planned;
  const room = new Map(
    capped.map((r) => [
      periodName(r),
      (r.maxEntrants ?? 0) -
        Number(
          state.get(itemKey(tournamentPlayKeys.period(gameId, r.tournamentId, r.period)))?.entrants ?? 0,
        ),
    ]),
  );
  return planned.map((p) => {
    const over = p.enters.filter((name) => {
      const left = room.get(name);
      if (left === undefined) return false;
      room.set(name, left - 1);
      return left <= 0;
    });
    return over.length > 0 ? replan(p.unit, new Set(over)) : p;
  });
};

/** A cancelled transaction or a conflict: the plans raced another write and may be retried. */
const lostRace = (error: unknown) =>
  isConditionFailure(error) || (error as { name?: string }).name === 'TransactionConflictException';

/**
 * Writes several units in one transaction. When it is cancelled, the units whose writes failed (from the
 * CancellationReasons) are set aside and the rest written again without them, their plans unchanged (their
 * conditions are evaluated again). Its counter ADDs all go to copy `copy` of their nodes (one item per node), so
 * that the batch's transactions, which run in parallel, never write the same counter item. Returns the units
 * that failed.
 */
const commitGroup = async <T extends Planned>(group: T[], copy: number): Promise<T[]> => {
  const failed: T[] = [];
  let rest = group;
  while (rest.length > 0) {
    const tx = groupTransaction(rest, copy);
    try {
      await transact(tx.items);
      break;
    } catch (error) {
      if (!lostRace(error)) throw error;
      const lost = failedUnits(tx, cancellationReasons(error));
      failed.push(...lost);
      rest = rest.filter((p) => !lost.includes(p));
    }
  }
  return failed;
};

/**
 * Saves units (at most one per player): read, plan, write the plans grouped into shared transactions, in
 * parallel; the units that lost a race are read again and planned again (MAX_STALLED_ATTEMPTS).
 */
const saveUnits = async (game: GameRecord, units: Unit[], deps: SaveDeps, prefetched?: Prefetched) => {
  const results: EntryResult[] = [];
  let saved = 0;
  let flagged = 0;
  let todo = units;
  const stalled = new Map<Unit, number>();
  const lastRead = new Map<Unit, string>();
  for (let round = 0; todo.length > 0; round++) {
    if (round === MAX_ROUNDS) throw tooManyRaces();
    if (round > 0) await new Promise((r) => setTimeout(r, Math.random() * 20 * Math.min(round, 6)));
    const first = round === 0 ? prefetched : undefined;
    const at = first?.at ?? deps.now?.() ?? new Date();
    const runs = first?.runs ?? (await runningPeriods(game, at, deps));
    const state = await readState(game, todo, utcDay(at), runs, first?.state);
    const planned = allotEntrants(
      todo.map((unit) => ({ unit, ...planUnit(game, unit, state, at, runs) })),
      runs,
      (unit, full) => ({ unit, ...planUnit(game, unit, state, at, runs, full) }),
      state,
      game.id,
    );
    for (const p of planned) {
      // Read again after a loss and found as before: the race was lost without any save of the player committing.
      if (lastRead.get(p.unit) === p.read) stalled.set(p.unit, (stalled.get(p.unit) ?? 0) + 1);
      lastRead.set(p.unit, p.read);
    }
    if (todo.some((u) => (stalled.get(u) ?? 0) >= MAX_STALLED_ATTEMPTS)) throw tooManyRaces();
    const writing = planned.filter((p) => p.items.length > 0);
    // Each transaction its own counter copy (below MIN_COPIES, which every board's reads cover), from a random
    // start so that concurrent batches spread over the copies.
    const start = randomInt(MIN_COPIES);
    const groups = packTransactions(writing);
    const failed = new Set(
      (await Promise.all(groups.map((g, i) => commitGroup(g, (start + i) % MIN_COPIES)))).flat(),
    );
    for (const p of planned.filter((p) => !failed.has(p))) {
      results.push(...p.results);
      saved += p.total;
      flagged += p.flagged;
    }
    todo = [...failed].map((p) => p.unit);
  }
  return { results, saved, flagged };
};

/**
 * POST /play/dev/batch-save-points: identifiers resolved (unknown wallets, emails and handles get users), then
 * each player's entries applied by conditional writes, several players sharing one transaction, the
 * transactions in parallel. Caps can clip or reject an entry but are never exceeded, and an idempotency key
 * is applied at most once.
 */
export const batchSavePoints = async (
  auth: AuthContext,
  input: { gameId: string; entries: SaveEntry[] },
  deps: SaveDeps,
) => {
  const game = await requireOwnedGame(auth, input.gameId);
  // Every bad identifier named by its entry's path, before the players are resolved (deduplicated).
  parseIdentifiers(
    input.entries.map((e) => e.playerId),
    (index) => `entries.${index}.playerId`,
  );
  // The batch's instant, and the tournament periods running then, read while the identifiers resolve.
  const at = deps.now?.() ?? new Date();
  const [mapping, runs] = await Promise.all([
    resolveIdentifiers([...new Set(input.entries.map((e) => e.playerId))], {
      directory: deps.directory,
      ...(deps.imports ? { imports: deps.imports } : {}),
    }),
    runningPeriods(game, at, deps),
  ]);
  const byPlayer = new Map<string, Indexed[]>();
  input.entries.forEach((entry, index) => {
    const arcId = mapping[entry.playerId] ?? '';
    byPlayer.set(arcId, [...(byPlayer.get(arcId) ?? []), { index, entry }]);
  });
  // Round r saves every player's r-th unit of entries (a player's units in order, each seeing the last).
  const rounds: Unit[][] = [];
  for (const [arcId, entries] of byPlayer) {
    for (let i = 0; i * ENTRIES_PER_PLAN < entries.length; i++) {
      const part = entries.slice(i * ENTRIES_PER_PLAN, (i + 1) * ENTRIES_PER_PLAN);
      rounds[i] = [...(rounds[i] ?? []), { arcId, entries: part }];
    }
  }
  // One batched read of the first round's state (BatchGetItem, 100 keys a call, in parallel), instead of one
  // read per player.
  const first = rounds[0] ?? [];
  const prefetched = {
    at,
    runs,
    state: await getItems(first.flatMap((u) => stateKeys(game, u, utcDay(at), runs))),
  };
  const results: EntryResult[] = [];
  let saved = 0;
  let flagged = 0;
  for (const [r, units] of rounds.entries()) {
    const out = await saveUnits(game, units, deps, r === 0 ? prefetched : undefined);
    results.push(...out.results);
    saved += out.saved;
    flagged += out.flagged;
  }
  await addToStat(auth.userId, 'pointsSaved', saved);
  recordSaveMetrics(results, flagged);
  return { playerIdToArcId: mapping, results: results.sort((a, b) => a.index - b.index) };
};

/** Points accepted, entries refused or clipped by the cap that bound them, sessions newly flagged. */
const recordSaveMetrics = (results: EntryResult[], flagged: number) => {
  const refused = new Map<string, number>();
  let accepted = 0;
  for (const r of results) {
    if (r.status === 'duplicate') continue; // applied by an earlier request, counted then
    accepted += r.accepted;
    if (r.reason) refused.set(r.reason, (refused.get(r.reason) ?? 0) + 1);
  }
  countMetric('PointsAccepted', accepted);
  for (const [reason, count] of refused) countMetricBy('SavesRefused', { reason }, count);
  countMetric('SessionsFlagged', flagged);
};
