// Public surface of the chain adapter: import chain access from here. Functions that only read the chain take
// the reader (`chainReaderFromConfig`); signing and sending (`chainFromConfig`) extend it.
export {
  budgetOfTransaction,
  COMPUTE_BUDGET_PROGRAM_ADDRESS,
  type ComputeBudget,
  feeOf,
  LAMPORTS_PER_SIGNATURE,
  PRIORITY_PERCENTILE,
  priorityPrice,
  withComputeBudget,
} from './budget.js';
export {
  type BudgetOptions,
  type Chain,
  decodeWireTransaction,
  makeChain,
  type SendingTransaction,
  type SendOptions,
  type SentTransaction,
  signPlan,
  type TransactionPlan,
  wireTransaction,
} from './chain.js';
export { chainFromConfig, chainReaderFromConfig } from './config.js';
export { isOnCurve } from './ed25519.js';
export { ChainError, type ChainErrorCode, isTransientChainError, toChainError } from './errors.js';
export { fateOf, type Sighting, signatureFate, statusSighting, type TransactionFate } from './fate.js';
export {
  DEFAULT_HOLDERS_PAGE_SIZE,
  HolderAccumulator,
  HoldersLimitError,
  type HoldersOptions,
  type HoldersSource,
  holdersFromEntries,
  holdersToMap,
  type ListHoldersOptions,
  MAX_HOLDERS_PAGE_SIZE,
  type TokenHolders,
} from './holders.js';
export {
  type AccountInfo,
  type AddressLike,
  type ChainOptions,
  type ChainReader,
  type FeeOptions,
  type LandedTransaction,
  type MintInfo,
  makeChainReader,
  type SignatureInfo,
  type SignatureState,
  type TokenMetadataInfo,
} from './reader.js';
export {
  familyOf,
  type MethodFamily,
  type RateLimitRetry,
  type RpcBudget,
  resetRpcLimiters,
} from './rpc-budget.js';
export {
  address,
  buildCreateCoinMintTx,
  buildInitialBuyTx,
  buildMintSupplyTx,
  type CoinMetadata,
  coinMintSizes,
  externalSigner,
  initialBuyReceipt,
  isUnclaimedSystemAccount,
  type KeyPairSigner,
  keypairFromSecret,
  memoInstruction,
  newKeypair,
  RECEIPT_SPACE,
  receiptUsed,
  TOKEN_2022_PROGRAM_ADDRESS,
  useReceiptInstructions,
  vaultTokenAccount,
} from './spl.js';
export { presentSignatures } from './wire-signatures.js';
