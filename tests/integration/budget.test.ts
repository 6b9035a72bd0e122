import { describe, expect, it } from 'vitest';
import {
  budgetDraw,
  PARALLEL_WINDOW_MS,
  parallelSessions,
  readBudget,
} from '../../lib/play/protocol/budget.js';
import { assessRisk } from '../../lib/play/risk.js';

const RULES = { pointsPerSecond: 100, burst: 1_000 };
const T = 1_800_000_000_000;

describe("a player's earning budget (token bucket)", () => {
  it('starts full, refills at the rate and never holds more than the burst', () => {
    expect(readBudget(undefined, RULES, T)).toMatchObject({ available: 1_000, version: null });
    const drained = { tokens: 0, refilledAt: T, version: 3, active: {} };
    expect(readBudget(drained, RULES, T + 2_500).available).toBe(250);
    expect(readBudget(drained, RULES, T + 3_600_000).available).toBe(1_000);
    expect(readBudget({ ...drained, tokens: 400 }, RULES, T + 1_000).available).toBe(500);
  });

  it('gives nothing for a clock behind the last refill (another instance wrote it)', () => {
    const read = readBudget({ tokens: 10, refilledAt: T, version: 1, active: {} }, RULES, T - 5_000);
    expect(read.available).toBe(10);
    const write = budgetDraw({ gameId: 'g', arcId: 'a', sessionId: 's', read, spent: 10, nowMs: T - 5_000 });
    expect(write.Update?.ExpressionAttributeValues?.[':at']).toBe(T);
  });

  it('writes what remains, rounded down, conditional on the version read or on no bucket', () => {
    const read = readBudget({ tokens: 0, refilledAt: T, version: 7, active: {} }, RULES, T + 1_234);
    const write = budgetDraw({ gameId: 'g', arcId: 'a', sessionId: 's', read, spent: 123, nowMs: T + 1_234 });
    expect(write.Update?.ConditionExpression).toBe('version = :v');
    expect(write.Update?.ExpressionAttributeValues).toMatchObject({
      ':v': 7,
      ':tokens': 0.4,
      ':at': T + 1_234,
    });
    const first = budgetDraw({
      gameId: 'g',
      arcId: 'a',
      sessionId: 's',
      read: readBudget(undefined, RULES, T),
      spent: 1_000,
      nowMs: T,
    });
    expect(first.Update?.ConditionExpression).toBe('attribute_not_exists(pk)');
    expect(first.Update?.ExpressionAttributeValues?.[':tokens']).toBe(0);
  });

  it('counts the other sessions that flushed within the window, and forgets older ones', () => {
    const item = {
      tokens: 0,
      refilledAt: T,
      version: 1,
      active: { me: T - 1_000, recent: T - 5_000, old: T - PARALLEL_WINDOW_MS - 1 },
    };
    const read = readBudget(item, RULES, T);
    expect(parallelSessions(read, 'me')).toBe(1);
    const write = budgetDraw({ gameId: 'g', arcId: 'a', sessionId: 'me', read, spent: 0, nowMs: T });
    expect(write.Update?.ExpressionAttributeValues?.[':active']).toEqual({ me: T, recent: T - 5_000 });
  });

  it('scores parallel sessions 0.2 per other session, up to 0.6', () => {
    const base = { points: 10, saves: 3, capHits: 0, maxScorePerSession: 100_000, durationSeconds: 3 };
    expect(assessRisk({ ...base, parallelSessions: 0 })).toEqual({ score: 0, reasons: [] });
    expect(assessRisk({ ...base, parallelSessions: 1 })).toEqual({
      score: 0.2,
      reasons: ['parallel_sessions'],
    });
    expect(assessRisk({ ...base, parallelSessions: 3 }).score).toBe(0.6);
    expect(assessRisk({ ...base, parallelSessions: 9 }).score).toBe(0.6);
  });
});
