import * as z from 'zod/mini';
import { loadConfig } from '../config.js';
import { type Chain, makeChain } from './chain.js';

const chainConfigSchema = z.object({
  /** JSON-RPC endpoint: the local chain (`http://127.0.0.1:8899`) or a provider's URL. */
  SOLANA_RPC_URL: z.url({ protocol: /^https?$/ }),
  SOLANA_RPC_TIMEOUT_MS: z._default(z.coerce.number().check(z.int(), z.positive()), 10_000),
});

let cached: Chain | undefined;

/** The chain adapter for SOLANA_RPC_URL, created once per container; fails fast when it is not configured. */
export const chainFromConfig = (): Chain => {
  if (cached) return cached;
  const config = loadConfig(chainConfigSchema);
  cached = makeChain({ rpcUrl: config.SOLANA_RPC_URL, requestTimeoutMs: config.SOLANA_RPC_TIMEOUT_MS });
  return cached;
};
