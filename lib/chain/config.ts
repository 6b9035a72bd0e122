import { settings } from '../core/config.js';
import { type Chain, makeChain } from './chain.js';
import { type ChainOptions, type ChainReader, makeChainReader } from './reader.js';

/**
 * SOLANA_RPC_URL, its timeout, how holders are read, the priority-fee cap and source, the plan's request budget;
 * fails fast when not configured.
 */
const chainOptions = (): ChainOptions => {
  const config = settings();
  return {
    rpcUrl: config.SOLANA_RPC_URL,
    requestTimeoutMs: config.SOLANA_RPC_TIMEOUT_MS,
    holders: { source: config.HOLDERS_SOURCE, pageSize: config.HOLDERS_PAGE_SIZE },
    priorityFeeMaxMicroLamports: config.PRIORITY_FEE_MAX_MICROLAMPORTS,
    fees: { source: config.PRIORITY_FEE_SOURCE },
    budget: {
      send: config.SOLANA_RPC_SEND_PER_SECOND,
      scan: config.SOLANA_RPC_SCAN_PER_SECOND,
      read: config.SOLANA_RPC_READ_PER_SECOND,
    },
  };
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
