import * as z from 'zod/mini';
import { loadConfig } from '../core/config.js';
import { type Chain, makeChain } from './chain.js';
import { type ChainOptions, type ChainReader, makeChainReader } from './reader.js';

const chainConfigSchema = z.object({
  /** JSON-RPC endpoint: the local chain (`http://127.0.0.1:8899`) or a provider's URL. */
  SOLANA_RPC_URL: z.url({ protocol: /^https?$/ }),
  SOLANA_RPC_TIMEOUT_MS: z._default(z.coerce.number().check(z.int(), z.positive()), 10_000),
});

/** SOLANA_RPC_URL and its timeout; fails fast when they are not configured. */
const chainOptions = (): ChainOptions => {
  const config = loadConfig(chainConfigSchema);
  return { rpcUrl: config.SOLANA_RPC_URL, requestTimeoutMs: config.SOLANA_RPC_TIMEOUT_MS };
};

let cached: Chain | undefined;
let cachedReader: ChainReader | undefined;

/** The chain adapter for SOLANA_RPC_URL, created once per container; fails fast when it is not configured. */
export const chainFromConfig = (): Chain => {
  cached ??= makeChain(chainOptions());
  return cached;
};

/** The read-only chain adapter for SOLANA_RPC_URL, for functions that never sign or send. */
export const chainReaderFromConfig = (): ChainReader => {
  cachedReader ??= cached ?? makeChainReader(chainOptions());
  return cachedReader;
};
