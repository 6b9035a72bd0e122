// S3 adapter: the object operations the product needs, PutObject, (ranged) GetObject, HeadObject and DeleteObject,
// and presigned PutObject URLs, sent as S3's REST requests with the AWS SDK's own building blocks: the SigV4 signer (@smithy/signature-v4), the Node HTTP
// handler (@smithy/node-http-handler) and the standard retry strategy (@smithy/core/retry). The DynamoDB
// client that every function bundles already carries all three, so S3 costs a function ~4 KB of code.
//
// Why not @aws-sdk/client-s3: its schema module covers all ~100 S3 operations and does not tree-shake, and the
// client brings XML serde, checksums and multi-region signing. It added 166 KB to a bundle and ~18 ms of CPU to
// every cold start of the functions that read snapshots or store images, for operations whose wire format is a
// plain HTTP PUT, GET, HEAD or DELETE (bench/cold-start.ts; docs/decisions.md). Behaviour kept from the SDK: SigV4 with
// the payload hash (x-amz-content-sha256), virtual-hosted addressing on AWS (path style on a custom endpoint
// with S3_FORCE_PATH_STYLE, or for bucket names with dots), AWS_ENDPOINT_URL_S3 / AWS_ENDPOINT_URL, credentials
// from the environment (the Lambda role's; see lib/runtime/aws-credentials.ts), and up to MAX_ATTEMPTS attempts
// with the SDK's backoff and classification: throttling, 500/502/503/504 and dropped connections.
import { fromEnv } from '@aws-sdk/credential-provider-env';
import { Sha256 } from '@smithy/core/checksum';
import { StandardRetryStrategy } from '@smithy/core/retry';
import { HttpRequest } from '@smithy/core/transport';
import { NodeHttpHandler, streamCollector } from '@smithy/node-http-handler';
import { SignatureV4 } from '@smithy/signature-v4';
import { type Settings, settings } from '../core/config.js';

const MAX_ATTEMPTS = 4;

export type S3Env = Pick<
  Settings,
  'AWS_REGION' | 'AWS_ENDPOINT_URL_S3' | 'AWS_ENDPOINT_URL' | 'S3_FORCE_PATH_STYLE'
>;

export type S3Operation = 'GetObject' | 'PutObject' | 'HeadObject' | 'DeleteObject';

const METHODS: Record<S3Operation, string> = {
  GetObject: 'GET',
  PutObject: 'PUT',
  HeadObject: 'HEAD',
  DeleteObject: 'DELETE',
};

export interface S3Input {
  Bucket: string;
  Key: string;
  /** PutObject: the object's bytes. */
  Body?: Uint8Array;
  ContentType?: string;
  CacheControl?: string;
  /** GetObject: an inclusive byte range. */
  Range?: { start: number; end: number };
}

/** A non-2xx answer of S3 (after retries), with S3's error code from the XML body when there was one. */
export class S3Error extends Error {
  override readonly name = 'S3Error';
  constructor(
    readonly operation: S3Operation,
    readonly status: number,
    readonly code: string | undefined,
  ) {
    super(`S3 ${operation} answered ${status}${code ? ` ${code}` : ''}`);
  }
}

// RFC 3986 unreserved characters stay; everything else (also !'()*, which encodeURIComponent keeps) is escaped,
// as SigV4's canonical URI and query require. Slashes separate the key's segments.
const escapeRfc3986 = (text: string) =>
  encodeURIComponent(text).replace(/[!'()*]/g, (c) => `%${c.charCodeAt(0).toString(16).toUpperCase()}`);
const encodeKey = (key: string) => key.split('/').map(escapeRfc3986).join('/');

/** Network errors worth another attempt (the SDK's transient set for Node). */
const TRANSIENT_CODES = new Set([
  'ECONNRESET',
  'ECONNREFUSED',
  'EPIPE',
  'ETIMEDOUT',
  'EAI_AGAIN',
  'TimeoutError',
]);
const THROTTLING_CODES = new Set(['SlowDown', 'Throttling', 'ThrottlingException', 'RequestLimitExceeded']);

type ErrorType = 'THROTTLING' | 'TRANSIENT';

/** The SDK's classification: throttling codes and 429, then 500/502/503/504 and timeouts; nothing else retries. */
const retryableStatus = (status: number, code: string | undefined): ErrorType | undefined => {
  if (status === 429 || (code && THROTTLING_CODES.has(code))) return 'THROTTLING';
  if ([500, 502, 503, 504].includes(status) || code === 'RequestTimeout') return 'TRANSIENT';
  return undefined;
};

const lowercaseKeys = (headers: Record<string, string>) =>
  Object.fromEntries(Object.entries(headers).map(([name, value]) => [name.toLowerCase(), value]));

const errorCode = (body: Uint8Array) =>
  /<Code>([^<]{1,100})<\/Code>/.exec(Buffer.from(body).toString('utf8'))?.[1];

/** The unsigned REST request of one operation. */
export const s3Request = (env: S3Env, operation: S3Operation, input: S3Input): HttpRequest => {
  const { AWS_REGION, AWS_ENDPOINT_URL_S3, AWS_ENDPOINT_URL, S3_FORCE_PATH_STYLE } = env;
  const endpoint = new URL(
    AWS_ENDPOINT_URL_S3 || AWS_ENDPOINT_URL || `https://s3.${AWS_REGION}.amazonaws.com`,
  );
  // Virtual-hosted style, as S3 prefers, except where the bucket cannot be a DNS label under TLS.
  const pathStyle = S3_FORCE_PATH_STYLE === 'true' || input.Bucket.includes('.');
  const hostname = pathStyle ? endpoint.hostname : `${input.Bucket}.${endpoint.hostname}`;
  const base = endpoint.pathname.replace(/\/$/, '');
  const path = `${base}${pathStyle ? `/${input.Bucket}` : ''}/${encodeKey(input.Key)}`;
  const headers: Record<string, string> = {
    host: endpoint.port ? `${hostname}:${endpoint.port}` : hostname,
  };
  if (operation === 'PutObject') {
    headers['content-length'] = String(input.Body?.byteLength ?? 0);
    if (input.ContentType) headers['content-type'] = input.ContentType;
    if (input.CacheControl) headers['cache-control'] = input.CacheControl;
  }
  if (input.Range) headers.range = `bytes=${input.Range.start}-${input.Range.end}`;
  return new HttpRequest({
    method: METHODS[operation],
    protocol: endpoint.protocol,
    hostname,
    ...(endpoint.port ? { port: Number(endpoint.port) } : {}),
    path,
    headers,
    ...(operation === 'PutObject' ? { body: input.Body ?? new Uint8Array() } : {}),
  });
};

/** A 2xx answer of S3: its headers (lowercase names) and body. */
export interface S3Answer {
  headers: Record<string, string>;
  body: Uint8Array;
}

/** What a client needs to upload one object with a presigned PUT. */
export interface PresignedPut {
  url: string;
  /** Headers the upload must carry exactly as given (they are part of the signature). */
  headers: Record<string, string>;
  expiresAt: Date;
}

/** S3 objects over signed REST requests. One instance per container (`s3()`); `send` is the one way out. */
export class S3Objects {
  private readonly signer: SignatureV4;
  private readonly http = new NodeHttpHandler({ connectionTimeout: 5_000, requestTimeout: 30_000 });
  private readonly retries = new StandardRetryStrategy(MAX_ATTEMPTS);

  constructor(private readonly env: S3Env = settings()) {
    this.signer = new SignatureV4({
      service: 's3',
      region: env.AWS_REGION,
      credentials: fromEnv(),
      sha256: Sha256,
      // The path is escaped once here (encodeKey); S3 signs it as sent.
      uriEscapePath: false,
      applyChecksum: true,
    });
  }

  /** Store an object (an S3 PUT replaces any object under the key). */
  async putObject(input: S3Input & { Body: Uint8Array }): Promise<void> {
    await this.send('PutObject', input);
  }

  /** An object's bytes, or of an inclusive byte range of it; undefined when there is no such object. */
  async getObject(input: S3Input): Promise<Uint8Array | undefined> {
    return (await this.unlessMissing(this.send('GetObject', input)))?.body;
  }

  /**
   * An object's size and content type without its bytes; undefined when there is no such object. (S3 answers 404
   * only to callers allowed s3:ListBucket on the bucket; to others a missing key is a 403, which stays an error.)
   */
  async headObject(input: S3Input): Promise<{ contentLength: number; contentType?: string } | undefined> {
    const answer = await this.unlessMissing(this.send('HeadObject', input));
    if (!answer) return undefined;
    const contentLength = Number(answer.headers['content-length']);
    if (!Number.isSafeInteger(contentLength) || contentLength < 0) {
      throw new Error(
        `S3 HeadObject answered without a valid Content-Length (${answer.headers['content-length']})`,
      );
    }
    const contentType = answer.headers['content-type'];
    return contentType ? { contentLength, contentType } : { contentLength };
  }

  /** Delete an object; deleting a missing key succeeds, as in S3. */
  async deleteObject(input: S3Input): Promise<void> {
    await this.send('DeleteObject', input);
  }

  /**
   * A presigned PutObject URL (SigV4 query authentication, as the SDK's presigner builds it: UNSIGNED-PAYLOAD,
   * valid `expiresInSeconds`). Content-Type and Content-Length are signed headers, so S3 refuses an upload of
   * another size or type; the signature costs no request.
   */
  async presignPutObject(
    input: { Bucket: string; Key: string; ContentType: string; ContentLength: number },
    expiresInSeconds: number,
    now: Date = new Date(),
  ): Promise<PresignedPut> {
    const request = s3Request(this.env, 'PutObject', { Bucket: input.Bucket, Key: input.Key });
    request.body = undefined;
    const headers = { 'content-type': input.ContentType, 'content-length': String(input.ContentLength) };
    Object.assign(request.headers, headers, { 'x-amz-content-sha256': 'UNSIGNED-PAYLOAD' });
    const signed = await this.signer.presign(request, { expiresIn: expiresInSeconds, signingDate: now });
    const query = Object.entries(signed.query ?? {})
      .flatMap(([name, value]) =>
        [value ?? []].flat().map((v) => `${escapeRfc3986(name)}=${escapeRfc3986(v)}`),
      )
      .join('&');
    const port = signed.port ? `:${signed.port}` : '';
    return {
      url: `${signed.protocol}//${signed.hostname}${port}${signed.path}?${query}`,
      headers,
      expiresAt: new Date(now.getTime() + expiresInSeconds * 1000),
    };
  }

  /** The answer, or undefined for S3's 404 (no such key). */
  private async unlessMissing(answer: Promise<S3Answer>): Promise<S3Answer | undefined> {
    try {
      return await answer;
    } catch (error) {
      if (error instanceof S3Error && error.status === 404) return undefined;
      throw error;
    }
  }

  /** One operation, retried with the SDK's standard strategy; the 2xx answer. */
  async send(operation: S3Operation, input: S3Input): Promise<S3Answer> {
    let token = await this.retries.acquireInitialRetryToken('s3');
    for (;;) {
      let errorType: ErrorType;
      let failure: Error;
      try {
        const request = await this.signer.sign(s3Request(this.env, operation, input));
        const { response } = await this.http.handle(request as HttpRequest);
        const body = await streamCollector(response.body);
        if (response.statusCode >= 200 && response.statusCode < 300) {
          this.retries.recordSuccess(token);
          return { headers: lowercaseKeys(response.headers), body };
        }
        const code = errorCode(body);
        failure = new S3Error(operation, response.statusCode, code);
        const retryable = retryableStatus(response.statusCode, code);
        if (!retryable) throw failure;
        errorType = retryable;
      } catch (error) {
        if (error instanceof S3Error) throw error;
        const code = (error as { code?: string; name?: string }).code ?? (error as Error).name;
        if (!TRANSIENT_CODES.has(code)) throw error;
        failure = error as Error;
        errorType = 'TRANSIENT';
      }
      try {
        token = await this.retries.refreshRetryTokenForRetry(token, { errorType });
      } catch {
        throw failure;
      }
    }
  }
}

let client: S3Objects | undefined;

/** The one S3 adapter of a container. */
export const s3 = (): S3Objects => {
  client ??= new S3Objects();
  return client;
};
