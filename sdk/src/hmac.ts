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
  /** Request path relative to the API's base URL, without the query string. */
  path: string;
  /** Unix milliseconds; the server accepts 5 minutes of skew either way. */
  timestamp: number;
  /** When given, the signature covers the body: send it as `x-content-sha256`. */
  bodySha256?: string;
}

/** The signed string: lower(method) LF lower(path) LF timestamp [LF bodySha256]. */
export const canonicalString = (input: Omit<SignInput, 'apiKey' | 'secretKey'>): string =>
  [input.method.toLowerCase(), input.path.toLowerCase(), String(input.timestamp)]
    .concat(input.bodySha256 ? [input.bodySha256.toLowerCase()] : [])
    .join('\n');

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
