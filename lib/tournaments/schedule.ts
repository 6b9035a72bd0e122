// When a tournament's periods run (pure): a one-off window, or a recurrence (a cron expression in UTC, or a
// fixed period) each occurrence of which lasts `durationSeconds`. A period runs from its start (inclusive) to its
// end (exclusive), to the second, and is named by its start (`2026-12-01T00:00:00Z`).
import { Cron } from 'croner';

export type Recurrence = { cron: string } | { everySeconds: number };

export interface Schedule {
  /** The first period starts at or after this instant (ISO, whole seconds). */
  startsAt: string;
  /** A one-off tournament's end. */
  endsAt: string | null;
  recurrence: Recurrence | null;
  /** How long each occurrence of a recurrence lasts. */
  durationSeconds: number | null;
  /** A recurrence starts no period at or after this instant (null: recurs until cancelled). */
  until: string | null;
}

export interface Period {
  /** Its start, which names it. */
  id: string;
  startsAt: string;
  endsAt: string;
}

/** Shortest period and shortest gap between recurring starts. */
export const MIN_PERIOD_SECONDS = 60;
/** Longest period, and how far ahead a cron expression must fire once. */
export const MAX_PERIOD_SECONDS = 366 * 24 * 3600;
/** Starts of a cron recurrence checked for overlapping periods when it is created. */
const CRON_STARTS_CHECKED = 400;

const iso = (ms: number) => `${new Date(ms).toISOString().slice(0, 19)}Z`;
const period = (start: number, seconds: number): Period => ({
  id: iso(start),
  startsAt: iso(start),
  endsAt: iso(start + seconds * 1000),
});

/** A cron expression of five fields (minute hour day-of-month month day-of-week), read in UTC. */
export const cronOf = (expression: string) => {
  if (expression.trim().split(/\s+/).length !== 5) throw new Error('must have five fields');
  return new Cron(expression, { timezone: 'UTC', paused: true });
};

/** Why a schedule is invalid, by field (empty: valid). */
export const scheduleProblems = (s: Schedule): Array<{ path: string; message: string }> => {
  const start = Date.parse(s.startsAt);
  if (s.recurrence === null) {
    if (s.endsAt === null) return [{ path: 'endsAt', message: 'a tournament needs endsAt or a recurrence' }];
    const seconds = (Date.parse(s.endsAt) - start) / 1000;
    if (seconds < MIN_PERIOD_SECONDS)
      return [{ path: 'endsAt', message: `must be at least ${MIN_PERIOD_SECONDS} s after startsAt` }];
    if (seconds > MAX_PERIOD_SECONDS)
      return [{ path: 'endsAt', message: 'must be at most 366 days after startsAt' }];
    return [];
  }
  if (s.endsAt !== null)
    return [{ path: 'endsAt', message: 'a recurring tournament has durationSeconds, not endsAt' }];
  const duration = s.durationSeconds;
  if (duration === null)
    return [{ path: 'durationSeconds', message: 'a recurring tournament needs durationSeconds' }];
  if (s.until !== null && Date.parse(s.until) <= start)
    return [{ path: 'until', message: 'must be after startsAt' }];
  if ('everySeconds' in s.recurrence) {
    return duration > s.recurrence.everySeconds
      ? [
          {
            path: 'durationSeconds',
            message: 'must be at most recurrence.everySeconds (periods never overlap)',
          },
        ]
      : [];
  }
  return cronProblems(s.recurrence.cron, start, duration, s.until);
};

const cronProblems = (expression: string, start: number, duration: number, until: string | null) => {
  let cron: Cron;
  try {
    cron = cronOf(expression);
  } catch (error) {
    return [{ path: 'recurrence.cron', message: `invalid cron expression: ${(error as Error).message}` }];
  }
  const starts = cron.nextRuns(CRON_STARTS_CHECKED, new Date(start - 1)).map((d) => d.getTime());
  const first = starts[0];
  const limit = Math.min(start + MAX_PERIOD_SECONDS * 1000, until === null ? Infinity : Date.parse(until));
  if (first === undefined || first >= limit)
    return [{ path: 'recurrence.cron', message: 'never fires within a year of startsAt (or before until)' }];
  for (let i = 1; i < starts.length; i++) {
    const gap = ((starts[i] ?? 0) - (starts[i - 1] ?? 0)) / 1000;
    if (gap < MIN_PERIOD_SECONDS)
      return [{ path: 'recurrence.cron', message: `fires more often than every ${MIN_PERIOD_SECONDS} s` }];
    if (gap < duration)
      return [
        { path: 'durationSeconds', message: 'is longer than the gap between two starts (periods overlap)' },
      ];
  }
  return [];
};

/** The start of the latest occurrence at or before `t` (ms), or undefined. */
const latestStartAtOrBefore = (s: Schedule, t: number): number | undefined => {
  const start = Date.parse(s.startsAt);
  if (t < start) return undefined;
  let found: number | undefined;
  if (s.recurrence === null) found = start;
  else if ('everySeconds' in s.recurrence) {
    const every = s.recurrence.everySeconds * 1000;
    found = start + Math.floor((t - start) / every) * every;
  } else {
    const [previous] = cronOf(s.recurrence.cron).previousRuns(1, new Date(t + 1));
    found = previous && previous.getTime() >= start ? previous.getTime() : undefined;
  }
  if (found !== undefined && s.until !== null && found >= Date.parse(s.until)) return undefined;
  return found;
};

const lengthOf = (s: Schedule) =>
  s.recurrence === null
    ? (Date.parse(s.endsAt ?? s.startsAt) - Date.parse(s.startsAt)) / 1000
    : (s.durationSeconds ?? 0);

/** The period running at `at` (start ≤ at < end), if any. */
export const periodAt = (s: Schedule, at: Date): Period | undefined => {
  const t = at.getTime();
  const start = latestStartAtOrBefore(s, t);
  if (start === undefined) return undefined;
  const p = period(start, lengthOf(s));
  return t < Date.parse(p.endsAt) ? p : undefined;
};

/** The first period starting after `at` (for a countdown), if any. */
export const nextPeriod = (s: Schedule, at: Date): Period | undefined => {
  const t = at.getTime();
  const first = Date.parse(s.startsAt);
  let next: number | undefined;
  if (t < first && s.recurrence === null) next = first;
  else if (s.recurrence === null) next = undefined;
  else if ('everySeconds' in s.recurrence) {
    const every = s.recurrence.everySeconds * 1000;
    next = t < first ? first : first + (Math.floor((t - first) / every) + 1) * every;
  } else {
    next = cronOf(s.recurrence.cron)
      .nextRun(new Date(Math.max(t, first - 1)))
      ?.getTime();
  }
  if (next === undefined || (s.until !== null && next >= Date.parse(s.until))) return undefined;
  return period(next, lengthOf(s));
};

/** The period named `id` if the schedule has one starting then. */
export const periodNamed = (s: Schedule, id: string): Period | undefined => {
  const start = Date.parse(id);
  if (Number.isNaN(start)) return undefined;
  const p = periodAt(s, new Date(start));
  return p?.id === id ? p : undefined;
};

/** When the schedule's last period ends (null: it recurs without end). */
export const scheduleEnd = (s: Schedule): string | null => {
  if (s.recurrence === null) return s.endsAt;
  if (s.until === null) return null;
  const last = latestStartAtOrBefore(s, Date.parse(s.until) - 1);
  return last === undefined ? s.startsAt : period(last, lengthOf(s)).endsAt;
};
