import { coinMetadata, getCoinMetadataContract, requireGame } from '../../lib/games/index.js';
import { respond } from '../../lib/http/response.js';
import { route } from '../../lib/http/route.js';

// Wallets and explorers fetch it often and it changes rarely: let their caches and a CDN keep it 5 minutes.
export const handler = route(getCoinMetadataContract, async ({ params }) =>
  respond(200, coinMetadata(await requireGame(params.id)), { 'cache-control': 'public, max-age=300' }),
);
