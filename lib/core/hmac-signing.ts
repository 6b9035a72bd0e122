import { createHash, createHmac } from 'node:crypto';

/** What a request signature covers (docs/decisions.md, "API conventions"). */
export interface SigningInput {
  secretKey: string;
  method: string;
  /** Request path relative to the base URL, without the query string, percent-decoded (`signedPath`). */
  path: string;
  /** Unix time in milliseconds. */
  timestamp: number;
  /** Body binding: lowercase hex sha256 of the raw body, sent as `x-content-sha256`. */
  bodySha256?: string;
  /**
   * Strict form: the request's query string as sent (without `?`; `''` for none), signed canonicalized after the
   * body hash. Needs `bodySha256` (the sha256 of the empty string for a request without a body).
   */
  query?: string;
}

/**
 * The path a signature covers: the request path percent-decoded, each run of `%XX` read as UTF-8 (a run that is no
 * valid UTF-8 stays as it is). API Gateway hands a function the path decoded, so `/periods/2026-12-02T00:44:00Z`
 * is signed the same whether the client sent `:` or `%3A`; serverless offline decodes only the characters RFC 3986
 * leaves unreserved, and decoding what is still encoded gives the same path there. On API Gateway the second pass
 * changes nothing unless a path parameter's own value holds `%` and two hex digits, which no route's ids do.
 */
export const signedPath = (path: string): string =>
  path.replace(/(?:%[0-9A-Fa-f]{2})+/g, (run) => {
    try {
      return decodeURIComponent(run);
    } catch {
      return run;
    }
  });

/** RFC 3986 percent-encoding: unreserved characters (A-Z a-z 0-9 - . _ ~) kept, every other UTF-8 byte %XX. */
export const rfc3986 = (value: string): string =>
  encodeURIComponent(value).replace(
    /[!'()*]/g,
    (c) => `%${c.charCodeAt(0).toString(16).toUpperCase().padStart(2, '0')}`,
  );

const byCodeUnit = (a: string, b: string) => (a < b ? -1 : a > b ? 1 : 0);

/**
 * The canonical query string a strict signature covers: the query is read as `application/x-www-form-urlencoded`
 * (`+` is a space, `%XX` sequences are UTF-8 bytes; a leading `?` is dropped, empty segments are skipped, `a` is
 * `a=`); each name and value is encoded per RFC 3986 with uppercase hex; the pairs are sorted by encoded name,
 * then by encoded value; joined as `name=value` with `&`. So `b=2&a=x%20y&a=%C3%A9` and `a=%c3%a9&b=2&a=x+y` are
 * both `a=%C3%A9&a=x%20y&b=2`, and a query that differs in any name or value has another canonical form.
 */
export const canonicalQuery = (query: string): string =>
  [...new URLSearchParams(query)]
    .map(([name, value]) => [rfc3986(name), rfc3986(value)] as const)
    .sort(([an, av], [bn, bv]) => byCodeUnit(an, bn) || byCodeUnit(av, bv))
    .map(([name, value]) => `${name}=${value}`)
    .join('&');

/**
 * The exact string that is signed: lower(method) LF lower(path) LF timestamp (`path` already decoded by
 * `signedPath`), then LF bodySha256 when the body is bound, then LF canonicalQuery(query) in the strict form (which
 * always binds the body).
 */
export const canonicalString = ({
  method,
  path,
  timestamp,
  bodySha256,
  query,
}: Omit<SigningInput, 'secretKey'>): string => {
  const parts = [method.toLowerCase(), path.toLowerCase(), String(timestamp)];
  if (query !== undefined && !bodySha256) throw new Error('The strict form signs the body hash too');
  if (bodySha256) parts.push(bodySha256.toLowerCase());
  if (query !== undefined) parts.push(canonicalQuery(query));
  return parts.join('\n');
};

/** Lowercase hex HMAC-SHA256 of the canonical string, keyed with the secret key. */
export const signRequest = (input: SigningInput): string =>
  createHmac('sha256', input.secretKey).update(canonicalString(input)).digest('hex');

/** The Authorization header value, in the form the signing helper endpoint returns. */
export const formatAuthorization = (apiKey: string, signature: string, timestamp: number): string =>
  `HMAC-SHA256 apiKey=${apiKey} signature=${signature} timestamp=${timestamp}`;

/** Lowercase hex sha256 of a body, for the `x-content-sha256` binding header. */
export const sha256Hex = (body: Buffer | string): string => createHash('sha256').update(body).digest('hex');
