import { S3Client } from '@aws-sdk/client-s3';
import * as z from 'zod/mini';
import { loadConfig } from '../config.js';

let client: S3Client | undefined;

/**
 * The one S3 client of a container. Path-style addressing when S3_FORCE_PATH_STYLE is set (custom endpoints);
 * checksums only where S3 requires them, since stand-ins and proxies handle streamed checksums poorly.
 */
export const s3 = (): S3Client => {
  client ??= new S3Client({
    forcePathStyle:
      loadConfig(z.object({ S3_FORCE_PATH_STYLE: z._default(z.enum(['true', 'false']), 'false') }))
        .S3_FORCE_PATH_STYLE === 'true',
    requestChecksumCalculation: 'WHEN_REQUIRED',
    responseChecksumValidation: 'WHEN_REQUIRED',
  });
  return client;
};
