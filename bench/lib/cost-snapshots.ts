// The cost bench's snapshot and claim operations: a launched coin whose airdrop token has `holders` wallets, one
// snapshot build (the queue consumer, per holder) and one claim (building the claim transaction, the player's
// wallet co-signing and sending it, and the status read that sees it land).
import { randomUUID } from 'node:crypto';
import { Transaction } from '@solana/web3.js';

interface Measured {
  name: string;
  per: number;
  lambdas: number;
  memoryMb: number;
  apiRequests: number;
  sqsMessages: number;
  note: string;
}
type Measure = (m: Measured, run: () => Promise<unknown>) => Promise<void>;
type Invoke = (
  handler: (event: never, context: never) => Promise<unknown>,
  input: { method: string; path: string; body?: unknown; pathParameters?: Record<string, string> },
) => Promise<{ status: number; text: string; body: unknown }>;

export const measureSnapshotAndClaim = async (measure: Measure, invoke: Invoke, holderCount: number) => {
  const { launchedCoinWithHolders } = await import('../../tests/helpers/snapshot-coin.js');
  const build = await import('../../functions/snapshots/build-snapshots.js');
  const claim = await import('../../functions/snapshots/build-claim-transactions.js');
  const claimStatus = await import('../../functions/snapshots/get-claim-status.js');
  const { chain, coinMint, holders } = await launchedCoinWithHolders(holderCount);

  await measure(
    {
      name: 'snapshot build, per holder',
      per: holderCount,
      lambdas: 1,
      memoryMb: 2048,
      apiRequests: 0,
      sqsMessages: 1,
      note: `a build of ${holderCount} holders (S3 objects not priced: ~$0.005 per 1,000 PUTs)`,
    },
    async () => {
      const out = (await build.handler({
        Records: [
          {
            messageId: randomUUID(),
            body: JSON.stringify({ coinMint }),
            attributes: {},
            eventSource: 'aws:sqs',
          },
        ],
      } as never)) as { batchItemFailures?: unknown[] };
      if (out.batchItemFailures?.length) throw new Error('snapshot build failed');
    },
  );

  const holder = holders[holders.length - 1];
  if (!holder) throw new Error('no holders');
  const wallet = holder.publicKey.toBase58();
  await chain.airdrop(wallet, 1_000_000_000n);
  await measure(
    {
      name: 'claim',
      per: 1,
      lambdas: 2,
      memoryMb: 512,
      apiRequests: 2,
      sqsMessages: 0,
      note: 'build the claim, the wallet co-signs and sends it, one status read',
    },
    async () => {
      const res = await invoke(claim.handler, {
        method: 'POST',
        path: '/token-launcher/exercise-claim/build-transactions',
        body: { gtokenAddress: coinMint, participant: wallet },
      });
      if (res.status !== 200) throw new Error(`claim build answered ${res.status}: ${res.text}`);
      const built = (res.body as { data: { transactions: string[]; lastValidBlockHeight: number } }).data;
      const tx = Transaction.from(Buffer.from(built.transactions[0] ?? '', 'base64'));
      tx.partialSign(holder);
      const raw = tx.serialize().toString('base64');
      const sent = await fetch(process.env.SOLANA_RPC_URL ?? '', {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({
          jsonrpc: '2.0',
          id: 1,
          method: 'sendTransaction',
          params: [raw, { encoding: 'base64' }],
        }),
      });
      const signature = ((await sent.json()) as { result?: string }).result;
      if (!signature) throw new Error('claim not sent');
      await chain.confirm(
        { signature: signature as never, lastValidBlockHeight: built.lastValidBlockHeight },
        { raw: raw as never, timeoutMs: 20_000 },
      );
      const status = await invoke(claimStatus.handler, {
        method: 'GET',
        path: `/token-launcher/exercise-claim/${coinMint}/status/${wallet}`,
        pathParameters: { gtokenAddress: coinMint, wallet },
      });
      if (status.status !== 200) throw new Error(`claim status answered ${status.status}`);
    },
  );
};
