// HMAC request signing on WebCrypto (browsers, Node 20+, Deno, workers): the scheme of the `hmac` security
// scheme in openapi.yaml.

const encoder = new TextEncoder();

const hex = (bytes: ArrayBuffer): string =>
  Array.from(new Uint8Array(bytes), (b) => b.toString(16).padStart(2, '0')).join('');

/** Lowercase hex sha256 of a body, the value of `x-content-sha256`. */
export const sha256Hex = async (body: string | ArrayBuffer | Uint8Array): Promise<string> => {
  const bytes = typeof body === 'string' ? encoder.encode(body) : new Uint8Array(body);
  return hex(await crypto.subtle.digest('SHA-256', bytes));
};

export interface SignInput {
  apiKey: string;
  secretKey: string;
  method: string;
  /** Request path relative to the API's base URL, without the query string, percent-decoded (`signedPath`). */
  path: string;
  /** Unix milliseconds; the server accepts 5 minutes of skew either way. */
  timestamp: number;
  /** When given, the signature covers the body: send it as `x-content-sha256`. */
  bodySha256?: string;
  /**
   * The strict form: the query string as sent (without `?`; `''` for none), signed canonicalized after the body
   * hash, which it needs (the sha256 of `''` for a request without a body). Keys with strict signing accept only it.
   */
  query?: string;
}

/** The sha256 of an empty body, what the strict form signs for a request without one. */
export const EMPTY_BODY_SHA256 = 'e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855';

/**
 * The path a signature covers: a URL's path percent-decoded, each run of `%XX` read as UTF-8 (a run that is no
 * valid UTF-8 stays as it is), as the API receives it: `/periods/2026-12-02T00%3A44%3A00Z/board` is signed as
 * `/periods/2026-12-02T00:44:00Z/board`.
 */
export const signedPath = (path: string): string =>
  path.replace(/(?:%[0-9A-Fa-f]{2})+/g, (run) => {
    try {
      return decodeURIComponent(run);
    } catch {
      return run;
    }
  });

/** RFC 3986 percent-encoding: A-Z a-z 0-9 - . _ ~ kept, every other UTF-8 byte as %XX (uppercase hex). */
const rfc3986 = (value: string): string =>
  encodeURIComponent(value).replace(/[!'()*]/g, (c) => `%${c.charCodeAt(0).toString(16).toUpperCase()}`);

const byCodeUnit = (a: string, b: string) => (a < b ? -1 : a > b ? 1 : 0);

/**
 * The canonical query the strict form signs (the API's `POST /user/hmac-signature` describes it): pairs read as
 * form-urlencoded, names and values RFC 3986-encoded, sorted by name then value, joined `name=value` with `&`.
 */
export const canonicalQuery = (query: string): string =>
  [...new URLSearchParams(query)]
    .map(([name, value]) => [rfc3986(name), rfc3986(value)] as const)
    .sort(([an, av], [bn, bv]) => byCodeUnit(an, bn) || byCodeUnit(av, bv))
    .map(([name, value]) => `${name}=${value}`)
    .join('&');

/**
 * The signed string: lower(method) LF lower(path) LF timestamp [LF bodySha256] [LF canonicalQuery(query)] (the
 * strict form has both), `path` already decoded by `signedPath`.
 */
export const canonicalString = (input: Omit<SignInput, 'apiKey' | 'secretKey'>): string => {
  if (input.query !== undefined && !input.bodySha256)
    throw new Error('The strict form signs the body hash too');
  return [input.method.toLowerCase(), input.path.toLowerCase(), String(input.timestamp)]
    .concat(input.bodySha256 ? [input.bodySha256.toLowerCase()] : [])
    .concat(input.query !== undefined ? [canonicalQuery(input.query)] : [])
    .join('\n');
};

/** The headers of an HMAC-signed request: `authorization`, `x-auth-provider` and, when bound, `x-content-sha256`. */
export const signRequest = async (input: SignInput): Promise<Record<string, string>> => {
  const key = await crypto.subtle.importKey(
    'raw',
    encoder.encode(input.secretKey),
    { name: 'HMAC', hash: 'SHA-256' },
    false,
    ['sign'],
  );
  const signature = hex(await crypto.subtle.sign('HMAC', key, encoder.encode(canonicalString(input))));
  return {
    authorization: `HMAC-SHA256 apiKey=${input.apiKey} signature=${signature} timestamp=${input.timestamp}`,
    'x-auth-provider': 'hmac',
    ...(input.bodySha256 ? { 'x-content-sha256': input.bodySha256 } : {}),
  };
};
