// Images larger than a request body can carry: POST /games/images/upload-url hands out a presigned PUT to the images
// bucket (the local S3 stand-in here), POST /games and POST /games/update/{gameId} claim the upload by imageKey.
// And the request-size limit of the inline forms: 413 PAYLOAD_TOO_LARGE naming the limit (lib/core/payload.ts).
import { randomUUID } from 'node:crypto';
import { beforeAll, describe, expect, it } from 'vitest';
import { handler as createGame } from '../../functions/games/create-game.js';
import { handler as uploadUrl } from '../../functions/games/create-game-image-upload-url.js';
import { handler as updateGame } from '../../functions/games/update-game.js';
import { MAX_BINARY_BODY_BYTES, MAX_TEXT_BODY_BYTES } from '../../lib/core/payload.js';
import type { GameView } from '../../lib/games/contracts.js';
import { MAX_IMAGE_BYTES } from '../../lib/games/images.js';
import { dataUri, gif, paddedPng, png } from '../fixtures/images/build.js';
import { gameBody, multipart, postGame, registerGame } from '../helpers/games.js';
import { invoke } from '../helpers/http.js';
import { createDeveloper, type Developer, hmacHeaders } from '../helpers/users.js';

const UPLOAD_PATH = '/games/images/upload-url';
const MiB = 1024 * 1024;

interface ErrorBody {
  error: { code: string; message: string; details: Array<{ path: string; message: string }> };
}
interface UploadTicket {
  imageKey: string;
  uploadUrl: string;
  method: 'PUT';
  headers: Record<string, string>;
  expiresAt: string;
  maxBytes: number;
}

let dev: Developer;
beforeAll(async () => {
  dev = await createDeveloper();
});

const requestUpload = (developer: Developer, body: unknown) =>
  invoke<{ data: UploadTicket } & Partial<ErrorBody>>(uploadUrl, {
    method: 'POST',
    path: UPLOAD_PATH,
    headers: hmacHeaders(developer, 'POST', UPLOAD_PATH),
    body,
  });

/** PUT `bytes` to a presigned URL as a browser would: the signed headers, Content-Length from the body itself. */
const put = async (ticket: UploadTicket, bytes: Buffer) => {
  const { 'content-length': _fromBody, ...headers } = ticket.headers;
  return fetch(ticket.uploadUrl, { method: ticket.method, headers, body: bytes });
};

/** Ask for an upload of `bytes`, PUT them, and return the key to claim them by. */
const upload = async (developer: Developer, bytes: Buffer, contentType = 'image/png') => {
  const res = await requestUpload(developer, { contentType, contentLength: bytes.length });
  expect(res.status).toBe(201);
  expect((await put(res.body.data, bytes)).status).toBe(200);
  return res.body.data.imageKey;
};

/** The upload object's URL on the S3 stand-in (fauxqs answers unsigned requests). */
const objectUrl = (key: string) => `${process.env.AWS_ENDPOINT_URL_S3}/${process.env.IMAGES_BUCKET}/${key}`;

const errorOf = (res: { body: unknown }) => (res.body as ErrorBody).error;

describe('POST /games/images/upload-url', () => {
  it('answers a presigned PUT under the caller’s uploads/ prefix, valid 15 minutes, signing type and length', async () => {
    const before = Date.now();
    const res = await requestUpload(dev, { contentType: 'image/webp', contentLength: 1234 });
    expect(res.status).toBe(201);
    const ticket = res.body.data;
    expect(ticket.imageKey).toMatch(new RegExp(`^uploads/${dev.arcId}/[0-9a-f-]{36}$`));
    expect(ticket).toMatchObject({
      method: 'PUT',
      headers: { 'content-type': 'image/webp', 'content-length': '1234' },
      maxBytes: MAX_IMAGE_BYTES,
    });
    const url = new URL(ticket.uploadUrl);
    expect(`${url.origin}${url.pathname}`).toBe(objectUrl(ticket.imageKey));
    expect(url.searchParams.get('X-Amz-Algorithm')).toBe('AWS4-HMAC-SHA256');
    expect(url.searchParams.get('X-Amz-Expires')).toBe('900');
    expect(url.searchParams.get('X-Amz-SignedHeaders')).toBe('content-length;content-type;host');
    expect(url.searchParams.get('X-Amz-Signature')).toMatch(/^[0-9a-f]{64}$/);
    const expiresAt = Date.parse(ticket.expiresAt);
    expect(expiresAt - before).toBeGreaterThanOrEqual(900_000 - 1_000);
    expect(expiresAt - Date.now()).toBeLessThanOrEqual(900_000);
  });

  it('accepts the content types the image rules accept, case-insensitively', async () => {
    for (const contentType of ['image/jpeg', 'image/png', 'image/gif', 'IMAGE/WEBP']) {
      const res = await requestUpload(dev, { contentType, contentLength: 10 });
      expect(res.status, contentType).toBe(201);
      expect(res.body.data.headers['content-type']).toBe(contentType.toLowerCase());
    }
  });

  it('refuses another content type with UNSUPPORTED_IMAGE_FORMAT', async () => {
    const res = await requestUpload(dev, { contentType: 'image/svg+xml', contentLength: 100 });
    expect(res.status).toBe(400);
    expect(errorOf(res)).toMatchObject({
      code: 'UNSUPPORTED_IMAGE_FORMAT',
      details: [{ path: 'contentType' }],
    });
  });

  it('refuses more than 5 MB with IMAGE_TOO_LARGE', async () => {
    const res = await requestUpload(dev, { contentType: 'image/png', contentLength: MAX_IMAGE_BYTES + 1 });
    expect(res.status).toBe(400);
    expect(errorOf(res)).toMatchObject({ code: 'IMAGE_TOO_LARGE', details: [{ path: 'contentLength' }] });
  });

  it.each([
    [{ contentLength: 10 }, 'contentType'],
    [{ contentType: '', contentLength: 10 }, 'contentType'],
    [{ contentType: 'image/png' }, 'contentLength'],
    [{ contentType: 'image/png', contentLength: 0 }, 'contentLength'],
    [{ contentType: 'image/png', contentLength: 1.5 }, 'contentLength'],
    [{ contentType: 'image/png', contentLength: '10' }, 'contentLength'],
  ])('refuses %j with VALIDATION_ERROR on %s', async (body, field) => {
    const res = await requestUpload(dev, body);
    expect(res.status).toBe(400);
    expect(errorOf(res).code).toBe('VALIDATION_ERROR');
    expect(errorOf(res).details.map((d) => d.path)).toContain(field);
  });

  it('requires a valid HMAC signature', async () => {
    const body = { contentType: 'image/png', contentLength: 10 };
    const anonymous = await invoke(uploadUrl, { method: 'POST', path: UPLOAD_PATH, body });
    expect([anonymous.status, errorOf(anonymous).code]).toEqual([401, 'UNAUTHORIZED']);
    const wrongPath = await invoke(uploadUrl, {
      method: 'POST',
      path: UPLOAD_PATH,
      headers: hmacHeaders(dev, 'POST', '/games'),
      body,
    });
    expect([wrongPath.status, errorOf(wrongPath).code]).toEqual([401, 'INVALID_SIGNATURE']);
  });
});

describe('imageKey: images uploaded beforehand', () => {
  const api = () => process.env.API_BASE_URL ?? '';
  /** A signed JSON request to serverless offline (the bundled functions, as deployed). */
  const call = (method: string, path: string, body?: unknown) =>
    fetch(`${api()}${path}`, {
      method,
      headers: {
        ...(method === 'GET' ? {} : hmacHeaders(dev, method, path)),
        ...(body === undefined ? {} : { 'content-type': 'application/json' }),
      },
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    });

  it('registers a 5 MB image end to end through serverless offline: presigned PUT, POST /games, GET, imageUrl', async () => {
    const image = paddedPng(5 * MiB);
    const ticketRes = await call('POST', UPLOAD_PATH, {
      contentType: 'image/png',
      contentLength: image.length,
    });
    expect(ticketRes.status).toBe(201);
    const ticket = ((await ticketRes.json()) as { data: UploadTicket }).data;
    expect((await put(ticket, image)).status).toBe(200);

    const created = await call(
      'POST',
      '/games',
      gameBody({ base64Image: undefined, imageKey: ticket.imageKey }),
    );
    expect(created.status).toBe(201);
    const { game } = ((await created.json()) as { data: { game: GameView } }).data;

    const read = await call('GET', `/games/id/${game.id}`);
    expect(read.status).toBe(200);
    const { imageUrl } = ((await read.json()) as { data: GameView }).data;
    expect(imageUrl).toMatch(
      new RegExp(`^${process.env.IMAGES_BASE_URL}/games/${game.id}/image-[0-9a-f]{16}\\.png$`),
    );
    const served = await fetch(imageUrl ?? '');
    expect(served.status).toBe(200);
    expect(served.headers.get('content-type')).toBe('image/png');
    expect(Buffer.from(await served.arrayBuffer()).equals(image)).toBe(true);
    // The claimed upload is gone; the game keeps its own copy.
    expect((await fetch(objectUrl(ticket.imageKey), { method: 'HEAD' })).status).toBe(404);
    // Four requests through serverless offline, 10 MB moved: room for its first, cold invocations on a busy machine.
  }, 60_000);

  it('takes a cover by coverImageKey, and both keys on POST /games/update/{gameId}', async () => {
    const coverKey = await upload(dev, png(3, 2));
    const created = await postGame(dev, gameBody({ coverImageKey: coverKey }));
    expect(created.status).toBe(201);
    expect(created.body.data.game.coverImageUrl).toMatch(/\/cover-[0-9a-f]{16}\.png$/);

    const gameId = created.body.data.game.id;
    const imageKey = await upload(dev, gif(), 'image/gif');
    const path = `/games/update/${gameId}`;
    const updated = await invoke<{ data: { game: GameView } }>(updateGame, {
      method: 'POST',
      path,
      pathParameters: { gameId },
      headers: hmacHeaders(dev, 'POST', path),
      body: { imageKey },
    });
    expect(updated.status).toBe(200);
    expect(updated.body.data.game.imageUrl).toMatch(new RegExp(`/games/${gameId}/image-[0-9a-f]{16}\\.gif$`));
    const served = await fetch(updated.body.data.game.imageUrl ?? '');
    expect(Buffer.from(await served.arrayBuffer()).equals(gif())).toBe(true);
  });

  it('prefers an image in the body over the key, and leaves that upload to expire', async () => {
    const imageKey = await upload(dev, gif(), 'image/gif');
    const res = await postGame(dev, gameBody({ imageKey }));
    expect(res.status).toBe(201);
    expect(res.body.data.game.imageUrl).toMatch(/\.png$/);
    expect((await fetch(objectUrl(imageKey), { method: 'HEAD' })).status).toBe(200);
  });

  it('decides the format by the uploaded bytes: HTML declared as image/png is UNSUPPORTED_IMAGE_FORMAT', async () => {
    const imageKey = await upload(dev, Buffer.from('<html><script>alert(1)</script></html>'), 'image/png');
    const res = await postGame(dev, gameBody({ base64Image: undefined, imageKey }));
    expect(res.status).toBe(400);
    expect(errorOf(res)).toMatchObject({ code: 'UNSUPPORTED_IMAGE_FORMAT', details: [{ path: 'imageKey' }] });
  });

  it('checks the uploaded size itself: more than 5 MB is IMAGE_TOO_LARGE', async () => {
    // S3 refuses a PUT whose length differs from the signed one; the stand-in does not check signatures, so this
    // upload gets through and shows the API's own check (HEAD before any read).
    const res = await requestUpload(dev, { contentType: 'image/png', contentLength: 100 });
    expect((await put(res.body.data, paddedPng(MAX_IMAGE_BYTES + 1))).status).toBe(200);
    const created = await postGame(
      dev,
      gameBody({ base64Image: undefined, imageKey: res.body.data.imageKey }),
    );
    expect(created.status).toBe(400);
    expect(errorOf(created)).toMatchObject({ code: 'IMAGE_TOO_LARGE', details: [{ path: 'imageKey' }] });
  });

  it('answers MISSING_IMAGE for a key with no upload behind it, or someone else’s upload', async () => {
    const never = await postGame(
      dev,
      gameBody({ base64Image: undefined, imageKey: `uploads/${dev.arcId}/${randomUUID()}` }),
    );
    expect(never.status).toBe(400);
    expect(errorOf(never)).toMatchObject({ code: 'MISSING_IMAGE', details: [{ path: 'imageKey' }] });

    const othersKey = await upload(await createDeveloper(), png());
    const others = await postGame(dev, gameBody({ base64Image: undefined, imageKey: othersKey }));
    expect(others.status).toBe(400);
    expect(errorOf(others).code).toBe('MISSING_IMAGE');
    expect((await fetch(objectUrl(othersKey), { method: 'HEAD' })).status).toBe(200);
  });

  it.each([
    'games/6f1d3c1e-2a4b-4c5d-8e9f-0a1b2c3d4e5f/image.png',
    'uploads/../games/x',
    `uploads/${'a'.repeat(36)}/${'b'.repeat(36)}`,
  ])('refuses %s as imageKey with VALIDATION_ERROR', async (imageKey) => {
    const res = await postGame(dev, gameBody({ base64Image: undefined, imageKey }));
    expect(res.status).toBe(400);
    expect(errorOf(res)).toMatchObject({ code: 'VALIDATION_ERROR', details: [{ path: 'imageKey' }] });
  });
});

describe('request size: what Lambda can receive (413 PAYLOAD_TOO_LARGE)', () => {
  const base = { name: 'Big image', description: 'd', gameUrl: 'https://game.example', platform: 'WEB' };
  const multipartGame = async (image: Buffer) => {
    const form = await multipart({
      ...base,
      image: { bytes: image, filename: 'big.png', type: 'image/png' },
    });
    return { contentType: form.contentType, body: form.body };
  };

  it('refuses a 5.5 MB image sent as multipart/form-data, naming the limit and the way around it', async () => {
    const form = await multipartGame(paddedPng(5.5 * MiB));
    const res = await invoke(createGame, {
      method: 'POST',
      path: '/games',
      headers: { ...hmacHeaders(dev, 'POST', '/games'), 'content-type': form.contentType },
      rawBody: form.body,
    });
    expect(res.status).toBe(413);
    const error = errorOf(res);
    expect(error.code).toBe('PAYLOAD_TOO_LARGE');
    expect(error.message).toContain(
      `exceeds the ${MAX_BINARY_BODY_BYTES}-byte limit for multipart/form-data`,
    );
    expect(error.message).toContain('POST /games/images/upload-url');
  });

  it('refuses a 5.5 MB image sent as a JSON data URI, naming the JSON limit', async () => {
    const res = await postGame(dev, gameBody({ base64Image: dataUri('png', paddedPng(5.5 * MiB)) }));
    expect(res.status).toBe(413);
    expect(errorOf(res).code).toBe('PAYLOAD_TOO_LARGE');
    expect(errorOf(res).message).toContain(`exceeds the ${MAX_TEXT_BODY_BYTES}-byte limit for JSON`);
  });

  it('answers the same through serverless offline', async () => {
    const form = await multipartGame(paddedPng(5.5 * MiB));
    const res = await fetch(`${process.env.API_BASE_URL}/games`, {
      method: 'POST',
      headers: { ...hmacHeaders(dev, 'POST', '/games'), 'content-type': form.contentType },
      body: form.body,
    });
    expect(res.status).toBe(413);
    const error = ((await res.json()) as ErrorBody).error;
    expect(error.code).toBe('PAYLOAD_TOO_LARGE');
    expect(error.message).toContain(String(MAX_BINARY_BODY_BYTES));
  });

  it('refuses it on POST /games/update/{gameId} too', async () => {
    const game = await registerGame(dev);
    const path = `/games/update/${game.id}`;
    const form = await multipartGame(paddedPng(5.5 * MiB));
    const res = await invoke(updateGame, {
      method: 'POST',
      path,
      pathParameters: { gameId: game.id },
      headers: { ...hmacHeaders(dev, 'POST', path), 'content-type': form.contentType },
      rawBody: form.body,
    });
    expect([res.status, errorOf(res).code]).toEqual([413, 'PAYLOAD_TOO_LARGE']);
  });

  it('accepts images that fit: 4.4 MiB as multipart/form-data and as a JSON data URI', async () => {
    const image = paddedPng(4.4 * MiB);
    const form = await multipartGame(image);
    expect(form.body.length).toBeLessThan(MAX_BINARY_BODY_BYTES);
    const asMultipart = await invoke<{ data: { game: GameView } }>(createGame, {
      method: 'POST',
      path: '/games',
      headers: { ...hmacHeaders(dev, 'POST', '/games'), 'content-type': form.contentType },
      rawBody: form.body,
    });
    expect(asMultipart.status).toBe(201);
    const served = await fetch(asMultipart.body.data.game.imageUrl ?? '');
    expect(Buffer.from(await served.arrayBuffer()).equals(image)).toBe(true);
    const asJson = await postGame(dev, gameBody({ base64Image: dataUri('png', image) }));
    expect(asJson.status).toBe(201);
  });
});
