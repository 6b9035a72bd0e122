// complete-launch's check of a launched coin on chain: the mint exists, is owned by Token-2022 with its metadata,
// holds the fixed supply and its mint authority is revoked.
import { type ChainReader, type CoinMetadata, type MintInfo, address as toAddress } from '../chain/index.js';
import { COIN_SUPPLY } from './coin.js';

/** Outcome of checking a launched coin on chain, for complete-launch. */
export interface CoinVerification {
  ok: boolean;
  coinMint: string;
  checks: {
    exists: boolean;
    token2022: boolean;
    metadata: boolean;
    supply: boolean;
    mintAuthorityRevoked: boolean;
  };
  /** One sentence per failed check. */
  problems: string[];
  /** The mint as read, when it is one. */
  coin: MintInfo | null;
}

/**
 * Check on chain that `coinMint` is a finished game coin: exists, owned by Token-2022, metadata present (and equal
 * to `expected` fields when given), supply = the fixed supply, mint authority revoked. Transient RPC failures
 * throw (ChainTransientError) rather than fail a check.
 */
export const verifyLaunchedCoin = async (
  chain: ChainReader,
  coinMint: string,
  expected: Partial<CoinMetadata> = {},
): Promise<CoinVerification> => {
  const checks = {
    exists: false,
    token2022: false,
    metadata: false,
    supply: false,
    mintAuthorityRevoked: false,
  };
  const problems: string[] = [];
  let address: string;
  try {
    address = toAddress(coinMint);
  } catch {
    return { ok: false, coinMint, checks, problems: ['Not a valid mint address'], coin: null };
  }
  const account = await chain.getAccountInfo(address);
  checks.exists = account !== null;
  const coin = account ? await chain.getMint(address) : null;
  checks.token2022 = coin?.isToken2022 ?? false;
  const metadata = coin?.metadata;
  const mismatched = (['name', 'symbol', 'uri'] as const).filter(
    (field) => expected[field] !== undefined && metadata?.[field] !== expected[field],
  );
  checks.metadata =
    Boolean(metadata) && coin?.metadataPointer?.metadataAddress === coinMint && mismatched.length === 0;
  checks.supply = coin?.supply === COIN_SUPPLY;
  checks.mintAuthorityRevoked = coin !== null && coin.mintAuthority === null;
  if (!checks.exists) problems.push('Mint account does not exist');
  else if (!coin) problems.push('Account is not a token mint');
  else {
    if (!checks.token2022) problems.push('Mint is not owned by the Token-2022 program');
    if (!metadata) problems.push('Mint has no token metadata');
    else if (mismatched.length > 0) problems.push(`Metadata ${mismatched.join(', ')} differ from the launch`);
    else if (!checks.metadata) problems.push('Metadata pointer does not point at the mint');
    if (!checks.supply) problems.push(`Supply is ${coin.supply}, expected ${COIN_SUPPLY}`);
    if (!checks.mintAuthorityRevoked) problems.push('Mint authority is not revoked');
  }
  return { ok: problems.length === 0, coinMint, checks, problems, coin };
};
