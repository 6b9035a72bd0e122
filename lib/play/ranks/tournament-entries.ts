// A player's entry in a tournament period, and how a save's points count into it (docs/tournaments.md). The
// tournaments domain owns definitions and schedules; a save learns which periods run from it (a port:
// `RunningPeriod`) and scores them here, in the same transaction as the totals: an entry is a total on the
// period's board (board kind `tournament` of the rank index), moved like a day or all-time total.
import type { NativeAttributeValue } from '@aws-sdk/util-dynamodb';
import { playTable, type TransactItem, updateExpression } from '../repository.js';
import { type BoardMeta, type BoardRef, entryShard, metaKey, metaOf } from './board.js';
import { boardMove } from './writes.js';

type Item = Record<string, NativeAttributeValue>;

/** A tournament period running now, as the tournaments domain hands it to a save. */
export interface RunningPeriod {
  tournamentId: string;
  period: string;
  /** When the period ends (ISO). */
  endsAt: string;
  scoring: 'sum' | 'best';
  joinRequired: boolean;
  maxEntrants: number | null;
  maxAttempts: number | null;
  /** Unix seconds after which its entries and record may go (the studio's retention). */
  expiresAt: number;
  /** When the period's board is frozen and its prizes paid (ISO): its end plus the payout delay. */
  closesAt: string;
}

/** Finds the periods of a game running at an instant (wired by the function from the tournaments domain). */
export type RunningPeriods = (gameId: string, at: Date) => Promise<RunningPeriod[]>;

/** The keys of a period's record and of a player's entry (PlayTable). */
export const tournamentPlayKeys = {
  period: (gameId: string, tournamentId: string, period: string) => ({
    pk: `TPERIOD#${gameId}#${tournamentId}`,
    sk: period,
  }),
  periodsOf: (gameId: string, tournamentId: string) => `TPERIOD#${gameId}#${tournamentId}`,
  entry: (gameId: string, arcId: string, tournamentId: string, period: string) => ({
    pk: `TENTRY#${gameId}#${arcId}`,
    sk: `${tournamentId}#${period}`,
  }),
  entriesOf: (gameId: string, arcId: string) => `TENTRY#${gameId}#${arcId}`,
};

/** The name a period has on the sessions whose points count into it (`t#<tournamentId>#<period>`). */
export const sessionMark = (run: { tournamentId: string; period: string }) =>
  `t#${run.tournamentId}#${run.period}`;

/** The board of a tournament period. */
export const periodBoard = (gameId: string, run: { tournamentId: string; period: string }): BoardRef => ({
  kind: 'tournament',
  gameId,
  tournamentId: run.tournamentId,
  period: run.period,
});

/** An entry as read. */
export interface EntryRead {
  points: number;
  reachedAt: string;
  shard: number | undefined;
  attempts: number;
  /** `best` scoring: each attempt's points, by session. */
  sessions: ReadonlyMap<string, number>;
}

/** A running period as a save reads it: its entry of the player, its entrants and its board's meta. */
export interface PeriodState {
  run: RunningPeriod;
  entry: EntryRead | undefined;
  entrants: number;
  meta: BoardMeta;
}

export const entryRead = (gameId: string, run: RunningPeriod, item: Item): EntryRead => ({
  points: Number(item.points ?? 0),
  reachedAt: String(item.reachedAt ?? ''),
  shard: entryShard(periodBoard(gameId, run), item),
  attempts: Number(item.attempts ?? 0),
  sessions: new Map(
    Object.entries((item.sessions ?? {}) as Record<string, number>).map(([k, v]) => [k, Number(v)]),
  ),
});

/** The keys a save of `arcId` reads for the running periods: each period's record, board meta and the entry. */
export const periodStateKeys = (gameId: string, arcId: string, runs: RunningPeriod[]) =>
  runs.flatMap((run) => [
    tournamentPlayKeys.period(gameId, run.tournamentId, run.period),
    metaKey(periodBoard(gameId, run)),
    tournamentPlayKeys.entry(gameId, arcId, run.tournamentId, run.period),
  ]);

/** The running periods' state for one player, from the items read by `periodStateKeys`. */
export const periodStates = (
  gameId: string,
  arcId: string,
  runs: RunningPeriod[],
  item: (key: { pk: string; sk: string }) => Item | undefined,
): PeriodState[] =>
  runs.map((run) => {
    const entry = item(tournamentPlayKeys.entry(gameId, arcId, run.tournamentId, run.period));
    return {
      run,
      entry: entry && entryRead(gameId, run, entry),
      entrants: Number(item(tournamentPlayKeys.period(gameId, run.tournamentId, run.period))?.entrants ?? 0),
      meta: metaOf(item(metaKey(periodBoard(gameId, run)))),
    };
  });

/** Points a save adds to one session, and whether the session already counts into a period (by mark). */
export interface SessionAdd {
  sessionId: string;
  add: number;
  marks: ReadonlySet<string>;
}

/** What a save writes to one entry. */
export interface AddToEntry {
  kind: 'addToEntry';
  gameId: string;
  arcId: string;
  run: RunningPeriod;
  /** The entry as read (undefined: the save enters the player, counted against maxEntrants). */
  read: EntryRead | undefined;
  /** The entry's points after the save. */
  points: number;
  /** New attempts (sessions counting into the period for the first time). */
  attempts: number;
  /** `best` scoring: the sessions' points after the save. */
  sessions: Array<[string, number]>;
  meta: BoardMeta;
  /** Each session's points counted into the period by this save (its mark's ADD on the session). */
  counted: Array<[string, number]>;
}

/**
 * How a save's session adds count into one running period: only for an entrant (an open tournament enters the
 * player with its first points while there is room), only from sessions within the period's attempts (a
 * session counting for the first time is a new attempt, refused past maxAttempts), summed or the best session.
 */
export const planEntry = (
  gameId: string,
  arcId: string,
  state: PeriodState,
  adds: SessionAdd[],
): AddToEntry | undefined => {
  const { run } = state;
  const mark = sessionMark(run);
  if (!state.entry && (run.joinRequired || (run.maxEntrants !== null && state.entrants >= run.maxEntrants)))
    return undefined;
  const attemptsBefore = state.entry?.attempts ?? 0;
  let attempts = 0;
  const counted: Array<[string, number]> = [];
  for (const s of adds) {
    if (s.add <= 0) continue;
    if (!s.marks.has(mark)) {
      if (run.maxAttempts !== null && attemptsBefore + attempts >= run.maxAttempts) continue;
      attempts += 1;
    }
    counted.push([s.sessionId, s.add]);
  }
  if (counted.length === 0) return undefined;
  const before = state.entry?.points ?? 0;
  const sessions: Array<[string, number]> =
    run.scoring === 'best'
      ? counted.map(([sid, add]) => [sid, (state.entry?.sessions.get(sid) ?? 0) + add])
      : [];
  const points =
    run.scoring === 'sum'
      ? before + counted.reduce((sum, [, add]) => sum + add, 0)
      : Math.max(before, ...sessions.map(([, p]) => p));
  return {
    kind: 'addToEntry',
    gameId,
    arcId,
    run,
    read: state.entry,
    points,
    attempts,
    sessions,
    meta: state.meta,
    counted,
  };
};

/** Partitions of the byPeriodClose index (periods to close), by game. */
export const CLOSE_SHARDS = 4;

/** A game's partition of the byPeriodClose index. */
export const closeShard = (gameId: string) => {
  let h = 0;
  for (const c of gameId) h = (h * 31 + c.charCodeAt(0)) >>> 0;
  return `CLOSE#${h % CLOSE_SHARDS}`;
};

/** Entrants a transaction adds to a period's record (merged across the players of one transaction). */
export interface EntrantsAdd {
  key: { pk: string; sk: string };
  gameId: string;
  added: number;
  maxEntrants: number | null;
  expiresAt: number;
  /** When the period closes: the record is in the byPeriodClose index until its run closes it. */
  closeAt: string;
}

/** The entrants ADD on a period's record (merged across the players of one transaction: saves/groups.ts). */
export const entrantsItem = (e: EntrantsAdd): TransactItem => ({
  Update: {
    TableName: playTable(),
    Key: e.key,
    // The close attributes are the same on every write of a record: only its first write touches the index.
    UpdateExpression: 'ADD entrants :n SET expiresAt = :exp, closeDue = :due, closeAt = :close, gameId = :g',
    ...(e.maxEntrants === null
      ? {}
      : { ConditionExpression: 'attribute_not_exists(entrants) OR entrants <= :limit' }),
    ExpressionAttributeValues: {
      ':n': e.added,
      ':exp': e.expiresAt,
      ':due': closeShard(e.gameId),
      ':close': e.closeAt,
      ':g': e.gameId,
      ...(e.maxEntrants === null ? {} : { ':limit': e.maxEntrants - e.added }),
    },
  },
});

/**
 * A period's record without an entrant (0 added), so that the period closes even if nobody enters it: a studio's
 * deposit into it must be paid or go back to the pool.
 */
export const periodRecordItem = (gameId: string, run: RunningPeriod): TransactItem =>
  entrantsItem({
    key: tournamentPlayKeys.period(gameId, run.tournamentId, run.period),
    gameId,
    added: 0,
    maxEntrants: null,
    expiresAt: run.expiresAt,
    closeAt: run.closesAt,
  });

/** The entrants ADD of an item made by `entrantsItem` (undefined for any other). */
export const entrantsOf = (item: TransactItem): EntrantsAdd | undefined => {
  const update = item.Update;
  const key = update?.Key as { pk?: unknown; sk?: unknown } | undefined;
  if (typeof key?.pk !== 'string' || !key.pk.startsWith('TPERIOD#') || typeof key.sk !== 'string')
    return undefined;
  const values = update?.ExpressionAttributeValues ?? {};
  const added = Number(values[':n']);
  const limit = values[':limit'];
  return {
    key: { pk: key.pk, sk: key.sk },
    gameId: String(values[':g']),
    added,
    maxEntrants: typeof limit === 'number' ? limit + added : null,
    expiresAt: Number(values[':exp']),
    closeAt: String(values[':close']),
  };
};

/** An entry's update with its board move, the period's entrants when the save enters the player. */
export const entryItems = (w: AddToEntry, at: string): TransactItem[] => {
  const board = periodBoard(w.gameId, w.run);
  const raised = w.points > (w.read?.points ?? 0);
  const reachedAt = raised || !w.read?.reachedAt ? at : w.read.reachedAt;
  const move = boardMove(
    board,
    w.read && { arcId: w.arcId, points: w.read.points, reachedAt: w.read.reachedAt, shard: w.read.shard },
    { arcId: w.arcId, points: w.points, reachedAt },
    w.meta,
  );
  const names: Record<string, string> = {};
  const values: Item = {
    ...move.values,
    ':pts': w.points,
    ':a': w.arcId,
    ':now': at,
    ':reached': reachedAt,
    ':att': w.attempts,
  };
  const set = ['points = :pts', 'arcId = :a', 'updatedAt = :now', 'reachedAt = :reached', ...move.set];
  if (!w.read) {
    set.push(
      'tournamentId = :t',
      '#period = :p',
      'expiresAt = :exp',
      '#sessions = :sessions',
      'joinedAt = :now',
    );
    names['#period'] = 'period';
    names['#sessions'] = 'sessions';
    Object.assign(values, {
      ':t': w.run.tournamentId,
      ':p': w.run.period,
      ':exp': w.run.expiresAt,
      ':sessions': Object.fromEntries(w.sessions),
    });
  } else {
    if (w.sessions.length > 0) names['#sessions'] = 'sessions';
    w.sessions.forEach(([sid, points], i) => {
      names[`#s${i}`] = sid;
      values[`:s${i}`] = points;
      set.push(`#sessions.#s${i} = :s${i}`);
    });
  }
  // A new entry's only condition is its absence (its move's condition on the points read is not used).
  if (!w.read) delete values[':fromPoints'];
  const conditions = [w.read ? move.condition : 'attribute_not_exists(pk)'];
  if (w.read && w.attempts > 0 && w.run.maxAttempts !== null) {
    conditions.push('(attribute_not_exists(attempts) OR attempts <= :attLimit)');
    values[':attLimit'] = w.run.maxAttempts - w.attempts;
  }
  return [
    {
      Update: {
        TableName: playTable(),
        Key: tournamentPlayKeys.entry(w.gameId, w.arcId, w.run.tournamentId, w.run.period),
        UpdateExpression: updateExpression({ add: ['attempts :att'], set, remove: move.remove }),
        ConditionExpression: conditions.join(' AND '),
        ...(Object.keys(names).length > 0 ? { ExpressionAttributeNames: names } : {}),
        ExpressionAttributeValues: values,
      },
    },
    ...(w.read
      ? []
      : [
          entrantsItem({
            key: tournamentPlayKeys.period(w.gameId, w.run.tournamentId, w.run.period),
            gameId: w.gameId,
            added: 1,
            maxEntrants: w.run.maxEntrants,
            expiresAt: w.run.expiresAt,
            closeAt: w.run.closesAt,
          }),
        ]),
    ...move.counters,
    ...move.meta,
  ];
};

/**
 * A player entering a period by joining, as named writes for one transaction: `entry`, with no points (off the
 * board until its first points), conditional on none yet; `period`, its entrants, conditional on its room. The
 * transaction is cancelled when the entry exists or the period is full, and names which.
 */
export const joinItems = (
  gameId: string,
  arcId: string,
  run: RunningPeriod,
  at: string,
): { entry: TransactItem; period: TransactItem } => ({
  entry: {
    Put: {
      TableName: playTable(),
      Item: {
        ...tournamentPlayKeys.entry(gameId, arcId, run.tournamentId, run.period),
        arcId,
        tournamentId: run.tournamentId,
        period: run.period,
        points: 0,
        attempts: 0,
        sessions: {},
        joinedAt: at,
        updatedAt: at,
        expiresAt: run.expiresAt,
      },
      ConditionExpression: 'attribute_not_exists(pk)',
    },
  },
  period: entrantsItem({
    key: tournamentPlayKeys.period(gameId, run.tournamentId, run.period),
    gameId,
    added: 1,
    maxEntrants: run.maxEntrants,
    expiresAt: run.expiresAt,
    closeAt: run.closesAt,
  }),
});

/** The period a session's mark names (`sessionMark`), or undefined for any other attribute. */
export const markedPeriod = (name: string) => {
  const [t, tournamentId, period, ...rest] = name.split('#');
  return t === 't' && tournamentId && period && rest.length === 0 ? { tournamentId, period } : undefined;
};

/**
 * An invalidated session's points leaving one entry: `sum` loses what the session counted, `best` forgets the
 * session's attempt and falls to its best other one. Conditional on the entry's points read (its board move).
 */
export const removeFromEntry = (
  gameId: string,
  arcId: string,
  sessionId: string,
  counted: number,
  run: { tournamentId: string; period: string },
  item: Item | undefined,
  at: string,
): TransactItem[] => {
  if (!item || counted <= 0) return [];
  const board = periodBoard(gameId, run);
  const sessions = (item.sessions ?? {}) as Record<string, number>;
  const best = sessionId in sessions;
  const read = {
    arcId,
    points: Number(item.points ?? 0),
    reachedAt: String(item.reachedAt ?? at),
    shard: entryShard(board, item),
  };
  const after = best
    ? Math.max(0, ...Object.entries(sessions).flatMap(([sid, p]) => (sid === sessionId ? [] : [Number(p)])))
    : Math.max(0, read.points - counted);
  const move = boardMove(board, read, { ...read, points: after });
  return [
    {
      Update: {
        TableName: playTable(),
        Key: tournamentPlayKeys.entry(gameId, arcId, run.tournamentId, run.period),
        UpdateExpression: updateExpression({
          set: ['points = :after', 'updatedAt = :now', ...move.set],
          remove: [...move.remove, ...(best ? ['#sessions.#sid'] : [])],
        }),
        ConditionExpression: move.condition,
        ...(best ? { ExpressionAttributeNames: { '#sessions': 'sessions', '#sid': sessionId } } : {}),
        ExpressionAttributeValues: { ':after': after, ':now': at, ...move.values },
      },
    },
    ...move.counters,
  ];
};
