import { logger } from '../core/logger.js';
import { countMetricBy } from '../core/metrics.js';
import { listAirdropCoins } from '../games/index.js';
import type { SnapshotMessage } from './builder.js';
import { sendSnapshotMessages } from './queue.js';

/** Queue one build message per coin whose game has an airdrop token; returns how many were queued. */
export const scheduleSnapshots = async (
  deps = { listAirdropCoins, sendSnapshotMessages, now: () => new Date() },
): Promise<{ queued: number }> => {
  countMetricBy('ScheduleRuns', { schedule: 'snapshots' });
  const coins = await deps.listAirdropCoins();
  const requestedAt = deps.now().toISOString();
  const bodies = [...new Set(coins.map((c) => c.coinMint))].map((coinMint) =>
    JSON.stringify({ coinMint, requestedAt } satisfies SnapshotMessage),
  );
  const queued = await deps.sendSnapshotMessages(bodies);
  logger.info('snapshot builds queued', { queued });
  return { queued };
};
