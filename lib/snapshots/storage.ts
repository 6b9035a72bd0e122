import { s3 } from '../adapters/s3.js';
import { settings } from '../core/config.js';
import type { ByteRange, GetObject, StoredObject } from './layout.js';

/** PUT the objects of one snapshot in the given order (manifest.json last marks it complete). */
export const putSnapshotObjects = async (objects: readonly StoredObject[]): Promise<void> => {
  for (const object of objects) {
    await s3().putObject({
      Bucket: settings().SNAPSHOTS_BUCKET,
      Key: object.key,
      Body: object.body,
      ContentType: object.contentType,
    });
  }
};

/** Read a snapshot object or an inclusive byte range of it; undefined when the object does not exist. */
export const getSnapshotObject: GetObject = (key: string, range?: ByteRange) =>
  s3().getObject({ Bucket: settings().SNAPSHOTS_BUCKET, Key: key, ...(range ? { Range: range } : {}) });
