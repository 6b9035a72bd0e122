import type { SQSBatchResponse, SQSEvent } from 'aws-lambda';
import { chainReaderFromConfig } from '../../lib/chain/index.js';
import { observed } from '../../lib/core/observed.js';
import { now } from '../../lib/core/time.js';
import {
  type BuilderDeps,
  buildSnapshot,
  findAirdropCoin,
  getSnapshotObject,
  getSummary,
  processSnapshotBatch,
  putSnapshotObjects,
  putSummaryIfNewer,
} from '../../lib/snapshots/index.js';

export const sideEffects: BuilderDeps = {
  chain: chainReaderFromConfig(),
  findCoin: findAirdropCoin,
  putObjects: putSnapshotObjects,
  getObject: getSnapshotObject,
  getSummary,
  putSummaryIfNewer,
  now,
};

/** SnapshotQueue consumer: one build per message, failures reported per item (ReportBatchItemFailures). */
export const handler = observed(
  (event: SQSEvent): Promise<SQSBatchResponse> =>
    processSnapshotBatch(event.Records, (coinMint) => buildSnapshot(coinMint, sideEffects)),
);
