import { walletSignerFromConfig } from '../../lib/adapters/wallet-signer.js';
import { playerOrGame } from '../../lib/auth/index.js';
import { chainFromConfig } from '../../lib/chain/index.js';
import { now } from '../../lib/core/time.js';
import { HttpResponse } from '../../lib/http/response.js';
import { route } from '../../lib/http/route.js';
import { dayBoard } from '../../lib/play/index.js';
import {
  priceFromConfig,
  purchaseMultiplier,
  purchaseMultiplierContract,
  type RewardsDeps,
} from '../../lib/rewards/index.js';
import { loadWallet } from '../../lib/user/index.js';

export const sideEffects: RewardsDeps = {
  chain: chainFromConfig(),
  signer: walletSignerFromConfig(loadWallet),
  loadWallet,
  price: priceFromConfig(),
  board: dayBoard,
  now,
};

export const handler = route(
  purchaseMultiplierContract,
  async ({ auth, body }) => {
    const purchase = await purchaseMultiplier(auth, body, sideEffects);
    // Not confirmed within the request: 202, and a retry with the same idempotencyKey gives the outcome.
    return purchase.status === 'pending' ? new HttpResponse(202, { data: purchase }) : { data: purchase };
  },
  playerOrGame,
);
