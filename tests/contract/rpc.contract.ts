// The chain adapter (lib/chain) against a real RPC endpoint, so the local chain (scripts/chain) is checked against
// the service it stands for: the holder read of a real mint (both sources when the provider serves V2), the
// priority-fee estimate (recent fees, and the provider's estimate API when it has one), and a transfer sent and
// confirmed on devnet under the plan's send budget. Needs, in the environment:
//   RPC_CONTRACT_URL                   the endpoint (a devnet URL for the send; any cluster for the reads)
//   RPC_CONTRACT_MINT                  a mint with holders on that cluster (default: devnet USDC)
//   RPC_CONTRACT_HOLDERS_SOURCE        `helius` when the provider serves getProgramAccountsV2 and
//                                      getPriorityFeeEstimate (default `rpc`)
//   RPC_CONTRACT_SEND_PER_SECOND       the plan's sendTransaction limit (default 1)
//   RPC_CONTRACT_PAYER_SECRET          optional: a funded devnet keypair (base58 64-byte secret): send and confirm
//                                      are checked too (it sends 1 000 lamports to itself plus the fee)
// and is skipped otherwise.
import { afterAll, describe, expect, it } from 'vitest';
import { type Chain, keypairFromSecret, makeChain, resetRpcLimiters } from '../../lib/chain/index.js';

const env = {
  url: process.env.RPC_CONTRACT_URL ?? '',
  mint: process.env.RPC_CONTRACT_MINT ?? '4zMMC9srt5Ri5X14GAgXhaHii3GnPAEERYPJgZJDncDU',
  source: process.env.RPC_CONTRACT_HOLDERS_SOURCE === 'helius' ? ('helius' as const) : ('rpc' as const),
  sendPerSecond: Number(process.env.RPC_CONTRACT_SEND_PER_SECOND ?? '1'),
  payer: process.env.RPC_CONTRACT_PAYER_SECRET ?? '',
};

describe.skipIf(!env.url)('RPC endpoint contract', () => {
  const chain = (): Chain =>
    makeChain({
      rpcUrl: env.url,
      requestTimeoutMs: 30_000,
      holders: { source: env.source, pageSize: 1_000 },
      fees: { source: env.source === 'helius' ? 'helius' : 'recent' },
      budget: { send: env.sendPerSecond },
    });
  afterAll(() => resetRpcLimiters());

  it('reads the holders of a real mint in pages, from one state (slot range), owners sorted and summed', async () => {
    const rpc = chain();
    const mint = await rpc.getMint(env.mint);
    expect(mint).not.toBeNull();
    const holders = await rpc.listTokenHolders(env.mint, {
      programId: mint?.programId,
      maxAccounts: 2_000_000,
    });
    expect(holders.count).toBeGreaterThan(0);
    expect(holders.pages).toBeGreaterThan(0);
    expect(holders.slots.last).toBeGreaterThanOrEqual(holders.slots.first);
    for (let i = 1; i < holders.count; i++)
      expect(
        Buffer.compare(
          holders.owners.subarray((i - 1) * 32, i * 32),
          holders.owners.subarray(i * 32, i * 32 + 32),
        ),
      ).toBe(-1);
    expect(holders.balances.every((b) => b > 0n)).toBe(true);
  }, 600_000);

  it('estimates a compute budget with a price within the cap', async () => {
    const rpc = chain();
    const payer = env.payer ? await keypairFromSecret(env.payer) : undefined;
    const { getTransferSolInstruction } = await import('@solana-program/system');
    const { generateKeyPairSigner } = await import('@solana/kit');
    const from = payer ?? (await generateKeyPairSigner());
    const budget = await rpc.estimateBudget(
      {
        feePayer: from.address,
        instructions: [
          getTransferSolInstruction({ source: from, destination: from.address, amount: 1_000n }),
        ],
      },
      { fallbackUnits: 1_000 },
    );
    expect(budget.units).toBeGreaterThan(0);
    expect(budget.microLamports).toBeGreaterThanOrEqual(0n);
    expect(budget.microLamports).toBeLessThanOrEqual(1_000_000n);
  }, 60_000);

  it.skipIf(!env.payer)(
    'sends and confirms a transfer on devnet under the plan’s send budget',
    async () => {
      const rpc = chain();
      const payer = await keypairFromSecret(env.payer);
      const { getTransferSolInstruction } = await import('@solana-program/system');
      const before = await rpc.getBalance(payer.address);
      const signatures: string[] = [];
      // Two in a row: the second waits for the plan's next sendTransaction turn instead of drawing a 429.
      for (let i = 0; i < 2; i++)
        signatures.push(
          await rpc.sendAndConfirm(
            {
              feePayer: payer.address,
              instructions: [
                getTransferSolInstruction({ source: payer, destination: payer.address, amount: 1_000n }),
              ],
            },
            { timeoutMs: 90_000 },
          ),
        );
      for (const signature of signatures)
        expect(await rpc.getSignatureStatus(signature)).toMatchObject({
          status: expect.stringMatching(/confirmed|finalized/),
        });
      expect(await rpc.getBalance(payer.address)).toBeLessThan(before);
    },
    240_000,
  );
});
