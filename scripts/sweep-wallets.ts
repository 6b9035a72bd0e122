// One-off migration (docs/wallets.md, "Migration"): users created before their embedded wallets moved to the
// identity provider still have a platform-generated keypair on their profile. For each one this moves its SOL to
// the user's provider wallet and then forgets the key; a keypair that still holds token balances, or whose user
// has no provider wallet, is reported and kept (never forget a key that controls funds).
//
//   npx tsx scripts/sweep-wallets.ts              dry run: what would move where
//   npx tsx scripts/sweep-wallets.ts --execute    send and retire
//
// Reads the functions' settings from the environment (USERS_TABLE, SECRETS_KEY_SECRET_ID, SOLANA_RPC_URL,
// IDP_API_URL, IDP_APP_ID, IDP_CREDENTIALS_SECRET_ID, IDP_SIGNER_ID). Safe to re-run: a crash after the transfer leaves
// nothing to send (the next run only retires the key); the retirement is conditional on the same sealed key.
import { pathToFileURL } from 'node:url';
import { parseArgs } from 'node:util';
import { address, createSolanaRpc } from '@solana/kit';
import { getTransferSolInstruction } from '@solana-program/system';
import { TOKEN_PROGRAM_ADDRESS } from '@solana-program/token';
import { loadSecretsKey, openSecret } from '../lib/adapters/secrets.js';
import {
  type Chain,
  chainFromConfig,
  keypairFromSecret,
  LAMPORTS_PER_SIGNATURE,
  TOKEN_2022_PROGRAM_ADDRESS,
} from '../lib/chain/index.js';
import { requireSetting } from '../lib/core/config.js';
import { type LegacyWallet, listLegacyWallets, loadWallet, retireLegacyWallet } from '../lib/user/index.js';

const TOKEN_PROGRAMS = [TOKEN_PROGRAM_ADDRESS, TOKEN_2022_PROGRAM_ADDRESS] as const;

export type SweepOutcome =
  | { arcId: string; from: string; status: 'swept'; to: string; lamports: string; signature: string | null }
  | { arcId: string; from: string; status: 'would-sweep'; to: string; lamports: string }
  | { arcId: string; from: string; status: 'kept'; reason: string };

export interface SweepDeps {
  chain: Pick<Chain, 'getBalance' | 'estimateBudget' | 'sendAndConfirm'>;
  /** Token accounts of `owner` with a positive balance (both token programs). */
  tokenBalances(owner: string): Promise<Array<{ account: string; amount: bigint }>>;
  /** The user's embedded wallet at the identity provider. */
  providerWallet(arcId: string): Promise<string | null>;
  now?: () => Date;
}

/** Token accounts with a balance, read over JSON-RPC (amount: u64 at byte 64 of both programs' accounts). */
export const rpcTokenBalances =
  (rpcUrl: string): SweepDeps['tokenBalances'] =>
  async (owner) => {
    const rpc = createSolanaRpc(rpcUrl);
    const found: Array<{ account: string; amount: bigint }> = [];
    for (const programId of TOKEN_PROGRAMS) {
      const { value } = await rpc
        .getTokenAccountsByOwner(address(owner), { programId }, { encoding: 'base64' })
        .send();
      for (const { pubkey, account } of value) {
        const amount = Buffer.from(account.data[0], 'base64').readBigUInt64LE(64);
        if (amount > 0n) found.push({ account: pubkey, amount });
      }
    }
    return found;
  };

const sweepOne = async (legacy: LegacyWallet, execute: boolean, deps: SweepDeps): Promise<SweepOutcome> => {
  const kept = (reason: string): SweepOutcome => ({
    arcId: legacy.arcId,
    from: legacy.address,
    status: 'kept',
    reason,
  });
  const keypair = await keypairFromSecret(openSecret(legacy.sealedSecretKey));
  if (keypair.address !== legacy.address) return kept('the sealed key does not match walletAddress');
  const to = await deps.providerWallet(legacy.arcId);
  if (!to) return kept('the identity provider has no embedded wallet for this user');
  const tokens = await deps.tokenBalances(legacy.address);
  if (tokens.length > 0)
    return kept(`holds token balances (${tokens.map((t) => t.account).join(', ')}): move them first`);
  const balance = await deps.chain.getBalance(legacy.address);
  const sweep = (amount: bigint) => ({
    feePayer: keypair.address,
    instructions: [getTransferSolInstruction({ source: keypair, destination: address(to), amount })],
  });
  // Everything but the fee, so that the account closes at 0 (a smaller remainder would not be rent-exempt): the
  // budget (limit and priority fee, bounded by the balance) comes first, and the transfer takes the rest.
  const budget =
    balance > LAMPORTS_PER_SIGNATURE
      ? await deps.chain.estimateBudget(sweep(balance - LAMPORTS_PER_SIGNATURE), {
          maxFeeLamports: balance - 1n,
        })
      : undefined;
  const lamports = budget ? balance - budget.fee : 0n;
  if (!execute)
    return { arcId: legacy.arcId, from: legacy.address, status: 'would-sweep', to, lamports: `${lamports}` };
  const signature =
    budget && lamports > 0n ? await deps.chain.sendAndConfirm(sweep(lamports), { budget }) : null;
  await retireLegacyWallet(legacy, {
    sweptTo: to,
    signatures: signature ? [signature] : [],
    at: (deps.now?.() ?? new Date()).toISOString(),
  });
  return {
    arcId: legacy.arcId,
    from: legacy.address,
    status: 'swept',
    to,
    lamports: `${lamports}`,
    signature,
  };
};

/** Sweep every legacy keypair (see the file header); one outcome per user. */
export const sweepLegacyWallets = async (options: { execute: boolean }, deps: SweepDeps) => {
  const outcomes: SweepOutcome[] = [];
  // The legacy keys are sealed under the secrets key, read from its secret like a function does.
  await loadSecretsKey();
  for (const legacy of await listLegacyWallets()) {
    try {
      outcomes.push(await sweepOne(legacy, options.execute, deps));
    } catch (error) {
      outcomes.push({
        arcId: legacy.arcId,
        from: legacy.address,
        status: 'kept',
        reason: `failed: ${(error as Error).message}`,
      });
    }
  }
  return outcomes;
};

const main = async () => {
  const { values } = parseArgs({ options: { execute: { type: 'boolean', default: false } } });
  const outcomes = await sweepLegacyWallets(
    { execute: values.execute },
    {
      chain: chainFromConfig(),
      tokenBalances: rpcTokenBalances(requireSetting('SOLANA_RPC_URL')),
      providerWallet: async (arcId) => (await loadWallet(arcId, { fresh: true }))?.address ?? null,
    },
  );
  for (const outcome of outcomes) console.log(JSON.stringify(outcome));
  const kept = outcomes.filter((o) => o.status === 'kept').length;
  console.error(
    `${outcomes.length} legacy wallet(s): ${outcomes.length - kept} ${values.execute ? 'swept' : 'to sweep'}, ${kept} kept`,
  );
  if (kept > 0) process.exitCode = 1;
};

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  main().catch((error: unknown) => {
    console.error(error instanceof Error ? error.message : error);
    process.exit(1);
  });
}
