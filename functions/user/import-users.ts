import type { SQSBatchResponse, SQSEvent } from 'aws-lambda';
import { settings } from '../../lib/core/config.js';
import { observed } from '../../lib/core/observed.js';
import { mergeOwned } from '../../lib/identity/index.js';
import {
  configuredDirectory,
  type ImportDeps,
  processImportBatch,
  sharedImportPace,
} from '../../lib/user/index.js';

settings(); // parsed at cold start: a misconfigured container fails here, naming the setting

export const sideEffects: ImportDeps = {
  // A 429 is retried once after a short wait; a longer Retry-After is waited out on the queue (the message is
  // put back for that long), not in the function.
  directory: configuredDirectory({ creationAttempts: 2 }),
  merge: (owned) => mergeOwned(owned),
  pace: sharedImportPace(),
};

/**
 * UserImportQueue consumer: each message one batch of users the platform created before the identity provider
 * had them, sent at the provider's pace (shared by every worker); one the provider can take only later is put
 * back with that delay; a message with a user not done otherwise is reported (ReportBatchItemFailures), retried,
 * then dead-lettered.
 */
export const handler = observed(
  (event: SQSEvent): Promise<SQSBatchResponse> => processImportBatch(event.Records, sideEffects),
);
