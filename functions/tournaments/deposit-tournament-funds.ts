import { walletSignerFromConfig } from '../../lib/adapters/wallet-signer.js';
import { bearerOrHmac } from '../../lib/auth/index.js';
import { chainFromConfig } from '../../lib/chain/index.js';
import { now } from '../../lib/core/time.js';
import { HttpResponse } from '../../lib/http/response.js';
import { route } from '../../lib/http/route.js';
import type { InboundDeps } from '../../lib/rewards/index.js';
import { depositToTournament, depositTournamentFundsContract } from '../../lib/tournaments/index.js';
import { loadWallet } from '../../lib/user/index.js';

export const sideEffects: InboundDeps = {
  chain: chainFromConfig(),
  signer: walletSignerFromConfig(loadWallet),
  loadWallet,
  now,
};

export const handler = route(
  depositTournamentFundsContract,
  async ({ auth, params, body }) => {
    const { created, deposit } = await depositToTournament(auth, params, body, sideEffects);
    // Not confirmed within the request: 202; a known key's completed deposit: 200 (a retry gives the outcome).
    if (deposit.status === 'pending') return new HttpResponse(202, { data: deposit });
    return created ? { data: deposit } : new HttpResponse(200, { data: deposit });
  },
  bearerOrHmac,
);
