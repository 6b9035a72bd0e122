import { createHash } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { AppError } from '../../lib/core/errors.js';
import {
  type CheckedImage,
  checkImage,
  MAX_IMAGE_BYTES,
  requireOneImage,
  type UploadedFile,
} from '../../lib/games/images.js';
import { dataUri, gif, jpeg, png, webp } from '../fixtures/images/build.js';

const file = (content: Buffer, mimetype = 'application/octet-stream'): UploadedFile => ({
  content,
  filename: 'upload.bin',
  mimetype,
});

/** The AppError a rejected check throws (fails the test if it resolves or throws something else). */
const rejection = async (promise: Promise<unknown>): Promise<AppError> => {
  const error = await promise.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(AppError);
  return error as AppError;
};

const samples = [
  { format: 'png', bytes: png(), contentType: 'image/png', extension: 'png', label: 'png' },
  { format: 'jpeg', bytes: jpeg(), contentType: 'image/jpeg', extension: 'jpg', label: 'jpeg' },
  { format: 'gif', bytes: gif(), contentType: 'image/gif', extension: 'gif', label: 'gif' },
  { format: 'webp', bytes: webp(), contentType: 'image/webp', extension: 'webp', label: 'webp' },
] as const;

describe('checkImage', () => {
  it.each(samples)('accepts a $format file', async ({ format, bytes, contentType, extension }) => {
    const image = await checkImage({ file: file(bytes) }, 'image');
    expect(image).toEqual<CheckedImage>({
      bytes,
      format,
      contentType,
      extension,
      width: 1,
      height: 1,
      sha256: createHash('sha256').update(bytes).digest('hex'),
    });
  });

  it.each(samples)('accepts a $format data URI', async ({ format, bytes, label }) => {
    const image = await checkImage({ base64: dataUri(label, bytes) }, 'image');
    expect(image?.format).toBe(format);
    expect(image?.bytes.equals(bytes)).toBe(true);
  });

  it('treats jpg as jpeg and the declared label case-insensitively', async () => {
    expect((await checkImage({ base64: dataUri('jpg', jpeg()) }, 'image'))?.format).toBe('jpeg');
    const upper = `DATA:IMAGE/PNG;BASE64,${png().toString('base64')}`;
    expect((await checkImage({ base64: upper }, 'image'))?.format).toBe('png');
  });

  it('returns undefined when neither a file nor base64 is given', async () => {
    expect(await checkImage({}, 'image')).toBeUndefined();
  });

  it('prefers the file over base64 (SPEC rule 2), even when the base64 value is invalid', async () => {
    const image = await checkImage({ file: file(gif()), base64: 'not a data uri' }, 'image');
    expect(image?.format).toBe('gif');
  });

  it('decides the format by the bytes, not the mimetype or filename', async () => {
    const image = await checkImage(
      { file: { content: gif(), filename: 'logo.png', mimetype: 'image/png' } },
      'image',
    );
    expect(image).toMatchObject({ format: 'gif', contentType: 'image/gif', extension: 'gif' });
  });

  it('rejects a value without the data:image/ prefix', async () => {
    const error = await rejection(checkImage({ base64: png().toString('base64') }, 'image'));
    expect(error.code).toBe('INVALID_IMAGE_FORMAT');
    expect(error.message).toMatch(/^image: .*data:image\//);
    expect(error.details).toEqual([{ path: 'image', message: expect.any(String) }]);
  });

  it('rejects a data URI without the ;base64, separator', async () => {
    const error = await rejection(
      checkImage({ base64: `data:image/png,${png().toString('base64')}` }, 'image'),
    );
    expect(error.code).toBe('INVALID_IMAGE_FORMAT');
    expect(error.message).toContain(';base64,');
  });

  it.each([
    ['characters outside the alphabet', `${png().toString('base64').slice(0, -4)}!!!!`],
    ['embedded whitespace', `${png().toString('base64').slice(0, 8)} ${png().toString('base64').slice(9)}`],
    ['a length that is not a multiple of 4', png().toString('base64').replace(/=+$/, '')],
    ['misplaced padding', `AA==${png().toString('base64')}`],
    ['non-canonical trailing bits', 'iVB='],
    ['no data at all', ''],
  ])('rejects base64 with %s', async (_, data) => {
    const error = await rejection(checkImage({ base64: `data:image/png;base64,${data}` }, 'image'));
    expect(error.code).toBe('INVALID_IMAGE_FORMAT');
  });

  it.each(['svg+xml', 'bmp', 'tiff', 'avif'])(
    'rejects the declared format %s as unsupported',
    async (label) => {
      const error = await rejection(checkImage({ base64: dataUri(label, png()) }, 'image'));
      expect(error.code).toBe('UNSUPPORTED_IMAGE_FORMAT');
      expect(error.message).toContain(label);
    },
  );

  it('rejects PNG bytes declared as jpeg, naming both formats', async () => {
    const error = await rejection(checkImage({ base64: dataUri('jpeg', png()) }, 'image'));
    expect(error.code).toBe('INVALID_IMAGE_FORMAT');
    expect(error.message).toMatch(/declared format jpeg .*\(png\)/);
  });

  // UNSUPPORTED, not INVALID: the label is allowed, but the bytes are not an allowed image at all. The
  // mismatch code (INVALID_IMAGE_FORMAT) is kept for content that is a valid image of another allowed format.
  it.each([
    ['SVG', Buffer.from('<svg xmlns="http://www.w3.org/2000/svg"><script>alert(1)</script></svg>')],
    ['HTML', Buffer.from('<!doctype html><html><body><script>alert(1)</script></body></html>')],
    ['PDF', Buffer.from('%PDF-1.4\n1 0 obj\n<<>>\nendobj\ntrailer\n<<>>\n%%EOF\n')],
    ['BMP', Buffer.concat([Buffer.from('BM'), Buffer.alloc(60)])],
  ])('rejects %s bytes declared as png as unsupported', async (_, bytes) => {
    const error = await rejection(checkImage({ base64: dataUri('png', bytes) }, 'image'));
    expect(error.code).toBe('UNSUPPORTED_IMAGE_FORMAT');
  });

  it('rejects an HTML file uploaded with an image/png mimetype as unsupported', async () => {
    const html = Buffer.from('<html><script>alert(1)</script></html>');
    const error = await rejection(checkImage({ file: file(html, 'image/png') }, 'image'));
    expect(error.code).toBe('UNSUPPORTED_IMAGE_FORMAT');
  });

  // A subarray shares its parent's memory: image-size must not read the missing bytes from beyond the view.
  it.each([
    ['png', png().subarray(0, 20)],
    ['gif', gif().subarray(0, 8)],
    ['webp', webp().subarray(0, 22)],
    ['jpeg', jpeg().subarray(0, 95)], // cut inside the SOF0 segment that holds the dimensions
  ])('rejects a truncated %s whose header cannot be read', async (_, truncated) => {
    const error = await rejection(checkImage({ file: file(truncated) }, 'image'));
    expect(error.code).toBe('INVALID_IMAGE_FORMAT');
  });

  it('treats an empty file part (an unused file input) as absent', async () => {
    expect(await checkImage({ file: file(Buffer.alloc(0)), base64: '' }, 'image')).toBeUndefined();
    const image = await checkImage({ file: file(Buffer.alloc(0)), base64: dataUri('png', png()) }, 'image');
    expect(image?.format).toBe('png');
  });

  it('rejects a decoded image of 5 MB + 1 byte', async () => {
    const big = Buffer.concat([png(), Buffer.alloc(MAX_IMAGE_BYTES + 1 - png().length)]);
    expect(big.length).toBe(MAX_IMAGE_BYTES + 1);
    const error = await rejection(checkImage({ base64: dataUri('png', big) }, 'image'));
    expect(error.code).toBe('IMAGE_TOO_LARGE');
  });

  it('accepts an image of exactly 5 MB', async () => {
    const exact = Buffer.concat([png(), Buffer.alloc(MAX_IMAGE_BYTES - png().length)]);
    expect((await checkImage({ base64: dataUri('png', exact) }, 'image'))?.bytes.length).toBe(
      MAX_IMAGE_BYTES,
    );
  });

  it('rejects a 50 MB base64 string by its length, before validating or decoding it', async () => {
    const huge = `data:image/png;base64,${'!'.repeat(50 * 1024 * 1024)}`; // invalid alphabet, yet too large first
    const error = await rejection(checkImage({ base64: huge }, 'image'));
    expect(error.code).toBe('IMAGE_TOO_LARGE');
  });

  it('rejects a file upload over 5 MB', async () => {
    const big = Buffer.concat([gif(), Buffer.alloc(MAX_IMAGE_BYTES)]);
    const error = await rejection(checkImage({ file: file(big) }, 'image'));
    expect(error.code).toBe('IMAGE_TOO_LARGE');
  });

  it('rejects a tiny PNG whose header claims 100000x100000 (decompression bomb)', async () => {
    const bomb = png(100_000, 100_000);
    expect(bomb.length).toBeLessThan(200);
    const error = await rejection(checkImage({ file: file(bomb) }, 'image'));
    expect(error.code).toBe('IMAGE_TOO_LARGE');
    expect(error.message).toContain('100000x100000');
  });

  it('rejects a picture over the pixel budget even when each side is within the limit', async () => {
    const error = await rejection(checkImage({ file: file(png(10_000, 10_000)) }, 'image'));
    expect(error.code).toBe('IMAGE_TOO_LARGE');
  });

  it('rejects a picture with one side over the limit', async () => {
    const error = await rejection(checkImage({ file: file(png(20_000, 1)) }, 'image'));
    expect(error.code).toBe('IMAGE_TOO_LARGE');
  });

  it('names the field in the message', async () => {
    const error = await rejection(checkImage({ base64: 'nope' }, 'coverImage'));
    expect(error.message).toMatch(/^coverImage: /);
  });
});

describe('requireOneImage', () => {
  it('throws MISSING_IMAGE when no image was given', () => {
    expect(() => requireOneImage(undefined)).toThrowError(
      expect.objectContaining({
        code: 'MISSING_IMAGE',
        message: 'At least one image is required: image file, base64Image or imageKey',
      }),
    );
  });

  it('returns the image when present', async () => {
    const image = await checkImage({ file: file(png()) }, 'image');
    expect(requireOneImage(image)).toBe(image);
  });
});
