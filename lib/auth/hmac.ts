import { timingSafeEqual } from 'node:crypto';
import { openSecret } from '../adapters/secrets.js';
import type { AuthContext, Authenticator, RawRequest } from '../core/auth.js';
import { AppError } from '../core/errors.js';
import { sha256Hex, signedPath, signRequest } from '../core/hmac-signing.js';
import { useOnce } from '../ratelimit/index.js';
import { getApiKeyRecord } from '../user/index.js';

/** Allowed distance between the signed timestamp and server time, either way: older captured requests are refused. */
export const MAX_SKEW_MS = 5 * 60 * 1000;

const HEADER =
  /^HMAC-SHA256 +apiKey=([0-9a-fA-F-]{36}),? +signature=([0-9a-fA-F]{64}),? +timestamp=(\d{1,16})$/;

const invalid = (message = 'Invalid HMAC signature') => new AppError('INVALID_SIGNATURE', message);

export interface ParsedHmacHeader {
  apiKey: string;
  signature: string;
  timestamp: number;
}

/** Parse `HMAC-SHA256 apiKey=…, signature=…, timestamp=…` (commas optional); anything else is a 401. */
export const parseHmacHeader = (value: string | undefined): ParsedHmacHeader => {
  if (!value) throw new AppError('UNAUTHORIZED', 'Missing Authorization header');
  const match = HEADER.exec(value.trim());
  if (!match) throw invalid('Malformed HMAC Authorization header');
  const [, apiKey = '', signature = '', timestamp = ''] = match;
  return { apiKey: apiKey.toLowerCase(), signature: signature.toLowerCase(), timestamp: Number(timestamp) };
};

const equalHex = (a: string, b: string) => {
  const x = Buffer.from(a, 'hex');
  const y = Buffer.from(b, 'hex');
  return x.length === y.length && x.length > 0 && timingSafeEqual(x, y);
};

/**
 * Record a request as seen; the same request again within its signature's validity window is refused. The item
 * expires (TTL) once the timestamp can no longer pass the skew check, so the store stays small.
 * Without a body binding the signature covers only method, path and timestamp, so two different requests signed
 * in the same millisecond carry the same one: the guard then keys on the signature and the body's sha256, which
 * refuses an exact replay and admits the other request. A bound signature already covers the body.
 */
const spendSignature = async (signature: string, timestamp: number, unboundBodySha256?: string) => {
  const key = unboundBodySha256 === undefined ? `SIG#${signature}` : `SIG#${signature}#${unboundBodySha256}`;
  if (!(await useOnce(key, Math.ceil((timestamp + MAX_SKEW_MS) / 1000) + 60)))
    throw invalid('Signature already used');
};

const strictRequired = () =>
  new AppError(
    'STRICT_SIGNING_REQUIRED',
    'This API key requires strict signing: send x-content-sha256 with the hex sha256 of the body (also when it is ' +
      'empty) and sign method, path, timestamp, body hash and canonical query (see POST /user/hmac-signature)',
  );

/**
 * Which form the signature is in: `strict` (body hash and canonical query), `spec` (method, path, timestamp, and the
 * body hash when `x-content-sha256` is sent), or none. Only a correct signature of the basic (`spec`) form learns
 * that its key is strict, so the answer tells nothing about a key to whoever cannot sign with it.
 */
const signedForm = (
  request: RawRequest,
  secretKey: string,
  header: ParsedHmacHeader,
  bound: string | undefined,
): 'strict' | 'spec' | undefined => {
  const base = {
    secretKey,
    method: request.method,
    path: signedPath(request.path),
    timestamp: header.timestamp,
  };
  if (
    bound &&
    equalHex(signRequest({ ...base, bodySha256: bound, query: request.rawQuery }), header.signature)
  )
    return 'strict';
  if (equalHex(signRequest({ ...base, ...(bound ? { bodySha256: bound } : {}) }), header.signature))
    return 'spec';
  return undefined;
};

/**
 * Verify an HMAC-signed request (docs/decisions.md, "API conventions"): header shape, `x-auth-provider: hmac`,
 * timestamp skew, constant-time signature check against the caller's current secret, optional body binding (required,
 * with the canonical query, for a key that opted into strict signing), and single use of non-GET requests (see
 * spendSignature). Costs one GetItem, plus one conditional PutItem for non-GET requests.
 */
export const verifyHmacRequest = async (
  request: RawRequest,
  now: number = Date.now(),
): Promise<AuthContext> => {
  if ((request.headers['x-auth-provider'] ?? '').toLowerCase() !== 'hmac') {
    throw new AppError('UNAUTHORIZED', 'HMAC requests must send x-auth-provider: hmac');
  }
  const header = parseHmacHeader(request.headers.authorization);
  if (Math.abs(now - header.timestamp) > MAX_SKEW_MS) {
    throw new AppError(
      'TIMESTAMP_OUT_OF_RANGE',
      'timestamp must be Unix milliseconds within 5 minutes of server time',
    );
  }
  const bound = request.headers['x-content-sha256'];
  if (bound !== undefined) {
    if (!/^[0-9a-fA-F]{64}$/.test(bound) || !equalHex(bound.toLowerCase(), sha256Hex(request.rawBody))) {
      throw invalid('Body does not match x-content-sha256');
    }
  }
  const record = await getApiKeyRecord(header.apiKey);
  // The same answer for an unknown key and a wrong signature: nothing tells which API keys exist.
  if (!record) throw invalid();
  const form = signedForm(request, openSecret(record.secretCipher).toString('utf8'), header, bound);
  if (!form) throw invalid();
  if (form === 'spec' && record.strictSigning) throw strictRequired();
  if (request.method.toUpperCase() !== 'GET' && request.method.toUpperCase() !== 'HEAD') {
    await spendSignature(header.signature, header.timestamp, bound ? undefined : sha256Hex(request.rawBody));
  }
  return { scheme: 'hmac', userId: record.arcId, apiKey: header.apiKey };
};

/** The HMAC authenticator for `route(...)`. */
export const hmacAuthenticator: Authenticator = (request) => verifyHmacRequest(request);
