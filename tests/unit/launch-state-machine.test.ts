// The launch state machine's time budget: when the execution-level timeout fires, Step Functions skips the states'
// Catch and the job stays open until the sweeper fails it. So every retry budget must fit inside it: the worst
// case of the four stages (each exhausting its retries at its task timeout) plus MarkFailed's own budget.
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { EXECUTION_TIMEOUT_SECONDS, JOB_DEADLINE_MS } from '../../lib/launcher/model.js';

interface Retrier {
  ErrorEquals: string[];
  IntervalSeconds?: number;
  BackoffRate?: number;
  MaxAttempts?: number;
  MaxDelaySeconds?: number;
}
interface State {
  Type: string;
  TimeoutSeconds?: number;
  Retry?: Retrier[];
  Catch?: Array<{ ErrorEquals: string[]; Next: string }>;
  Next?: string;
  End?: boolean;
}
interface Machine {
  TimeoutSeconds: number;
  StartAt: string;
  States: Record<string, State>;
}

const machine = parse(
  readFileSync(new URL('../../infra/launch-state-machine.yml', import.meta.url), 'utf8'),
) as Machine;

/** Longest backoff waits of one retrier (ASL defaults: interval 1 s, rate 2, 3 attempts, no cap). */
const retrierWaits = (retrier: Retrier): number => {
  let total = 0;
  for (let n = 0; n < (retrier.MaxAttempts ?? 3); n++) {
    const wait = (retrier.IntervalSeconds ?? 1) * (retrier.BackoffRate ?? 2) ** n;
    total += Math.min(wait, retrier.MaxDelaySeconds ?? Number.POSITIVE_INFINITY);
  }
  return total;
};

/**
 * A Task state's worst case: every attempt runs to its timeout (each retrier counts its own attempts, so in the
 * worst case they add up) and every wait is the longest FULL jitter can draw.
 */
const budget = (name: string): number => {
  const state = machine.States[name];
  if (state?.Type !== 'Task') throw new Error(`${name} is not a Task`);
  if (!state.TimeoutSeconds) throw new Error(`${name} has no TimeoutSeconds (the ASL default is 99999999)`);
  const retriers = state.Retry ?? [];
  const attempts = 1 + retriers.reduce((sum, r) => sum + (r.MaxAttempts ?? 3), 0);
  return attempts * state.TimeoutSeconds + retriers.reduce((sum, r) => sum + retrierWaits(r), 0);
};

/** The stages from StartAt, following Next to the end. */
const stages = (): string[] => {
  const path: string[] = [];
  for (let name: string | undefined = machine.StartAt; name; name = machine.States[name]?.Next) {
    path.push(name);
    if (path.length > 20) throw new Error('the stages loop');
  }
  return path;
};

describe('the launch state machine fits its execution timeout', () => {
  it('runs Reserve → Mint → Buy → Complete, each caught by MarkFailed', () => {
    expect(stages()).toEqual(['Reserve', 'Mint', 'Buy', 'Complete']);
    for (const name of stages()) {
      expect(machine.States[name]?.Catch).toEqual([
        expect.objectContaining({ ErrorEquals: ['States.ALL'], Next: 'MarkFailed' }),
      ]);
    }
  });

  it('Σ worst-case stage budgets + MarkFailed ≤ TimeoutSeconds (the arithmetic of docs/launcher.md)', () => {
    const perStage = stages().map(budget);
    expect(perStage).toEqual([365, 365, 365, 365]);
    expect(budget('MarkFailed')).toBe(203);
    const total = perStage.reduce((a, b) => a + b, 0) + budget('MarkFailed');
    expect(total).toBe(1663);
    expect(total).toBeLessThanOrEqual(machine.TimeoutSeconds);
  });

  it('the code knows the timeout, and a job outlives its execution before the sweeper fails it', () => {
    expect(machine.TimeoutSeconds).toBe(EXECUTION_TIMEOUT_SECONDS);
    expect(JOB_DEADLINE_MS).toBeGreaterThan(EXECUTION_TIMEOUT_SECONDS * 1000);
  });
});
