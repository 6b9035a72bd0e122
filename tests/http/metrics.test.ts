// Business metrics as the functions emit them: CloudWatch embedded-metric-format lines in their log output
// (serverless offline's, here), which CloudWatch turns into the metrics the dashboard and alarms read
// (docs/operations.md).
import { randomBytes, randomUUID } from 'node:crypto';
import { readFileSync } from 'node:fs';
import bs58 from 'bs58';
import { describe, expect, inject, it } from 'vitest';
import { registerGame } from '../helpers/games.js';
import { apiBaseUrl } from '../helpers/http.js';
import { createDeveloper, hmacHeaders } from '../helpers/users.js';

interface EmfLine {
  _aws: {
    CloudWatchMetrics: Array<{ Namespace: string; Dimensions: string[][]; Metrics: Array<{ Name: string }> }>;
  };
  [key: string]: unknown;
}

/** The EMF records in the functions' log output so far. */
const emfLines = (): EmfLine[] =>
  readFileSync(inject('offlineLog'), 'utf8')
    .split('\n')
    .flatMap((line) => {
      const start = line.indexOf('{"_aws"');
      if (start < 0) return [];
      try {
        return [JSON.parse(line.slice(start)) as EmfLine];
      } catch {
        return [];
      }
    });

const metricNames = (line: EmfLine) =>
  line._aws.CloudWatchMetrics.flatMap((m) => m.Metrics.map((x) => x.Name));

/** Waits until `match` finds a record (the log is written asynchronously). */
const waitFor = async (match: (line: EmfLine) => boolean): Promise<EmfLine[]> => {
  for (let i = 0; i < 50; i++) {
    const found = emfLines().filter(match);
    if (found.length > 0) return found;
    await new Promise((r) => setTimeout(r, 100));
  }
  return [];
};

describe('business metrics (EMF in the function logs)', () => {
  it('a batch save emits the points it accepted, its refusals by reason and the sessions it flagged', async () => {
    const dev = await createDeveloper();
    // A cap no other test uses: the accepted total below is this request's alone.
    const cap = 1000 + Math.floor(Math.random() * 8000);
    const game = await registerGame(dev, { maxScorePerSession: cap });
    const player = `sol:${bs58.encode(randomBytes(32))}`;
    const session = randomUUID();
    // 37 accepted, then the cap clips the second entry (cap − 37 accepted) and rejects the third: two cap hits in
    // one session that ends on the cap flag it (risk 0.6 > 0.5).
    const entries = [
      { playerId: player, points: 37, sessionId: session },
      { playerId: player, points: cap, sessionId: session },
      { playerId: player, points: 5, sessionId: session },
    ];
    const body = JSON.stringify({ gameId: game.id, entries });
    const res = await fetch(`${apiBaseUrl()}/play/dev/batch-save-points`, {
      method: 'POST',
      headers: {
        ...hmacHeaders(dev, 'POST', '/play/dev/batch-save-points'),
        'content-type': 'application/json',
      },
      body,
    });
    expect(res.status).toBe(200);
    const { data } = (await res.json()) as {
      data: { results: Array<{ status: string; reason: string | null }> };
    };
    expect(data.results.map((r) => r.status)).toEqual(['accepted', 'clipped', 'rejected']);

    const accepted = await waitFor((l) => l.PointsAccepted === cap);
    expect(accepted).toHaveLength(1);
    const [line] = accepted;
    expect(line?._aws.CloudWatchMetrics[0]).toMatchObject({
      Namespace: 'Arcadia',
      Dimensions: [['service']],
    });
    expect(line).toMatchObject({ service: 'arcadia', SessionsFlagged: 1 });
    // Refusals are their own records, one per reason, with the reason as a dimension.
    const refused = await waitFor(
      (l) =>
        metricNames(l).includes('SavesRefused') &&
        l.reason === 'max_score_per_session' &&
        l.SavesRefused === 2,
    );
    expect(refused.length).toBeGreaterThan(0);
    expect(refused[0]?._aws.CloudWatchMetrics[0]?.Dimensions).toEqual([['service', 'reason']]);
  });
});
