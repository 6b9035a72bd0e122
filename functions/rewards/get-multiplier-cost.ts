import { now } from '../../lib/core/time.js';
import { route } from '../../lib/http/route.js';
import { dayBoard } from '../../lib/play/index.js';
import {
  getMultiplierCostContract,
  multiplierCost,
  priceFromConfig,
  type QuoteDeps,
} from '../../lib/rewards/index.js';

export const sideEffects: QuoteDeps = { price: priceFromConfig(), board: dayBoard, now };

export const handler = route(getMultiplierCostContract, async ({ query }) => ({
  data: await multiplierCost(query, sideEffects),
}));
