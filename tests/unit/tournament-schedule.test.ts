import { describe, expect, it } from 'vitest';
import { prizeProblems } from '../../lib/tournaments/index.js';
import {
  nextPeriod,
  periodAt,
  periodNamed,
  type Schedule,
  scheduleEnd,
  scheduleProblems,
} from '../../lib/tournaments/schedule.js';

const base: Schedule = {
  startsAt: '2026-01-01T00:00:00Z',
  endsAt: null,
  recurrence: null,
  durationSeconds: null,
  until: null,
};
const at = (iso: string) => new Date(iso);

describe('tournament schedules', () => {
  it('a one-off window runs from its start (inclusive) to its end (exclusive), to the second', () => {
    const s = { ...base, startsAt: '2026-03-01T12:00:00Z', endsAt: '2026-03-01T13:00:00Z' };
    expect(periodAt(s, at('2026-03-01T11:59:59.999Z'))).toBeUndefined();
    expect(periodAt(s, at('2026-03-01T12:00:00.000Z'))?.id).toBe('2026-03-01T12:00:00Z');
    expect(periodAt(s, at('2026-03-01T12:59:59.999Z'))?.endsAt).toBe('2026-03-01T13:00:00Z');
    expect(periodAt(s, at('2026-03-01T13:00:00.000Z'))).toBeUndefined();
    expect(nextPeriod(s, at('2026-03-01T11:00:00Z'))?.id).toBe('2026-03-01T12:00:00Z');
    expect(nextPeriod(s, at('2026-03-01T12:00:00Z'))).toBeUndefined();
    expect(scheduleEnd(s)).toBe('2026-03-01T13:00:00Z');
  });

  it('a monthly cron recurrence opens each period at the month boundary in UTC, across month ends', () => {
    const s = { ...base, recurrence: { cron: '0 0 1 * *' }, durationSeconds: 27 * 24 * 3600 };
    // January 31st 23:59:59 is past January's 27 days: between periods.
    expect(periodAt(s, at('2026-01-31T23:59:59Z'))).toBeUndefined();
    expect(periodAt(s, at('2026-02-01T00:00:00Z'))).toEqual({
      id: '2026-02-01T00:00:00Z',
      startsAt: '2026-02-01T00:00:00Z',
      endsAt: '2026-02-28T00:00:00Z',
    });
    expect(periodAt(s, at('2026-02-27T23:59:59.999Z'))?.id).toBe('2026-02-01T00:00:00Z');
    expect(periodAt(s, at('2026-02-28T00:00:00Z'))).toBeUndefined();
    expect(nextPeriod(s, at('2026-02-28T00:00:00Z'))?.id).toBe('2026-03-01T00:00:00Z');
    expect(periodNamed(s, '2026-03-01T00:00:00Z')?.endsAt).toBe('2026-03-28T00:00:00Z');
    expect(periodNamed(s, '2026-03-02T00:00:00Z')).toBeUndefined();
  });

  it('a fixed recurrence starts every period seconds from startsAt, until its end', () => {
    const s = {
      ...base,
      startsAt: '2026-01-30T22:00:00Z',
      recurrence: { everySeconds: 3 * 3600 },
      durationSeconds: 3 * 3600,
      until: '2026-02-01T01:00:00Z',
    };
    expect(periodAt(s, at('2026-01-31T23:59:59Z'))?.id).toBe('2026-01-31T22:00:00Z');
    expect(periodAt(s, at('2026-02-01T00:59:59Z'))?.id).toBe('2026-01-31T22:00:00Z');
    expect(periodAt(s, at('2026-02-01T01:00:00Z'))).toBeUndefined();
    expect(nextPeriod(s, at('2026-01-31T23:00:00Z'))).toBeUndefined();
    expect(scheduleEnd(s)).toBe('2026-02-01T01:00:00Z');
  });

  it('refuses schedules that cannot run, by field', () => {
    expect(scheduleProblems({ ...base })[0]?.path).toBe('endsAt');
    expect(scheduleProblems({ ...base, endsAt: '2025-12-31T00:00:00Z' })[0]?.path).toBe('endsAt');
    expect(
      scheduleProblems({ ...base, recurrence: { cron: '0 0 30 2 *' }, durationSeconds: 3600 })[0]?.message,
    ).toMatch(/never fires/);
    expect(
      scheduleProblems({ ...base, recurrence: { cron: 'not a cron' }, durationSeconds: 3600 })[0]?.path,
    ).toBe('recurrence.cron');
    expect(
      scheduleProblems({ ...base, recurrence: { cron: '0 * * * *' }, durationSeconds: 7200 })[0]?.path,
    ).toBe('durationSeconds');
    expect(
      scheduleProblems({ ...base, recurrence: { everySeconds: 3600 }, durationSeconds: 3601 })[0]?.path,
    ).toBe('durationSeconds');
    expect(scheduleProblems({ ...base, recurrence: { everySeconds: 3600 }, durationSeconds: 3600 })).toEqual(
      [],
    );
  });

  it('refuses prize tables with overlapping ranges or more than the pool', () => {
    expect(
      prizeProblems([
        { fromRank: 1, toRank: 1, bps: 5000 },
        { fromRank: 2, toRank: 6, bps: 1000 },
      ]),
    ).toEqual([]);
    expect(
      prizeProblems([
        { fromRank: 1, toRank: 3, bps: 100 },
        { fromRank: 3, toRank: 4, bps: 100 },
      ])[0]?.path,
    ).toBe('prizes.1.fromRank');
    expect(prizeProblems([{ fromRank: 1, toRank: 2, bps: 6000 }])[0]?.message).toMatch(/12000 bps/);
    expect(prizeProblems([{ fromRank: 5, toRank: 2, bps: 10 }])[0]?.path).toBe('prizes.0.toRank');
  });
});
