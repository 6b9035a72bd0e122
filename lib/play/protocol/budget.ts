// A player's earning budget in a game (docs/play-protocol.md §3): one token bucket per (player, game) that every
// client SDK session of the player draws its flushed points from. It refills at the game's maxPointsPerSecond up
// to maxBurstPoints and never beyond, so parallel sessions share one rate and an idle player banks at most the
// burst. The bucket rides in the flush's own read (BatchGetItem) and write (TransactWriteItems), conditional on
// the version read: of two flushes that drew on the same tokens, one is cancelled and reads again.

import { playKeys } from '../keys.js';
import type { TransactItem } from '../repository.js';
import { playTable } from '../repository.js';

/** The budget's rules, from the game's caps as the session recorded them when it opened. */
export interface BudgetRules {
  pointsPerSecond: number;
  burst: number;
}

/** Another session of the player that flushed within this window counts as running in parallel (a risk signal). */
export const PARALLEL_WINDOW_MS = 60_000;

/** A budget as read at an instant: what it holds now, and what its write is conditional on. */
export interface BudgetRead {
  /** Tokens available now (refilled since the last draw, at most the burst). */
  available: number;
  /** The stored version the write is conditional on (null: no bucket yet, it starts full). */
  version: number | null;
  /** When it was last refilled (ms); the next write never moves it back (clocks of two instances may differ). */
  refilledAt: number;
  /** Sessions of the player that flushed within the parallel window: session id → last flush (ms). */
  active: Record<string, number>;
}

const numberOr = (value: unknown, fallback: number) => {
  const n = Number(value);
  return Number.isFinite(n) ? n : fallback;
};

/** The bucket as of `nowMs`: absent, it is full (a player's first flush may use the whole burst). */
export const readBudget = (
  item: Record<string, unknown> | undefined,
  rules: BudgetRules,
  nowMs: number,
): BudgetRead => {
  if (!item) return { available: rules.burst, version: null, refilledAt: nowMs, active: {} };
  const refilledAt = numberOr(item.refilledAt, nowMs);
  const elapsed = Math.max(0, nowMs - refilledAt) / 1000;
  const available = Math.min(rules.burst, numberOr(item.tokens, 0) + rules.pointsPerSecond * elapsed);
  const stored = (item.active ?? {}) as Record<string, unknown>;
  const active = Object.fromEntries(
    Object.entries(stored)
      .map(([id, at]) => [id, numberOr(at, 0)] as const)
      .filter(([, at]) => nowMs - at < PARALLEL_WINDOW_MS),
  );
  return { available: Math.max(0, available), version: numberOr(item.version, 0), refilledAt, active };
};

/** The other sessions of the player that flushed within the parallel window. */
export const parallelSessions = (read: BudgetRead, sessionId: string) =>
  Object.keys(read.active).filter((id) => id !== sessionId).length;

/**
 * The budget's write for a flush that draws `spent` tokens: what remains (refilled to now, kept to a thousandth,
 * rounded down so rounding never mints tokens), the session's activity, the version bumped. Conditional on the
 * version read, or on no bucket when none was read.
 */
export const budgetDraw = (input: {
  gameId: string;
  arcId: string;
  sessionId: string;
  read: BudgetRead;
  spent: number;
  nowMs: number;
}): TransactItem => {
  const { read, nowMs } = input;
  const tokens = Math.floor(Math.max(0, read.available - input.spent) * 1000) / 1000;
  return {
    Update: {
      TableName: playTable(),
      Key: playKeys.budget(input.gameId, input.arcId),
      UpdateExpression:
        'SET tokens = :tokens, refilledAt = :at, active = :active, gameId = :g, arcId = :a, updatedAt = :now ADD version :one',
      ConditionExpression: read.version === null ? 'attribute_not_exists(pk)' : 'version = :v',
      ExpressionAttributeValues: {
        ':tokens': tokens,
        ':at': Math.max(nowMs, read.refilledAt),
        ':active': { ...read.active, [input.sessionId]: nowMs },
        ':g': input.gameId,
        ':a': input.arcId,
        ':now': new Date(nowMs).toISOString(),
        ':one': 1,
        ...(read.version === null ? {} : { ':v': read.version }),
      },
    },
  };
};
