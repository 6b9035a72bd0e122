import { createHash } from 'node:crypto';
import { AppError, type ErrorCode } from '../core/errors.js';

// Image intake for game registration (docs/decisions.md, "Games"). Pure: bytes in, checked image or AppError out.
// The format is always decided by the bytes (magic numbers), never by a data URI label, a filename or a
// client-supplied mimetype: those are attacker-controlled and a mislabelled SVG/HTML is a stored-XSS vector.

export type ImageFormat = 'jpeg' | 'png' | 'gif' | 'webp';

export interface UploadedFile {
  content: Buffer;
  filename?: string;
  mimetype?: string;
}

export interface CheckedImage {
  bytes: Buffer;
  format: ImageFormat;
  /** The sniffed MIME type, safe to serve as Content-Type. */
  contentType: string;
  extension: string;
  width: number;
  height: number;
  /** Lowercase hex sha256 of the bytes. */
  sha256: string;
}

export const MAX_IMAGE_BYTES = 5 * 1024 * 1024;
/** Decoded pixel budget: a tiny file may claim huge dimensions (decompression bomb). */
export const MAX_IMAGE_PIXELS = 40_000_000;
export const MAX_IMAGE_SIDE = 16_384;

/**
 * `headerBytes`: bytes up to the end of the fields holding the dimensions (PNG signature + IHDR chunk, GIF
 * logical screen descriptor, WebP RIFF + chunk header + 10 bytes of VP8/VP8L/VP8X header). image-size reads
 * missing bytes of some formats as 0 instead of failing, so shorter input is rejected up front. JPEG needs no
 * floor: its reader fails on a short buffer.
 */
const FORMATS: Record<
  ImageFormat,
  { contentType: string; extension: string; imageSizeType: string; headerBytes: number }
> = {
  jpeg: { contentType: 'image/jpeg', extension: 'jpg', imageSizeType: 'jpg', headerBytes: 0 },
  png: { contentType: 'image/png', extension: 'png', imageSizeType: 'png', headerBytes: 33 },
  gif: { contentType: 'image/gif', extension: 'gif', imageSizeType: 'gif', headerBytes: 13 },
  webp: { contentType: 'image/webp', extension: 'webp', imageSizeType: 'webp', headerBytes: 30 },
};

/** Formats named in a data URI, lowercased; jpg is an alias of jpeg. */
const DECLARED_FORMATS: Record<string, ImageFormat> = {
  jpeg: 'jpeg',
  jpg: 'jpeg',
  png: 'png',
  gif: 'gif',
  webp: 'webp',
};

/** file-type MIME → allowed format. APNG is a PNG with extra chunks; browsers render it as one. */
const SNIFFED_FORMATS: Record<string, ImageFormat> = {
  'image/jpeg': 'jpeg',
  'image/png': 'png',
  'image/apng': 'png',
  'image/gif': 'gif',
  'image/webp': 'webp',
};

const ALLOWED_LIST = 'jpeg, jpg, png, gif, webp';

type Sniffers = typeof import('./image-sniffers.js');
let sniffers: Promise<Sniffers> | undefined;
/** file-type and image-size, imported once, by the first image a container inspects (./image-sniffers.ts). */
const loadSniffers = (): Promise<Sniffers> => {
  sniffers ??= import('./image-sniffers.js');
  return sniffers;
};

const DATA_URI_PREFIX = 'data:image/';
const BASE64_SEPARATOR = ';base64,';
const BASE64_ALPHABET = /^[A-Za-z0-9+/]*={0,2}$/;

const fail = (code: ErrorCode, field: string, problem: string): AppError =>
  new AppError(code, `${field}: ${problem}`, [{ path: field, message: problem }]);

/** IMAGE_TOO_LARGE for `field`: over MAX_IMAGE_BYTES. */
export const tooLarge = (field: string): AppError =>
  fail('IMAGE_TOO_LARGE', field, `image must be at most ${MAX_IMAGE_BYTES / (1024 * 1024)} MB`);

interface DecodedDataUri {
  bytes: Buffer;
  declared: ImageFormat;
}

/** Parse `data:image/<format>;base64,<data>` strictly; the cheap size check runs before any decoding. */
const decodeDataUri = (value: string, field: string): DecodedDataUri => {
  const form = `must be a data URI of the form data:image/<format>;base64,<data>`;
  if (value.slice(0, DATA_URI_PREFIX.length).toLowerCase() !== DATA_URI_PREFIX) {
    throw fail('INVALID_IMAGE_FORMAT', field, `base64Image ${form} (missing "data:image/" prefix)`);
  }
  // The media type is short; only search its neighbourhood so a huge value is not lowercased whole.
  const head = value.slice(0, 128).toLowerCase();
  const separator = head.indexOf(BASE64_SEPARATOR);
  if (separator < 0) {
    throw fail('INVALID_IMAGE_FORMAT', field, `base64Image ${form} (missing ";base64," separator)`);
  }
  const label = head.slice(DATA_URI_PREFIX.length, separator);
  const declared = DECLARED_FORMATS[label];
  if (!declared) {
    throw fail(
      'UNSUPPORTED_IMAGE_FORMAT',
      field,
      `unsupported image format "${label}"; allowed: ${ALLOWED_LIST}`,
    );
  }
  const data = value.slice(separator + BASE64_SEPARATOR.length);
  // Decoded length is at most len*3/4: reject oversized payloads before touching the data.
  if (Math.floor((data.length * 3) / 4) - paddingOf(data) > MAX_IMAGE_BYTES) throw tooLarge(field);
  if (data.length === 0 || data.length % 4 !== 0 || !BASE64_ALPHABET.test(data)) {
    throw fail('INVALID_IMAGE_FORMAT', field, 'base64Image data is not valid base64');
  }
  const bytes = Buffer.from(data, 'base64');
  // Node's decoder is lenient (ignores stray bits); a round trip proves the encoding was canonical.
  if (bytes.toString('base64') !== data) {
    throw fail('INVALID_IMAGE_FORMAT', field, 'base64Image data is not valid base64');
  }
  return { bytes, declared };
};

const paddingOf = (data: string): number => (data.endsWith('==') ? 2 : data.endsWith('=') ? 1 : 0);

/** Sniff the real format and read dimensions from the header; `declared` is the data URI's label, if any. */
const inspect = async (bytes: Buffer, field: string, declared?: ImageFormat): Promise<CheckedImage> => {
  if (bytes.length === 0) throw fail('INVALID_IMAGE_FORMAT', field, 'image is empty');
  if (bytes.length > MAX_IMAGE_BYTES) throw tooLarge(field);

  const { fileTypeFromBuffer, imageSize } = await loadSniffers();
  const sniffed = await fileTypeFromBuffer(bytes);
  const format = sniffed ? SNIFFED_FORMATS[sniffed.mime] : undefined;
  if (!format) {
    const detected = sniffed ? `detected ${sniffed.ext}` : 'not a recognised image';
    throw fail(
      'UNSUPPORTED_IMAGE_FORMAT',
      field,
      `unsupported image format (${detected}); allowed: ${ALLOWED_LIST}`,
    );
  }
  if (declared && declared !== format) {
    throw fail(
      'INVALID_IMAGE_FORMAT',
      field,
      `declared format ${declared} does not match the image content (${format})`,
    );
  }

  const { width, height } = readDimensions(imageSize, bytes, field, format);
  if (width > MAX_IMAGE_SIDE || height > MAX_IMAGE_SIDE || width * height > MAX_IMAGE_PIXELS) {
    throw fail(
      'IMAGE_TOO_LARGE',
      field,
      `image dimensions ${width}x${height} exceed the limit (${MAX_IMAGE_SIDE} px per side, ${MAX_IMAGE_PIXELS} pixels)`,
    );
  }

  const { contentType, extension } = FORMATS[format];
  return {
    bytes,
    format,
    contentType,
    extension,
    width,
    height,
    sha256: createHash('sha256').update(bytes).digest('hex'),
  };
};

const readDimensions = (
  imageSize: Sniffers['imageSize'],
  bytes: Buffer,
  field: string,
  format: ImageFormat,
) => {
  if (bytes.length < FORMATS[format].headerBytes) {
    throw fail('INVALID_IMAGE_FORMAT', field, 'image header is unreadable');
  }
  let size: ReturnType<Sniffers['imageSize']>;
  try {
    // image-size reads through a DataView over the whole underlying ArrayBuffer, so on a pooled or sliced
    // Buffer a truncated header would be "completed" by neighbouring memory. A tight copy makes it throw.
    size = imageSize(new Uint8Array(bytes));
  } catch (cause) {
    throw Object.assign(fail('INVALID_IMAGE_FORMAT', field, 'image header is unreadable'), { cause });
  }
  // Two sniffers disagreeing means a crafted polyglot; neither answer can be trusted.
  const valid =
    size.type === FORMATS[format].imageSizeType &&
    Number.isSafeInteger(size.width) &&
    Number.isSafeInteger(size.height) &&
    size.width > 0 &&
    size.height > 0;
  if (!valid) throw fail('INVALID_IMAGE_FORMAT', field, 'image header is unreadable');
  return { width: size.width, height: size.height };
};

/** Validate image bytes that arrived by another way than the request (a presigned upload, lib/games/uploads.ts). */
export const checkImageBytes = (bytes: Buffer, field: string): Promise<CheckedImage> => inspect(bytes, field);

/**
 * Pick and validate one image slot: the file wins over base64. Returns undefined when neither is given.
 * An empty file part or empty string counts as not given: browsers send an empty part for an unused file input.
 */
export const checkImage = async (
  slot: { file?: UploadedFile; base64?: string },
  field: string,
): Promise<CheckedImage | undefined> => {
  if (slot.file && slot.file.content.length > 0) return inspect(slot.file.content, field);
  if (slot.base64 === undefined || slot.base64 === '') return undefined;
  const { bytes, declared } = decodeDataUri(slot.base64, field);
  if (bytes.length > MAX_IMAGE_BYTES) throw tooLarge(field);
  return inspect(bytes, field, declared);
};

/** At least one image must be present. */
export const requireOneImage = (image?: CheckedImage, field = 'image'): CheckedImage => {
  if (!image) {
    throw new AppError(
      'MISSING_IMAGE',
      'At least one image is required: image file, base64Image or imageKey',
      [{ path: field, message: 'required' }],
    );
  }
  return image;
};
