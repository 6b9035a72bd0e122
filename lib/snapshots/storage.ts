// S3 adapter for snapshot objects (SnapshotsBucket, private): immutable PUTs and (ranged) GETs for layout.ts.
import * as z from 'zod/mini';
import { s3 } from '../adapters/s3.js';
import { defineConfig } from '../core/config.js';
import type { ByteRange, GetObject, StoredObject } from './layout.js';

const config = defineConfig(() =>
  z.object({
    SNAPSHOTS_BUCKET: z.string().check(z.minLength(1)),
  }),
);

/** PUT the objects of one snapshot in the given order (manifest.json last marks it complete). */
export const putSnapshotObjects = async (objects: readonly StoredObject[]): Promise<void> => {
  for (const object of objects) {
    await s3().putObject({
      Bucket: config().SNAPSHOTS_BUCKET,
      Key: object.key,
      Body: object.body,
      ContentType: object.contentType,
    });
  }
};

/** Read a snapshot object or an inclusive byte range of it; undefined when the object does not exist. */
export const getSnapshotObject: GetObject = (key: string, range?: ByteRange) =>
  s3().getObject({ Bucket: config().SNAPSHOTS_BUCKET, Key: key, ...(range ? { Range: range } : {}) });
