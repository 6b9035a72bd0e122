/** What the risk score of a session is computed from. */
export interface RiskSignals {
  points: number;
  /** Backend saves or SDK flushes. */
  saves: number;
  capHits: number;
  maxScorePerSession: number | null;
  /** Seconds between the first and last save/flush. */
  durationSeconds: number;
  /** Intervals between flushes, in ms (SDK sessions). */
  flushIntervalsMs?: number[];
  chainBreaks?: number;
  resyncs?: number;
  /** SDK sessions: the most other sessions of the same player seen flushing alongside this one (within a minute). */
  parallelSessions?: number;
}

export interface RiskAssessment {
  score: number;
  reasons: string[];
}

const clamp = (x: number) => Math.max(0, Math.min(1, x));

/** Coefficient of variation of intervals: ~0 for a metronome (a bot), larger for people. */
const variation = (intervals: number[]) => {
  const mean = intervals.reduce((a, b) => a + b, 0) / intervals.length;
  if (mean <= 0) return 0;
  const variance = intervals.reduce((a, b) => a + (b - mean) ** 2, 0) / intervals.length;
  return Math.sqrt(variance) / mean;
};

/**
 * An explainable 0–1 risk score: each signal adds a weight and names itself in `reasons`; the score is the
 * sum, capped at 1. Sessions above 0.5 are flagged (GET /play/dev/risky-sessions).
 * - cap_hit (0.3, +0.1 per extra hit up to 0.5): the session tried to exceed a cap;
 * - at_session_cap (0.2): it ended exactly on maxScorePerSession;
 * - fast_scoring (up to 0.4): more than 50 points per second sustained over at least 10 s;
 * - regular_timing (0.55): 8+ flushes whose intervals vary by less than 5% (a script, not a person);
 * - chain_breaks (0.2 each, up to 0.6) and resyncs (0.1 each, up to 0.3): protocol irregularities;
 * - parallel_sessions (0.2 per other session of the player flushing within the same minute, up to 0.6): one player
 *   playing several sessions at once is a script more often than a person (three others flag it alone).
 */
export const assessRisk = (s: RiskSignals): RiskAssessment => {
  const parts: Array<[string, number]> = [];
  if (s.capHits > 0) parts.push(['cap_hit', Math.min(0.5, 0.3 + 0.1 * (s.capHits - 1))]);
  if (s.maxScorePerSession !== null && s.points >= s.maxScorePerSession && s.points > 0)
    parts.push(['at_session_cap', 0.2]);
  if (s.durationSeconds >= 10) {
    const rate = s.points / s.durationSeconds;
    if (rate > 50) parts.push(['fast_scoring', clamp((rate - 50) / 200) * 0.4 + 0.1]);
  }
  const intervals = s.flushIntervalsMs ?? [];
  if (intervals.length >= 7 && variation(intervals) < 0.05) parts.push(['regular_timing', 0.55]);
  if ((s.chainBreaks ?? 0) > 0) parts.push(['chain_breaks', Math.min(0.6, 0.2 * (s.chainBreaks ?? 0))]);
  if ((s.resyncs ?? 0) > 0) parts.push(['resyncs', Math.min(0.3, 0.1 * (s.resyncs ?? 0))]);
  const parallel = s.parallelSessions ?? 0;
  if (parallel > 0) parts.push(['parallel_sessions', Math.min(0.6, 0.2 * parallel)]);
  const score = Math.round(clamp(parts.reduce((sum, [, w]) => sum + w, 0)) * 1000) / 1000;
  return { score, reasons: parts.map(([reason]) => reason) };
};
