// The rules of presigned image uploads that contracts, use cases and tests share, kept free of imports so that the
// functions reading games (whose contracts module states these rules) bundle nothing else for them.

/** How long a presigned upload URL stays valid. */
export const UPLOAD_URL_TTL_SECONDS = 15 * 60;

/** Content types an upload may declare: the formats the image rules accept (the bytes decide in the end). */
export const UPLOAD_CONTENT_TYPES = ['image/jpeg', 'image/png', 'image/gif', 'image/webp'] as const;

const UUID = '[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}';

/**
 * Upload keys in the images bucket: `uploads/<uploader's Arc ID>/<random UUID>`. Who uploaded is in the key, so a
 * claim checks it without a lookup; the bucket's lifecycle rule expires the uploads/ prefix (serverless.yml).
 */
export const UPLOAD_KEY_PATTERN = new RegExp(`^uploads/${UUID}/${UUID}$`);

/** The key of a new upload by `userId`. */
export const newUploadKey = (userId: string, id: string): string => `uploads/${userId}/${id}`;

/** Whether `key` names an upload of `userId`'s. */
export const isUploadOf = (key: string, userId: string): boolean =>
  UPLOAD_KEY_PATTERN.test(key) && key.startsWith(`uploads/${userId}/`);
