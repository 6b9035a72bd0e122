import { createHash, createHmac } from 'node:crypto';

/** What a request signature covers (SPEC §5 rule 3, DESIGN §3). */
export interface SigningInput {
  secretKey: string;
  method: string;
  /** Request path relative to the base URL, without the query string. */
  path: string;
  /** Unix time in milliseconds. */
  timestamp: number;
  /** Optional body binding: lowercase hex sha256 of the raw body, sent as `x-content-sha256`. */
  bodySha256?: string;
}

/** The exact string that is signed: lower(method) LF lower(path) LF timestamp [LF bodySha256]. */
export const canonicalString = ({
  method,
  path,
  timestamp,
  bodySha256,
}: Omit<SigningInput, 'secretKey'>): string => {
  const parts = [method.toLowerCase(), path.toLowerCase(), String(timestamp)];
  if (bodySha256) parts.push(bodySha256.toLowerCase());
  return parts.join('\n');
};

/** Lowercase hex HMAC-SHA256 of the canonical string, keyed with the secret key. */
export const signRequest = (input: SigningInput): string =>
  createHmac('sha256', input.secretKey).update(canonicalString(input)).digest('hex');

/** The Authorization header value, in the form the helper endpoint returns (SPEC §4.2). */
export const formatAuthorization = (apiKey: string, signature: string, timestamp: number): string =>
  `HMAC-SHA256 apiKey=${apiKey} signature=${signature} timestamp=${timestamp}`;

/** Lowercase hex sha256 of a body, for the `x-content-sha256` binding header. */
export const sha256Hex = (body: Buffer | string): string => createHash('sha256').update(body).digest('hex');
