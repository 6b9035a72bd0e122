// lib/adapters/s3.ts: round trips through the local stack's S3, read back with the SDK's own S3 client; its
// SigV4 signature checked by an independent implementation (aws4), presigned URLs by the specification's
// arithmetic; and retries against a scripted S3 stand-in
// (throttling, 5xx, a dropped connection, a client error that must not be retried).
import { createHash, createHmac } from 'node:crypto';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { GetObjectCommand, HeadObjectCommand, S3Client } from '@aws-sdk/client-s3';
import aws4 from 'aws4';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { S3Error, S3Objects, s3, s3Request } from '../../lib/adapters/s3.js';

const bucket = () => String(process.env.SNAPSHOTS_BUCKET);
const sdk = new S3Client({ forcePathStyle: process.env.S3_FORCE_PATH_STYLE === 'true' });

describe('S3 adapter against the local stack', () => {
  it('stores an object with its headers and reads it back whole and by range', async () => {
    const key = `tests/s3-adapter/${crypto.randomUUID()}.bin`;
    const body = new Uint8Array(4096).map((_, i) => (i * 7) & 0xff);
    await s3().putObject({
      Bucket: bucket(),
      Key: key,
      Body: body,
      ContentType: 'application/octet-stream',
      CacheControl: 'public, max-age=60',
    });

    expect(await s3().getObject({ Bucket: bucket(), Key: key })).toEqual(body);
    expect(await s3().getObject({ Bucket: bucket(), Key: key, Range: { start: 100, end: 199 } })).toEqual(
      body.slice(100, 200),
    );
    const head = await sdk.send(new HeadObjectCommand({ Bucket: bucket(), Key: key }));
    expect(head.ContentType).toBe('application/octet-stream');
    expect(head.CacheControl).toBe('public, max-age=60');
    expect(head.ContentLength).toBe(4096);
  });

  it('escapes keys the way S3 does: the SDK finds the object under the same key', async () => {
    const key = `tests/s3-adapter/${crypto.randomUUID()}/a b+c!'()*~é.json`;
    await s3().putObject({ Bucket: bucket(), Key: key, Body: new TextEncoder().encode('{"ok":true}') });
    const got = await sdk.send(new GetObjectCommand({ Bucket: bucket(), Key: key }));
    expect(await got.Body?.transformToString()).toBe('{"ok":true}');
  });

  it('heads an object without its bytes and deletes it; a missing one heads as undefined, deletes quietly', async () => {
    const key = `tests/s3-adapter/${crypto.randomUUID()}.png`;
    await s3().putObject({
      Bucket: bucket(),
      Key: key,
      Body: new Uint8Array(4096),
      ContentType: 'image/png',
    });
    expect(await s3().headObject({ Bucket: bucket(), Key: key })).toEqual({
      contentLength: 4096,
      contentType: 'image/png',
    });
    await s3().deleteObject({ Bucket: bucket(), Key: key });
    expect(await s3().headObject({ Bucket: bucket(), Key: key })).toBeUndefined();
    await s3().deleteObject({ Bucket: bucket(), Key: key });
  });

  it('presigns a PUT the S3 stand-in accepts, with the signed Content-Type kept', async () => {
    const key = `tests/s3-adapter/${crypto.randomUUID()} (presigned).png`;
    const body = new Uint8Array(1000).map((_, i) => i & 0xff);
    const presigned = await s3().presignPutObject(
      { Bucket: bucket(), Key: key, ContentType: 'image/png', ContentLength: body.length },
      60,
    );
    expect(presigned.headers).toEqual({ 'content-type': 'image/png', 'content-length': '1000' });
    const put = await fetch(presigned.url, {
      method: 'PUT',
      headers: { 'content-type': 'image/png' },
      body,
    });
    expect(put.status).toBe(200);
    expect(await s3().getObject({ Bucket: bucket(), Key: key })).toEqual(body);
    expect((await s3().headObject({ Bucket: bucket(), Key: key }))?.contentType).toBe('image/png');
  });

  it('answers undefined for a missing object', async () => {
    expect(await s3().getObject({ Bucket: bucket(), Key: `tests/s3-adapter/missing-${Date.now()}` })).toBe(
      undefined,
    );
  });
});

describe('S3 request addressing', () => {
  const env = { AWS_REGION: 'eu-west-1', S3_FORCE_PATH_STYLE: 'false' as const };

  it('is virtual-hosted on AWS, with the key escaped once', () => {
    const request = s3Request(env, 'GetObject', { Bucket: 'arcadia-images', Key: 'games/a b/x.png' });
    expect(request.hostname).toBe('arcadia-images.s3.eu-west-1.amazonaws.com');
    expect(request.headers.host).toBe('arcadia-images.s3.eu-west-1.amazonaws.com');
    expect(request.path).toBe('/games/a%20b/x.png');
    expect(request.method).toBe('GET');
  });

  it('is path-style on a custom endpoint when forced, and for bucket names with dots', () => {
    const forced = s3Request(
      { ...env, AWS_ENDPOINT_URL_S3: 'http://127.0.0.1:4566', S3_FORCE_PATH_STYLE: 'true' },
      'PutObject',
      { Bucket: 'b', Key: 'k', Body: new Uint8Array(3), ContentType: 'image/png' },
    );
    expect([forced.protocol, forced.hostname, forced.port, forced.path]).toEqual([
      'http:',
      '127.0.0.1',
      4566,
      '/b/k',
    ]);
    expect(forced.headers).toMatchObject({
      host: '127.0.0.1:4566',
      'content-length': '3',
      'content-type': 'image/png',
    });
    const dotted = s3Request(env, 'GetObject', {
      Bucket: 'my.bucket',
      Key: 'k',
      Range: { start: 0, end: 9 },
    });
    expect([dotted.hostname, dotted.path, dotted.headers.range]).toEqual([
      's3.eu-west-1.amazonaws.com',
      '/my.bucket/k',
      'bytes=0-9',
    ]);
  });
});

const hmac = (key: string | Buffer, text: string) => createHmac('sha256', key).update(text).digest();
const rfc3986 = (text: string) =>
  encodeURIComponent(text).replace(/[!'()*]/g, (c) => `%${c.charCodeAt(0).toString(16).toUpperCase()}`);

/**
 * The signature S3 recomputes for a presigned URL (SigV4 query authentication), written from AWS's specification:
 * canonical request over the sorted query without the signature, the signed headers as the client sends them,
 * UNSIGNED-PAYLOAD; then the scoped signing key.
 */
const expectedSignature = (url: URL, method: string, headers: Record<string, string>, secret: string) => {
  const query = [...url.searchParams]
    .filter(([name]) => name !== 'X-Amz-Signature')
    .map(([name, value]) => `${rfc3986(name)}=${rfc3986(value)}`)
    .sort()
    .join('&');
  const signed = (url.searchParams.get('X-Amz-SignedHeaders') ?? '').split(';');
  const canonicalHeaders = signed
    .map((name) => `${name}:${name === 'host' ? url.host : headers[name]}\n`)
    .join('');
  const canonical = [
    method,
    url.pathname,
    query,
    canonicalHeaders,
    signed.join(';'),
    'UNSIGNED-PAYLOAD',
  ].join('\n');
  const [, date = '', region = '', service = ''] = (url.searchParams.get('X-Amz-Credential') ?? '').split(
    '/',
  );
  const stringToSign = [
    'AWS4-HMAC-SHA256',
    url.searchParams.get('X-Amz-Date'),
    `${date}/${region}/${service}/aws4_request`,
    createHash('sha256').update(canonical).digest('hex'),
  ].join('\n');
  let key = hmac(`AWS4${secret}`, date);
  for (const part of [region, service, 'aws4_request']) key = hmac(key, part);
  return hmac(key, stringToSign).toString('hex');
};

describe('S3 presigned PUT URLs', () => {
  it('are virtual-hosted on AWS and carry a signature S3 would recompute, binding type and length', async () => {
    const adapter = new S3Objects({ AWS_REGION: 'eu-west-1', S3_FORCE_PATH_STYLE: 'false' });
    const now = new Date('2026-01-02T03:04:05Z');
    const presigned = await adapter.presignPutObject(
      { Bucket: 'arcadia-images', Key: 'uploads/a b/c', ContentType: 'image/png', ContentLength: 5_242_880 },
      900,
      now,
    );
    const url = new URL(presigned.url);
    expect([url.protocol, url.host, url.pathname]).toEqual([
      'https:',
      'arcadia-images.s3.eu-west-1.amazonaws.com',
      '/uploads/a%20b/c',
    ]);
    expect(Object.fromEntries(url.searchParams)).toMatchObject({
      'X-Amz-Algorithm': 'AWS4-HMAC-SHA256',
      'X-Amz-Credential': `${process.env.AWS_ACCESS_KEY_ID}/20260102/eu-west-1/s3/aws4_request`,
      'X-Amz-Date': '20260102T030405Z',
      'X-Amz-Expires': '900',
      'X-Amz-SignedHeaders': 'content-length;content-type;host',
    });
    expect(presigned.expiresAt.toISOString()).toBe('2026-01-02T03:19:05.000Z');
    const secret = String(process.env.AWS_SECRET_ACCESS_KEY);
    const signature = url.searchParams.get('X-Amz-Signature');
    expect(signature).toBe(expectedSignature(url, 'PUT', presigned.headers, secret));
    // Another length or type than the one signed no longer matches.
    for (const other of [
      { ...presigned.headers, 'content-length': '5242881' },
      { ...presigned.headers, 'content-type': 'text/html' },
    ]) {
      expect(signature).not.toBe(expectedSignature(url, 'PUT', other, secret));
    }
  });
});

/** A scripted S3: each request gets the next answer of `script` (the last one repeats). */
interface Seen {
  method: string;
  url: string;
  headers: IncomingMessage['headers'];
  body: Buffer;
}
type Answer = (res: ServerResponse, req: IncomingMessage) => void;

describe('S3 adapter faults and signing (scripted stand-in)', () => {
  let server: Server;
  let seen: Seen[] = [];
  let script: Answer[] = [];
  let adapter: S3Objects;

  const xmlError =
    (status: number, code: string): Answer =>
    (res) => {
      res.writeHead(status, { 'content-type': 'application/xml' });
      res.end(`<?xml version="1.0"?><Error><Code>${code}</Code><Message>scripted</Message></Error>`);
    };
  const ok =
    (text: string): Answer =>
    (res) => {
      res.writeHead(200, { 'content-type': 'application/octet-stream' });
      res.end(text);
    };
  const drop: Answer = (_res, req) => req.socket.destroy();

  beforeAll(async () => {
    server = createServer((req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (c: Buffer) => chunks.push(c));
      req.on('end', () => {
        seen.push({
          method: String(req.method),
          url: String(req.url),
          headers: req.headers,
          body: Buffer.concat(chunks),
        });
        const answer = script[Math.min(seen.length - 1, script.length - 1)] as Answer;
        answer(res, req);
      });
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const { port } = server.address() as AddressInfo;
    adapter = new S3Objects({
      AWS_REGION: 'us-east-1',
      AWS_ENDPOINT_URL_S3: `http://127.0.0.1:${port}`,
      S3_FORCE_PATH_STYLE: 'true',
    });
  });
  afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));

  const run = (answers: Answer[]) => {
    seen = [];
    script = answers;
  };

  it('signs with SigV4 as an independent implementation (aws4) does, payload hash included', async () => {
    run([ok('')]);
    const body = new TextEncoder().encode('{"root":"abc"}');
    await adapter.putObject({
      Bucket: 'snap',
      Key: 'g/1/manifest (1).json',
      Body: body,
      ContentType: 'application/json',
    });
    const [request] = seen;
    const authorization = String(request?.headers.authorization);
    const signedHeaders = /SignedHeaders=([^,]+)/.exec(authorization)?.[1]?.split(';') ?? [];
    expect(signedHeaders).toEqual(
      expect.arrayContaining(['host', 'x-amz-content-sha256', 'x-amz-date', 'content-type']),
    );
    expect(request?.headers['x-amz-content-sha256']).toBe(
      Buffer.from(await crypto.subtle.digest('SHA-256', body)).toString('hex'),
    );
    expect(request?.body).toEqual(Buffer.from(body));

    const headers = Object.fromEntries(signedHeaders.map((name) => [name, String(request?.headers[name])]));
    const reference = aws4.sign(
      {
        service: 's3',
        region: 'us-east-1',
        method: 'PUT',
        host: headers.host,
        path: request?.url,
        headers,
        body: Buffer.from(body),
      },
      {
        accessKeyId: String(process.env.AWS_ACCESS_KEY_ID),
        secretAccessKey: String(process.env.AWS_SECRET_ACCESS_KEY),
        ...(process.env.AWS_SESSION_TOKEN ? { sessionToken: process.env.AWS_SESSION_TOKEN } : {}),
      },
    );
    const signature = (value: unknown) => /Signature=([0-9a-f]{64})/.exec(String(value))?.[1];
    expect(signature(authorization)).toBeDefined();
    expect(signature(authorization)).toBe(signature(reference.headers?.Authorization));
  });

  it('retries throttling and a dropped connection, then returns the object', async () => {
    run([xmlError(503, 'SlowDown'), drop, ok('payload')]);
    const got = await adapter.getObject({ Bucket: 'snap', Key: 'k', Range: { start: 0, end: 6 } });
    expect(Buffer.from(got ?? []).toString()).toBe('payload');
    expect(seen.map((r) => [r.method, r.url, r.headers.range])).toEqual([
      ['GET', '/snap/k', 'bytes=0-6'],
      ['GET', '/snap/k', 'bytes=0-6'],
      ['GET', '/snap/k', 'bytes=0-6'],
    ]);
  });

  it('gives up on a lasting 5xx after 4 attempts with an S3Error carrying the code', async () => {
    run([xmlError(500, 'InternalError')]);
    const error = await adapter
      .putObject({ Bucket: 'snap', Key: 'k', Body: new Uint8Array(1) })
      .catch((e) => e);
    expect(error).toBeInstanceOf(S3Error);
    expect([error.status, error.code, error.operation]).toEqual([500, 'InternalError', 'PutObject']);
    expect(seen).toHaveLength(4);
  });

  it('does not retry a client error, and a missing object is undefined, not an error', async () => {
    run([xmlError(403, 'AccessDenied')]);
    const error = await adapter.getObject({ Bucket: 'snap', Key: 'k' }).catch((e) => e);
    expect([error instanceof S3Error, error.status, error.code]).toEqual([true, 403, 'AccessDenied']);
    expect(seen).toHaveLength(1);

    run([xmlError(404, 'NoSuchKey')]);
    expect(await adapter.getObject({ Bucket: 'snap', Key: 'k' })).toBeUndefined();
    expect(seen).toHaveLength(1);
  });

  it('heads with HEAD (a 403 for a missing key without s3:ListBucket stays an error) and deletes with DELETE', async () => {
    run([xmlError(403, 'AccessDenied')]);
    const error = await adapter.headObject({ Bucket: 'snap', Key: 'k' }).catch((e) => e);
    expect([error instanceof S3Error, error.status, error.operation]).toEqual([true, 403, 'HeadObject']);
    run([xmlError(404, 'NoSuchKey')]);
    expect(await adapter.headObject({ Bucket: 'snap', Key: 'k' })).toBeUndefined();
    run([
      (res) => {
        res.writeHead(204);
        res.end();
      },
    ]);
    await adapter.deleteObject({ Bucket: 'snap', Key: 'a/b' });
    expect(seen.map((r) => [r.method, r.url])).toEqual([['DELETE', '/snap/a/b']]);
  });
});
