import { settings } from '../core/config.js';
import { s3 } from './s3.js';

// Presigned PUTs into the images bucket's uploads/ area (lib/games/uploads.ts), apart from the claims
// (image-upload-claims.ts): the URL is signed with the function's credentials, and the deploy config grants each
// function the access of the modules it bundles (infra/access.ts), so only the upload-url function may write there.
export const imageUploadUrls = {
  presign: (key: string, contentType: string, contentLength: number, expiresInSeconds: number) =>
    s3().presignPutObject(
      { Bucket: settings().IMAGES_BUCKET, Key: key, ContentType: contentType, ContentLength: contentLength },
      expiresInSeconds,
    ),
};
