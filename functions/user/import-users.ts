import type { SQSBatchResponse, SQSEvent } from 'aws-lambda';
import { settings } from '../../lib/core/config.js';
import { observed } from '../../lib/core/observed.js';
import { mergeOwned } from '../../lib/identity/index.js';
import { configuredDirectory, type ImportDeps, processImportBatch } from '../../lib/user/index.js';

settings(); // parsed at cold start: a misconfigured container fails here, naming the setting

export const sideEffects: ImportDeps = {
  directory: configuredDirectory(),
  merge: (owned) => mergeOwned(owned),
};

/**
 * UserImportQueue consumer: each message one batch of users the platform created before the identity provider
 * had them; a message with a user not done is reported (ReportBatchItemFailures), retried, then dead-lettered.
 */
export const handler = observed(
  (event: SQSEvent): Promise<SQSBatchResponse> => processImportBatch(event.Records, sideEffects),
);
