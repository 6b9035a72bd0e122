// Production wiring of the snapshot read endpoints: DynamoDB summaries and S3 objects only (no chain).
import { getSummary } from './repository.js';
import type { ReadDeps } from './service.js';
import { getSnapshotObject } from './storage.js';

export const readDeps = (): ReadDeps => ({ getSummary, getObject: getSnapshotObject });
