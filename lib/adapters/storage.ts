import { settings } from '../core/config.js';
import { s3 } from './s3.js';

/**
 * Public URL of an image object: IMAGES_BASE_URL (a CDN in production) when set, else the bucket's own URL
 * (path-style on a custom endpoint, virtual-hosted on AWS).
 */
export const imageUrl = (key: string): string => {
  const { IMAGES_BASE_URL, IMAGES_BUCKET, AWS_REGION, AWS_ENDPOINT_URL_S3, S3_FORCE_PATH_STYLE } = settings();
  const base =
    IMAGES_BASE_URL ||
    (S3_FORCE_PATH_STYLE === 'true' && AWS_ENDPOINT_URL_S3
      ? `${AWS_ENDPOINT_URL_S3.replace(/\/$/, '')}/${IMAGES_BUCKET}`
      : `https://${IMAGES_BUCKET}.s3.${AWS_REGION}.amazonaws.com`);
  return `${base.replace(/\/$/, '')}/${key}`;
};

/** Store an image under a server-generated key with its sniffed content type; immutable, so cached for a year. */
export const putImage = async (key: string, bytes: Buffer, contentType: string): Promise<string> => {
  await s3().putObject({
    Bucket: settings().IMAGES_BUCKET,
    Key: key,
    Body: bytes,
    ContentType: contentType,
    CacheControl: 'public, max-age=31536000, immutable',
  });
  return imageUrl(key);
};
