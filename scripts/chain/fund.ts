// Faucet for local wallets: airdrops SOL from the running local chain (SOLANA_RPC_URL, default
// http://127.0.0.1:8899) and waits for confirmation.
//
//   npm run fund -- <wallet address> <sol>        e.g. npm run fund -- 7xKX…q9 2.5
import { resolve } from 'node:path';
import { address as toAddress } from '@solana/kit';
import { makeChain } from '../../lib/chain/index.js';

const DEFAULT_RPC_URL = 'http://127.0.0.1:8899';

/** Parse a decimal SOL amount ("2.5") into lamports without floating point; throws on anything else. */
export const parseSol = (value: string): bigint => {
  const match = /^(\d+)(?:\.(\d{1,9}))?$/.exec(value.trim());
  if (!match) throw new Error(`Not a SOL amount: ${value}`);
  const lamports = BigInt(match[1] ?? '0') * 1_000_000_000n + BigInt((match[2] ?? '').padEnd(9, '0') || '0');
  if (lamports <= 0n) throw new Error('The amount must be positive');
  return lamports;
};

/** Airdrop `sol` to `wallet` on the local chain at `rpcUrl`; returns the signature and the new balance. */
export const fund = async (
  wallet: string,
  sol: string,
  rpcUrl = process.env.SOLANA_RPC_URL ?? DEFAULT_RPC_URL,
) => {
  const address = toAddress(wallet);
  const chain = makeChain({ rpcUrl });
  const signature = await chain.airdrop(address, parseSol(sol));
  return { signature, balance: await chain.getBalance(address) };
};

const main = async () => {
  const [wallet, sol] = process.argv.slice(2);
  if (!wallet || !sol) {
    console.error('usage: npm run fund -- <wallet address> <sol>');
    process.exit(2);
  }
  const { signature, balance } = await fund(wallet, sol);
  const whole = balance / 1_000_000_000n;
  const frac = (balance % 1_000_000_000n).toString().padStart(9, '0').replace(/0+$/, '');
  console.log(
    `funded ${wallet} with ${sol} SOL (${signature}); balance ${whole}${frac ? `.${frac}` : ''} SOL`,
  );
};

if (process.argv[1] && new URL(import.meta.url).pathname === resolve(process.argv[1])) {
  main().catch((error: unknown) => {
    console.error(error instanceof Error ? error.message : error);
    process.exit(1);
  });
}
