import { formatAuthorization, signRequest } from '../core/hmac-signing.js';

export interface HmacHelperInput {
  secretKey: string;
  method: string;
  path: string;
  apiKey: string;
  timestamp?: number | undefined;
  bodySha256?: string | undefined;
}

/** Produce the Authorization header value for a request (SPEC §4.2). */
export const createHmacSignature = (input: HmacHelperInput, now: () => number = Date.now) => {
  const timestamp = input.timestamp ?? now();
  const signature = signRequest({ ...input, timestamp });
  return { signature: formatAuthorization(input.apiKey, signature, timestamp), timestamp };
};
