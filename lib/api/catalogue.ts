import { contracts as connect } from '../connect/index.js';
import type { Contract } from '../core/contract.js';
import { contracts as games } from '../games/index.js';
import { contracts as insights } from '../insights/index.js';
import { contracts as launcher } from '../launcher/index.js';
import { contracts as play } from '../play/index.js';
import { contracts as rewards } from '../rewards/index.js';
import { contracts as snapshots } from '../snapshots/index.js';
import { contracts as tournaments } from '../tournaments/index.js';
import { contracts as user } from '../user/index.js';
import { contracts as webhooks } from '../webhooks/index.js';
import { contracts as reference } from './reference/contracts.js';

/**
 * Every operation of the public API: each domain's `contracts` (its entry exports them), in the order of the
 * OpenAPI document's paths. serverless.yml has exactly one function per entry (checked by a test).
 */
export const contracts: readonly Contract[] = [
  ...reference,
  ...user,
  ...games,
  ...play,
  ...launcher,
  ...snapshots,
  ...rewards,
  ...webhooks,
  ...tournaments,
  ...insights,
  ...connect,
];
