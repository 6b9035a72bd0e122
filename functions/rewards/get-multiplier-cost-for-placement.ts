import { playerOrGame } from '../../lib/auth/index.js';
import { now } from '../../lib/core/time.js';
import { route } from '../../lib/http/route.js';
import { dayBoard } from '../../lib/play/index.js';
import {
  costForPlacement,
  getMultiplierCostForPlacementContract,
  priceFromConfig,
  type QuoteDeps,
} from '../../lib/rewards/index.js';

export const sideEffects: QuoteDeps = { price: priceFromConfig(), board: dayBoard, now };

export const handler = route(
  getMultiplierCostForPlacementContract,
  async ({ auth, query }) => ({ data: await costForPlacement(auth, query, sideEffects) }),
  playerOrGame,
);
