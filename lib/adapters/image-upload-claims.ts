import { settings } from '../core/config.js';
import { s3 } from './s3.js';

/**
 * Claiming a presigned upload (lib/games/uploads.ts): the HEAD, bounded read and delete of an object under the
 * images bucket's uploads/ area. Apart from the presigning (image-upload-urls.ts) so that the functions that claim
 * uploads are not granted writing them, nor the upload-url function reading them (infra/access.ts).
 */
export const imageUploadClaims = {
  size: async (key: string): Promise<number | undefined> =>
    (await s3().headObject({ Bucket: settings().IMAGES_BUCKET, Key: key }))?.contentLength,
  read: async (key: string, maxBytes: number): Promise<Buffer | undefined> => {
    const bytes = await s3().getObject({
      Bucket: settings().IMAGES_BUCKET,
      Key: key,
      Range: { start: 0, end: maxBytes - 1 },
    });
    return bytes && Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  },
  remove: (key: string): Promise<void> => s3().deleteObject({ Bucket: settings().IMAGES_BUCKET, Key: key }),
};
