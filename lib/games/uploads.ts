import { randomUUID } from 'node:crypto';
import type { AuthContext } from '../core/auth.js';
import { AppError } from '../core/errors.js';
import { logger } from '../core/logger.js';
import {
  type CheckedImage,
  checkImage,
  checkImageBytes,
  MAX_IMAGE_BYTES,
  tooLarge,
  type UploadedFile,
} from './images.js';
import { isUploadOf, newUploadKey, UPLOAD_CONTENT_TYPES, UPLOAD_URL_TTL_SECONDS } from './upload-policy.js';

// Presigned direct-to-S3 uploads: images too large for a request body (lib/core/payload.ts) go straight to the
// images bucket's uploads/ area, then a registration or update claims them by key. The API trusts nothing about
// an upload: the size is checked by HEAD, the bytes are read back (bounded) and sniffed like any other image, and
// the checked bytes are what gets stored under the game; the upload itself is then deleted. Unclaimed uploads
// expire by the bucket's lifecycle rule (serverless.yml) about a day after they were made.

/** The images bucket's uploads/ area, as the games use cases need it (lib/adapters/image-upload-*.ts). */
export interface ImageUploads {
  presign: (
    key: string,
    contentType: string,
    contentLength: number,
    expiresInSeconds: number,
  ) => Promise<{ url: string; headers: Record<string, string>; expiresAt: Date }>;
  /** The object's size in bytes; undefined when there is none. */
  size: (key: string) => Promise<number | undefined>;
  /** The object's first `maxBytes` bytes; undefined when there is none. */
  read: (key: string, maxBytes: number) => Promise<Buffer | undefined>;
  remove: (key: string) => Promise<void>;
}

/** Presigning uploads (the upload-url function). */
export type UploadUrls = Pick<ImageUploads, 'presign'>;
/** Claiming uploads (registration and update). */
export type UploadClaims = Omit<ImageUploads, 'presign'>;

/** POST /games/images/upload-url: a presigned PUT for one image of the caller's, and the key to claim it by. */
export const createImageUpload = async (
  auth: AuthContext,
  input: { contentType: string; contentLength: number },
  deps: { uploads: UploadUrls },
) => {
  const contentType = input.contentType.trim().toLowerCase();
  if (!(UPLOAD_CONTENT_TYPES as readonly string[]).includes(contentType)) {
    const problem = `unsupported image type "${input.contentType}"; allowed: ${UPLOAD_CONTENT_TYPES.join(', ')}`;
    throw new AppError('UNSUPPORTED_IMAGE_FORMAT', `contentType: ${problem}`, [
      { path: 'contentType', message: problem },
    ]);
  }
  if (input.contentLength > MAX_IMAGE_BYTES) throw tooLarge('contentLength');
  const imageKey = newUploadKey(auth.userId, randomUUID());
  const upload = await deps.uploads.presign(
    imageKey,
    contentType,
    input.contentLength,
    UPLOAD_URL_TTL_SECONDS,
  );
  return {
    imageKey,
    uploadUrl: upload.url,
    method: 'PUT' as const,
    headers: upload.headers,
    expiresAt: upload.expiresAt.toISOString(),
    maxBytes: MAX_IMAGE_BYTES,
  };
};

/** A checked image, with the upload it came from when it was claimed by key. */
export type PickedImage = CheckedImage & { uploadKey?: string };

const noUpload = (field: string) => {
  const problem = 'no upload of yours under this key (uploads expire about a day after they are made)';
  return new AppError('MISSING_IMAGE', `${field}: ${problem}`, [{ path: field, message: problem }]);
};

/** Claim the caller's upload under `key`: size by HEAD, then the bytes (bounded) through the image rules. */
const claimUpload = async (
  auth: AuthContext,
  key: string,
  field: string,
  uploads: UploadClaims,
): Promise<PickedImage> => {
  // Another user's key is answered as a missing one: keys are not proof of anything, and nothing tells they exist.
  if (!isUploadOf(key, auth.userId)) throw noUpload(field);
  const size = await uploads.size(key);
  if (size === undefined) throw noUpload(field);
  if (size > MAX_IMAGE_BYTES) throw tooLarge(field);
  // One byte past the limit: an object replaced since the HEAD still cannot make this read unbounded.
  const bytes = size === 0 ? Buffer.alloc(0) : await uploads.read(key, MAX_IMAGE_BYTES + 1);
  if (bytes === undefined) throw noUpload(field);
  return { ...(await checkImageBytes(bytes, field)), uploadKey: key };
};

/**
 * One image slot: the file, else the base64 data URI (the file wins), else the upload named by `key`. Undefined when
 * none is given. Errors name `field` for inline images and `keyField` for uploads.
 */
export const pickImage = async (
  auth: AuthContext,
  slot: { file?: UploadedFile; base64?: string; key?: string },
  fields: { field: string; keyField: string },
  uploads: UploadClaims | undefined,
): Promise<PickedImage | undefined> => {
  const inline = await checkImage({ file: slot.file, base64: slot.base64 }, fields.field);
  if (inline || slot.key === undefined || slot.key === '') return inline;
  if (!uploads) throw new Error('image uploads are not wired into this function');
  return claimUpload(auth, slot.key, fields.keyField, uploads);
};

/** Both image slots of a registration or update (thumbnail and cover), each as `pickImage` decides it. */
export const pickImages = async (
  auth: AuthContext,
  input: {
    image?: UploadedFile;
    base64Image?: string;
    imageKey?: string;
    coverImage?: UploadedFile;
    base64CoverImage?: string;
    coverImageKey?: string;
  },
  uploads: UploadClaims | undefined,
) => ({
  image: await pickImage(
    auth,
    { file: input.image, base64: input.base64Image, key: input.imageKey },
    { field: 'image', keyField: 'imageKey' },
    uploads,
  ),
  cover: await pickImage(
    auth,
    { file: input.coverImage, base64: input.base64CoverImage, key: input.coverImageKey },
    { field: 'coverImage', keyField: 'coverImageKey' },
    uploads,
  ),
});

/**
 * Delete the uploads that became a game's images, once the game is saved. Best effort: the stored copy is what the
 * game uses, and the lifecycle rule removes a leftover within a day.
 */
export const discardClaimedUploads = async (
  uploads: UploadClaims | undefined,
  images: Array<PickedImage | undefined>,
): Promise<void> => {
  const keys = images.flatMap((image) => (image?.uploadKey ? [image.uploadKey] : []));
  if (!uploads || keys.length === 0) return;
  const results = await Promise.allSettled(keys.map((key) => uploads.remove(key)));
  for (const [index, result] of results.entries()) {
    if (result.status === 'rejected') {
      logger.warn('claimed upload not deleted', { key: keys[index], error: String(result.reason) });
    }
  }
};
