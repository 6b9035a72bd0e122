import { lookup as dnsLookup } from 'node:dns/promises';
import * as http from 'node:http';
import * as https from 'node:https';
import { isIP, type LookupFunction } from 'node:net';
import ipaddr from 'ipaddr.js';
import { callTimeoutMs } from '../core/deadline.js';

// SSRF-safe requests to user-supplied URLs: GET of game pages (the ownership check), POST of webhook deliveries.
//
// Why hand-written: the global `fetch` (undici) and the popular wrappers validate a URL but then resolve
// the hostname again when connecting, so a DNS answer that changes between check and connect (rebinding)
// reaches internal addresses; the maintained "SSRF agents" check at connect time but not the scheme, port
// and userinfo of each redirect hop, and none combine that with a total deadline and a streamed byte cap.
// Doing it on node:http is small: resolve once per hop, check EVERY address with ipaddr.js (which owns the
// range classification), then connect to that very address through a pinned `lookup`, keeping the
// original hostname for the Host header and TLS SNI/certificate checks. Redirects are followed by hand
// and each hop is validated from scratch.

export interface SafeFetchOptions {
  /** Body bytes kept; the rest is not read. Default 1 MiB. */
  maxBytes?: number;
  /** Total deadline covering DNS, connect, headers and body of every hop. Default 5000. */
  timeoutMs?: number;
  /** Default 3. */
  maxRedirects?: number;
  /**
   * Follow a redirect only to the origin (scheme, host, port) of the URL asked for; one to another origin is
   * refused (CrossOriginRedirectError). For answers that must come from that origin (the ownership proof).
   */
  sameOriginRedirects?: boolean;
  /** Permit 127.0.0.0/8 and ::1 on any port. Local development only, set from config. Default false. */
  allowLoopback?: boolean;
  accept?: string;
  /** Default GET. A POST is never replayed on a redirect hop: set maxRedirects 0 for it. */
  method?: 'GET' | 'POST';
  /** The request body (POST). */
  body?: Buffer;
  /** Extra request headers (content-type, signatures); host, connection and encoding stay ours. */
  headers?: Record<string, string>;
  userAgent?: string;
  /** Injectable for tests; default `dns.promises.lookup(hostname, { all: true })`. */
  lookup?: (hostname: string) => Promise<Array<{ address: string; family: 4 | 6 }>>;
}

export interface SafeFetchResult {
  status: number;
  headers: Record<string, string>;
  body: Buffer;
  finalUrl: string;
  /** True when the body was cut at maxBytes. */
  truncated: boolean;
}

/** A URL refused by policy (scheme, port, credentials, address range, redirects), as opposed to a network failure. */
export class UnsafeUrlError extends Error {
  override readonly name = 'UnsafeUrlError';

  constructor(readonly reason: string) {
    super(`Refused to fetch URL: ${reason}`);
  }
}

/** A redirect to another origin, refused under `sameOriginRedirects`. */
export class CrossOriginRedirectError extends UnsafeUrlError {
  constructor(readonly location: string) {
    super(`redirect to another origin (${new URL(location).origin})`);
  }
}

interface ResolvedAddress {
  address: string;
  family: 4 | 6;
}

type Settings = Required<Omit<SafeFetchOptions, 'accept' | 'body' | 'headers'>> & {
  accept: string;
  body?: Buffer;
  headers: Record<string, string>;
};

const REDIRECT_STATUSES = new Set([301, 302, 303, 307, 308]);
const ALLOWED_PORTS = new Set(['', '80', '443']);
const GLOBAL_UNICAST_V6 = ipaddr.IPv6.parseCIDR('2000::/3');

const defaultLookup = async (hostname: string): Promise<ResolvedAddress[]> => {
  const answers = await dnsLookup(hostname, { all: true, verbatim: true });
  return answers.map(({ address, family }) => ({ address, family: family === 6 ? 6 : 4 }));
};

/**
 * The ipaddr.js range of an address ('unicast', 'private', 'loopback', …), looking through IPv4-mapped
 * IPv6 to the embedded IPv4. IPv6 outside 2000::/3 (IPv4-compatible ::a.b.c.d, NAT64, …) is 'reserved'.
 */
const rangeOf = (address: string): string => {
  const literal = address.startsWith('[') && address.endsWith(']') ? address.slice(1, -1) : address;
  if (isIP(literal) === 0 || !ipaddr.isValid(literal)) return 'invalid';
  const parsed = ipaddr.parse(literal);
  if (parsed.kind() === 'ipv4') return parsed.range();
  const v6 = parsed as ipaddr.IPv6;
  if (v6.isIPv4MappedAddress()) return v6.toIPv4Address().range();
  const range = v6.range();
  return range === 'unicast' && !v6.match(GLOBAL_UNICAST_V6) ? 'reserved' : range;
};

/** True when the address is public unicast, the only range a user-supplied URL may reach. */
export const isPublicAddress = (address: string): boolean => rangeOf(address) === 'unicast';

/** Parse and check the parts of a URL that need no DNS: scheme, credentials, host, port. */
const checkUrl = (raw: string, settings: Settings): URL => {
  if (!URL.canParse(raw)) throw new UnsafeUrlError('invalid URL');
  const url = new URL(raw);
  if (url.protocol !== 'http:' && url.protocol !== 'https:') {
    throw new UnsafeUrlError(`scheme ${url.protocol}`);
  }
  if (url.username !== '' || url.password !== '') throw new UnsafeUrlError('credentials in URL');
  if (url.hostname === '') throw new UnsafeUrlError('missing host');
  // With allowLoopback a local port is fine, but only once every address is known to be loopback.
  if (!ALLOWED_PORTS.has(url.port) && !settings.allowLoopback) {
    throw new UnsafeUrlError('non-default port');
  }
  return url;
};

const bareHost = (url: URL): string =>
  url.hostname.startsWith('[') ? url.hostname.slice(1, -1) : url.hostname;

/** Resolve the host once and check every address; the first one is the address we connect to. */
const resolveChecked = async (
  url: URL,
  settings: Settings,
  signal: AbortSignal,
): Promise<ResolvedAddress> => {
  const host = bareHost(url);
  const family = isIP(host);
  const addresses: ResolvedAddress[] =
    family === 0
      ? await abortable(settings.lookup(host), signal)
      : [{ address: host, family: family === 6 ? 6 : 4 }];
  const [first] = addresses;
  if (!first) throw new Error(`No addresses found for ${host}`);

  let allLoopback = true;
  for (const { address } of addresses) {
    const range = rangeOf(address);
    const loopbackAllowed = settings.allowLoopback && range === 'loopback';
    if (range !== 'unicast' && !loopbackAllowed) throw new UnsafeUrlError(`${range} address ${address}`);
    allLoopback &&= loopbackAllowed;
  }
  if (!ALLOWED_PORTS.has(url.port) && !allLoopback) throw new UnsafeUrlError('non-default port');
  return first;
};

/** A `lookup` for node:net that answers with the already-validated address and never asks DNS again. */
const pinnedLookup =
  (pinned: ResolvedAddress): LookupFunction =>
  (_hostname, options, callback) => {
    if (options.all) callback(null, [{ address: pinned.address, family: pinned.family }]);
    else callback(null, pinned.address, pinned.family);
  };

const send = (
  url: URL,
  pinned: ResolvedAddress,
  settings: Settings,
  signal: AbortSignal,
): Promise<http.IncomingMessage> =>
  new Promise((resolve, reject) => {
    const host = bareHost(url);
    const isHttps = url.protocol === 'https:';
    const options: https.RequestOptions = {
      protocol: url.protocol,
      hostname: host,
      port: url.port === '' ? (isHttps ? 443 : 80) : Number(url.port),
      method: settings.method,
      path: `${url.pathname}${url.search}`,
      // Fresh headers on every hop: no cookies, no Authorization, nothing carried over from the caller.
      headers: {
        ...settings.headers,
        host: url.host,
        accept: settings.accept,
        'accept-encoding': 'identity',
        'user-agent': settings.userAgent,
        connection: 'close',
        ...(settings.body ? { 'content-length': String(settings.body.length) } : {}),
      },
      agent: false,
      lookup: pinnedLookup(pinned),
      signal,
      // SNI must name the host (and must not be an IP literal); certificates are checked against it too.
      ...(isHttps && isIP(host) === 0 ? { servername: host } : {}),
    };
    const request = (isHttps ? https : http).request(options, resolve);
    request.on('error', reject);
    request.end(settings.body);
  });

/** Read at most maxBytes from the stream; stop reading (and drop the connection) once the cap is hit. */
const readBody = async (
  response: http.IncomingMessage,
  maxBytes: number,
): Promise<{ body: Buffer; truncated: boolean }> => {
  const chunks: Buffer[] = [];
  let size = 0;
  let truncated = false;
  for await (const chunk of response as AsyncIterable<Buffer>) {
    const room = maxBytes - size;
    if (chunk.length > room) {
      chunks.push(chunk.subarray(0, room));
      size += room;
      truncated = true;
      break;
    }
    chunks.push(chunk);
    size += chunk.length;
  }
  if (truncated) response.destroy();
  return { body: Buffer.concat(chunks, size), truncated };
};

const flattenHeaders = (headers: http.IncomingHttpHeaders): Record<string, string> => {
  const flat: Record<string, string> = {};
  for (const [name, value] of Object.entries(headers)) {
    if (value !== undefined) flat[name] = Array.isArray(value) ? value.join(', ') : value;
  }
  return flat;
};

const abortable = async <T>(promise: Promise<T>, signal: AbortSignal): Promise<T> => {
  signal.throwIfAborted();
  let onAbort = (): void => undefined;
  const aborted = new Promise<never>((_resolve, reject) => {
    onAbort = () => reject(signal.reason);
    signal.addEventListener('abort', onAbort, { once: true });
  });
  try {
    return await Promise.race([promise, aborted]);
  } finally {
    signal.removeEventListener('abort', onAbort);
  }
};

const fetchHops = async (url: string, settings: Settings, signal: AbortSignal): Promise<SafeFetchResult> => {
  let current = url;
  for (let redirects = 0; ; redirects++) {
    const target = checkUrl(current, settings);
    const pinned = await resolveChecked(target, settings, signal);
    const response = await send(target, pinned, settings, signal);
    const status = response.statusCode ?? 0;
    const location = response.headers.location;
    if (!REDIRECT_STATUSES.has(status) || location === undefined) {
      const { body, truncated } = await readBody(response, settings.maxBytes);
      return { status, headers: flattenHeaders(response.headers), body, finalUrl: target.href, truncated };
    }
    response.destroy();
    if (redirects >= settings.maxRedirects) {
      throw new UnsafeUrlError(`too many redirects (max ${settings.maxRedirects})`);
    }
    if (!URL.canParse(location, target.href)) throw new UnsafeUrlError('invalid redirect location');
    const next = new URL(location, target);
    if (settings.sameOriginRedirects && next.origin !== new URL(url).origin)
      throw new CrossOriginRedirectError(next.href);
    current = next.href;
  }
};

/** The host a URL names, for messages ("the upstream" when it doesn't parse). */
const hostOf = (url: string): string => (URL.canParse(url) ? new URL(url).host : 'the upstream');

/** GET a user-supplied URL without letting it reach internal addresses (see the header comment). */
const settingsOf = (options: SafeFetchOptions): Settings => ({
  maxBytes: options.maxBytes ?? 1024 * 1024,
  timeoutMs: options.timeoutMs ?? 5000,
  maxRedirects: options.maxRedirects ?? 3,
  sameOriginRedirects: options.sameOriginRedirects ?? false,
  allowLoopback: options.allowLoopback ?? false,
  accept: options.accept ?? '*/*',
  lookup: options.lookup ?? defaultLookup,
  method: options.method ?? 'GET',
  ...(options.body ? { body: options.body } : {}),
  headers: options.headers ?? {},
  userAgent: options.userAgent ?? 'ArcadiaVerifier/1.0',
});

export const safeFetch = async (url: string, options: SafeFetchOptions = {}): Promise<SafeFetchResult> => {
  const own = settingsOf(options);
  // No longer than the invocation has left (a 503 with Retry-After at once when not even a short call fits).
  const settings = { ...own, timeoutMs: callTimeoutMs(own.timeoutMs, hostOf(url)) };
  const controller = new AbortController();
  // A TimeoutError, as AbortSignal.timeout gives: the caller's error mapping answers 503, not 500.
  const timer = setTimeout(
    () => controller.abort(new DOMException('The upstream did not answer in time', 'TimeoutError')),
    settings.timeoutMs,
  );
  try {
    return await fetchHops(url, settings, controller.signal);
  } catch (error) {
    if (controller.signal.aborted && !(error instanceof UnsafeUrlError)) {
      throw new Error(`Fetching ${url} timed out after ${settings.timeoutMs} ms`, { cause: error });
    }
    throw error;
  } finally {
    clearTimeout(timer);
  }
};

/**
 * Refuse, when it is given, a URL that safeFetch would refuse to fetch: its scheme, credentials, port, and every
 * address its host resolves to now (UnsafeUrlError). A host that does not resolve (yet) or answers slowly passes:
 * every fetch checks again.
 */
export const checkFetchableUrl = async (url: string, options: SafeFetchOptions = {}): Promise<void> => {
  const settings = settingsOf({ timeoutMs: 2000, ...options });
  const target = checkUrl(url, settings);
  const controller = new AbortController();
  const timer = setTimeout(() => controller.abort(), settings.timeoutMs);
  try {
    await resolveChecked(target, settings, controller.signal);
  } catch (error) {
    if (error instanceof UnsafeUrlError) throw error;
  } finally {
    clearTimeout(timer);
  }
};

/**
 * A fetcher of HTML pages at untrusted URLs (the ownership claim), loopback only where configured. Redirects stay on
 * the page's origin: what the page proves is control of that origin, not of wherever it sends the fetch.
 */
export const htmlPageFetcher =
  (allowLoopback: boolean) =>
  (url: string): Promise<SafeFetchResult> =>
    safeFetch(url, { allowLoopback, sameOriginRedirects: true, accept: 'text/html,application/xhtml+xml' });
