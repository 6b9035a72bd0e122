import type { SQSBatchResponse, SQSEvent } from 'aws-lambda';
import { settings } from '../../lib/core/config.js';
import { observed } from '../../lib/core/observed.js';
import { deliverDeps, processDeliveryBatch } from '../../lib/webhooks/index.js';

settings(); // parsed at cold start: a misconfigured container fails here, naming the setting

export const sideEffects = deliverDeps();

/**
 * WebhookQueue consumer: each message one attempt to deliver one event to one endpoint, the batch's attempts in
 * parallel (each with its own deadline); an attempt the worker could not record is reported and handed out again.
 */
export const handler = observed(
  (event: SQSEvent): Promise<SQSBatchResponse> => processDeliveryBatch(event.Records, sideEffects),
);
