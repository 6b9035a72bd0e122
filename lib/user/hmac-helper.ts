import { AppError } from '../core/errors.js';
import { canonicalString, formatAuthorization, signedPath, signRequest } from '../core/hmac-signing.js';

export interface HmacHelperInput {
  secretKey: string;
  method: string;
  path: string;
  apiKey: string;
  timestamp?: number | undefined;
  bodySha256?: string | undefined;
  query?: string | undefined;
}

/**
 * The Authorization header value for a request, as the signing helper endpoint returns it; strict given `query`.
 * `path` may be given as the URL carries it: it is signed decoded, as the server verifies it.
 */
export const createHmacSignature = (input: HmacHelperInput, now: () => number = Date.now) => {
  if (input.query !== undefined && input.bodySha256 === undefined) {
    throw new AppError('VALIDATION_ERROR', 'The strict form (query given) signs the body hash too', [
      {
        path: 'bodySha256',
        message:
          'required with query: the hex sha256 of the body (e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855 for an empty one)',
      },
    ]);
  }
  const timestamp = input.timestamp ?? now();
  const signed = {
    method: input.method,
    path: signedPath(input.path),
    timestamp,
    ...(input.bodySha256 !== undefined ? { bodySha256: input.bodySha256 } : {}),
    ...(input.query !== undefined ? { query: input.query } : {}),
  };
  const signature = signRequest({ ...signed, secretKey: input.secretKey });
  return {
    signature: formatAuthorization(input.apiKey, signature, timestamp),
    timestamp,
    stringToSign: canonicalString(signed),
  };
};
