// The production side effects of the webhook functions: the SSRF-safe URL check and POST (lib/adapters/safe-fetch.ts,
// loopback only where SAFE_FETCH_ALLOW_LOOPBACK says so: the local stack) and the delivery queue.
import { checkFetchableUrl, safeFetch, UnsafeUrlError } from '../adapters/safe-fetch.js';
import { settings } from '../core/config.js';
import type { DeliverDeps } from './deliver.js';
import { RESPONSE_CAP_BYTES } from './model.js';
import { queueDeliveries } from './queue.js';
import type { WebhookDeps } from './service.js';

const localMode = () => settings().SAFE_FETCH_ALLOW_LOOPBACK === 'true';

export const webhookDeps = (): WebhookDeps => ({
  checkUrl: (url) => checkFetchableUrl(url, { allowLoopback: localMode() }),
  httpsOnly: !localMode(),
  queue: queueDeliveries,
});

/**
 * The delivery POST: one deadline for DNS, connect, headers and body (WEBHOOK_TIMEOUT_MS), the answer read up to
 * RESPONSE_CAP_BYTES, no redirect followed (a 3xx is a failed attempt), every address checked again at connect.
 */
export const deliverDeps = (): DeliverDeps => ({
  post: async (url, body, headers) => {
    if (!localMode() && !url.startsWith('https://')) throw new UnsafeUrlError('must be https');
    const result = await safeFetch(url, {
      method: 'POST',
      body: Buffer.from(body),
      headers,
      timeoutMs: settings().WEBHOOK_TIMEOUT_MS,
      maxBytes: RESPONSE_CAP_BYTES,
      maxRedirects: 0,
      allowLoopback: localMode(),
      userAgent: 'Arcadia-Webhooks/1.0',
    });
    return { status: result.status, body: result.body };
  },
  queue: queueDeliveries,
});
