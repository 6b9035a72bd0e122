// Public surface of the chain adapter: import chain access from here.
export {
  type AccountInfo,
  type AddressLike,
  type Chain,
  type ChainOptions,
  type MintInfo,
  makeChain,
  type SendOptions,
  type SentTransaction,
  type SignatureInfo,
  type SignatureState,
  signPlan,
  type TokenMetadataInfo,
  type TransactionPlan,
  wireTransaction,
} from './chain.js';
export { chainFromConfig } from './config.js';
export { ChainError, type ChainErrorCode, isTransientChainError, toChainError } from './errors.js';
