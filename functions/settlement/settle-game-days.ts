import type { SQSBatchResponse, SQSEvent } from 'aws-lambda';
import { chainFromConfig } from '../../lib/chain/index.js';
import { settings } from '../../lib/core/config.js';
import { now } from '../../lib/core/time.js';
import { priceFromConfig } from '../../lib/rewards/index.js';
import { processSettlementBatch, type SettlementDeps, settleGameDay } from '../../lib/settlement/index.js';

settings(); // parsed at cold start: a misconfigured container fails here, naming the setting

export const sideEffects: SettlementDeps = {
  chain: chainFromConfig(),
  price: priceFromConfig(),
  now,
  // TODO(merge: emission): settleCoinEmission: the emission's settleCoinEmission (launcher/snapshots).
};

/** SettlementQueue consumer: one (game, day) per message, failures reported per item (ReportBatchItemFailures). */
export const handler = (event: SQSEvent): Promise<SQSBatchResponse> =>
  processSettlementBatch(event.Records, (gameId, day) => settleGameDay(gameId, day, sideEffects));
