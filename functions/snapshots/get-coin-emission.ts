import { route } from '../../lib/http/route.js';
import { coinEmission, getCoinEmissionContract } from '../../lib/snapshots/index.js';

export const handler = route(getCoinEmissionContract, async ({ params }) => ({
  data: await coinEmission(params.coinMint),
}));
