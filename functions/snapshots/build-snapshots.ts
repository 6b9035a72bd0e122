import type { SQSBatchResponse, SQSEvent } from 'aws-lambda';
import { buildSnapshot, processSnapshotBatch } from '../../lib/snapshots/builder.js';
import { builderDeps } from '../../lib/snapshots/deps.js';

/** SnapshotQueue consumer: one build per message, failures reported per item (ReportBatchItemFailures). */
export const handler = (event: SQSEvent): Promise<SQSBatchResponse> =>
  processSnapshotBatch(event.Records, (tokenMint) => buildSnapshot(builderDeps(), tokenMint));
