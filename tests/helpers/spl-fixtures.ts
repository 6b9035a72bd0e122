// SPL fixtures on a chain reached through the chain adapter: mints and plain (non-associated) token accounts,
// built with @solana/kit and the official program clients, for SPL Token or Token-2022.
import { type Address, generateKeyPairSigner, type Instruction, type TransactionSigner } from '@solana/kit';
import { getCreateAccountInstruction } from '@solana-program/system';
import {
  getInitializeAccount3Instruction,
  getInitializeMintInstruction,
  getMintSize,
  getTokenSize,
  TOKEN_PROGRAM_ADDRESS,
} from '@solana-program/token';
import type { Chain } from '../../lib/chain/index.js';

/**
 * One transaction paid by `payer`: a rent-exempt account of `space` bytes at a fresh keypair address, owned by
 * `programAddress`, then the instruction `initialize` makes for it. Returns the account's address.
 */
const createProgramAccount = async (
  chain: Chain,
  payer: TransactionSigner,
  space: number,
  programAddress: Address,
  initialize: (account: Address) => Instruction,
): Promise<Address> => {
  const account = await generateKeyPairSigner();
  await chain.sendAndConfirm({
    feePayer: payer.address,
    instructions: [
      getCreateAccountInstruction({
        payer,
        newAccount: account,
        space,
        lamports: await chain.getMinimumBalanceForRentExemption(space),
        programAddress,
      }),
      initialize(account.address),
    ],
  });
  return account.address;
};

/**
 * A new mint without freeze authority, funded by `payer`: SPL Token unless `programAddress` says otherwise
 * (Token-2022), 6 decimals and `payer` as mint authority by default.
 */
export const createMint = (
  chain: Chain,
  payer: TransactionSigner,
  options: { programAddress?: Address; decimals?: number; mintAuthority?: Address } = {},
): Promise<Address> => {
  const { programAddress = TOKEN_PROGRAM_ADDRESS, decimals = 6, mintAuthority = payer.address } = options;
  return createProgramAccount(chain, payer, getMintSize(), programAddress, (mint) =>
    getInitializeMintInstruction(
      { mint, decimals, mintAuthority, freezeAuthority: null },
      { programAddress },
    ),
  );
};

/**
 * A new, empty token account of `owner` for `mint` at a fresh keypair address (not the associated one, so an
 * owner can hold several), funded by `payer`; `programAddress` is the mint's token program (SPL Token by default).
 */
export const createTokenAccount = (
  chain: Chain,
  payer: TransactionSigner,
  options: { mint: Address; owner: Address; programAddress?: Address },
): Promise<Address> => {
  const { mint, owner, programAddress = TOKEN_PROGRAM_ADDRESS } = options;
  return createProgramAccount(chain, payer, getTokenSize(), programAddress, (account) =>
    getInitializeAccount3Instruction({ account, mint, owner }, { programAddress }),
  );
};
