// A stranger holding a wallet's claim hostage, against the local stack and chain. build-transactions is public: a
// stranger can ask for anybody's claim, as often as it likes, with its own blockhash and referrer. Before the fix,
// that build was recorded as the wallet's pending claim and every later build and submit answered it, so a stranger
// rebuilding with a blockhash the chain no longer knows kept the participant from ever landing its claim, and its
// referrer was the one in the participant's memo. Now the platform takes only its own latest blockhash, a pending
// claim nobody sent is replaced by the next build (same number, amount and receipt: only one of them can land), and
// the claim the participant's own submit recorded is answered back, its referrer the participant's.
import { randomBytes } from 'node:crypto';
import { type Base64EncodedWireTransaction, createKeyPairSignerFromBytes } from '@solana/kit';
import { getAssociatedTokenAddressSync, TOKEN_2022_PROGRAM_ID } from '@solana/spl-token';
import { type Keypair, PublicKey, Transaction } from '@solana/web3.js';
import bs58 from 'bs58';
import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import { handler as buildClaimHandler } from '../../functions/snapshots/build-claim-transactions.js';
import { sideEffects as builderDeps } from '../../functions/snapshots/build-snapshots.js';
import { handler as claimStatusHandler } from '../../functions/snapshots/get-claim-status.js';
import { sideEffects as submitDeps } from '../../functions/snapshots/submit-claim.js';
import type { AuthContext } from '../../lib/core/auth.js';
import { buildSnapshot } from '../../lib/snapshots/builder.js';
import { submitClaim } from '../../lib/snapshots/claims/submit.js';
import { getClaimRecord } from '../../lib/snapshots/repository.js';
import { invoke } from '../helpers/http.js';
import { keypairWalletSigner } from '../helpers/keypair-signer.js';
import { launchedCoinWithHolders } from '../helpers/snapshot-coin.js';
import { localConnection } from '../helpers/web3-connection.js';

const SOL = 1_000_000_000n;
const client = localConnection();

type Body<T> = { data: T; error?: { code: string; message: string } };
type Built = {
  transactions: string[];
  amount: string;
  claimNumber: number;
  receiptAddress: string;
  blockhash: string;
  lastValidBlockHeight: number;
  pending: boolean;
};

let coin: Awaited<ReturnType<typeof launchedCoinWithHolders>>;

beforeAll(async () => {
  coin = await launchedCoinWithHolders(3);
  expect((await buildSnapshot(coin.coinMint, builderDeps)).status).toBe('created');
  for (const holder of coin.holders) await coin.chain.airdrop(holder.publicKey.toBase58(), SOL);
}, 120_000);

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
const someAddress = () => bs58.encode(randomBytes(32));

const build = (body: { participant: string; referrer?: string; blockhash?: string }) =>
  invoke<Body<Built>>(buildClaimHandler, {
    method: 'POST',
    path: '/token-launcher/exercise-claim/build-transactions',
    body: { gtokenAddress: coin.coinMint, ...body },
  });

const status = async (wallet: string) =>
  (
    await invoke<Body<{ state: string; claimed: string; signature: string | null }>>(claimStatusHandler, {
      method: 'GET',
      path: `/token-launcher/exercise-claim/${coin.coinMint}/status/${wallet}`,
      pathParameters: { gtokenAddress: coin.coinMint, wallet },
    })
  ).body.data;

const coinBalance = (owner: PublicKey) =>
  coin.chain.getTokenAccountBalance(
    getAssociatedTokenAddressSync(
      new PublicKey(coin.coinMint),
      owner,
      false,
      TOKEN_2022_PROGRAM_ID,
    ).toBase58(),
  );

/** The memo of a landed claim, as the chain indexes it on the claim's receipt. */
const memoOf = async (receipt: string, signature: string) =>
  (await coin.chain.findSignatures(receipt, 100)).find((s) => s.signature === signature)?.memo ?? null;

/**
 * A stranger asking for the victim's claim every `everyMs`, with a blockhash the chain does not know (an old one
 * or any: both fail preflight) and its own referrer, until stopped.
 */
const stranger = (victim: string, everyMs: number) => {
  const referrer = someAddress();
  const answers: Array<{ status: number; sent: string; blockhash?: string; at: number }> = [];
  let running = true;
  const once = async () => {
    const sent = someAddress();
    const res = await build({ participant: victim, referrer, blockhash: sent });
    answers.push({ status: res.status, sent, blockhash: res.body.data?.blockhash, at: Date.now() });
  };
  const first = once();
  const loop = (async () => {
    await first;
    while (running) {
      await sleep(everyMs);
      if (running) await once();
    }
  })();
  return {
    referrer,
    answers,
    started: first,
    stop: async () => {
      running = false;
      await loop;
    },
  };
};
let strangers: Array<ReturnType<typeof stranger>> = [];
afterEach(async () => {
  await Promise.all(strangers.map((s) => s.stop()));
  strangers = [];
});

/** The memo text of a built claim transaction (the Memo program's instruction data). */
const builtMemo = (built: Built) =>
  Transaction.from(Buffer.from(built.transactions[0] as string, 'base64'))
    .instructions.map((ix) => Buffer.from(ix.data).toString('utf8'))
    .find((text) => text.startsWith('arcadia:claim')) ?? null;

/** What a wallet app does with a build: sign, send, wait for it to land. */
const signAndSend = async (built: Built, signer: Keypair) => {
  const tx = Transaction.from(Buffer.from(built.transactions[0] as string, 'base64'));
  tx.partialSign(signer);
  const raw = tx.serialize();
  const signature = await client.sendRawTransaction(raw, { preflightCommitment: 'confirmed' });
  await coin.chain.confirm(
    { signature, lastValidBlockHeight: built.lastValidBlockHeight },
    { raw: raw.toString('base64') as Base64EncodedWireTransaction, timeoutMs: 20_000 },
  );
  return signature;
};

describe('a stranger rebuilding a wallet’s claim with an old blockhash and its own referrer', () => {
  it('cannot stop the participant’s own build from landing, nor set its referrer (external wallet)', async () => {
    const participant = coin.holders[0] as Keypair;
    const wallet = participant.publicKey.toBase58();
    const attacker = stranger(wallet, 750);
    strangers.push(attacker);
    await attacker.started;

    // What a wallet app does: build with its own referrer, let its user approve (a few seconds, while the stranger
    // builds again), sign, send; on a failure build again, a few times.
    const referrer = someAddress();
    const failures: string[] = [];
    let landed: { built: Built; signature: string; builtAt: number } | undefined;
    for (let attempt = 0; attempt < 4 && !landed; attempt++) {
      const built = await build({ participant: wallet, referrer });
      const builtAt = Date.now();
      expect(built.status, JSON.stringify(built.body)).toBe(200);
      await sleep(3_000);
      try {
        const signature = await signAndSend(built.body.data, participant);
        landed = { built: built.body.data, signature, builtAt };
      } catch (error) {
        failures.push(
          `build ${attempt} (pending: ${built.body.data.pending}): ${String(error).slice(0, 160)}`,
        );
        await sleep(1_000);
      }
    }
    await attacker.stop();
    expect(landed, `the participant's claim never landed:\n${failures.join('\n')}`).toBeDefined();
    if (!landed) return;

    // Paid its allocation once, with its own referrer in the memo, although the stranger built the claim again
    // (each time recorded with the platform's blockhash, never the one it sent) between the participant's build
    // and its landing.
    const { built, signature, builtAt } = landed;
    expect(await coinBalance(participant.publicKey)).toBe(BigInt(built.amount));
    const memo = await memoOf(built.receiptAddress, signature);
    expect(memo).toContain(`referrer=${referrer}`);
    expect(memo).not.toContain(attacker.referrer);
    expect(attacker.answers.filter((a) => a.at > builtAt && a.status === 200).length).toBeGreaterThanOrEqual(
      2,
    );
    for (const answer of attacker.answers.filter((a) => a.status === 200))
      expect(answer.blockhash).not.toBe(answer.sent);

    // The ledger counts it once, names the transaction that landed, and nothing more is claimable.
    expect(await status(wallet)).toMatchObject({ state: 'claimed', claimed: built.amount, signature });
    const after = await build({ participant: wallet, referrer: attacker.referrer, blockhash: someAddress() });
    expect(after.status).toBe(409);
    expect(await coinBalance(participant.publicKey)).toBe(BigInt(built.amount));
  }, 120_000);

  it('cannot stop the participant’s submit, nor replace the claim it recorded, nor set its referrer (embedded wallet)', async () => {
    const participant = coin.holders[1] as Keypair;
    const wallet = participant.publicKey.toBase58();
    const keypair = await createKeyPairSignerFromBytes(participant.secretKey);
    const auth: AuthContext = { scheme: 'bearer', userId: 'participant' };
    const attacker = stranger(wallet, 1_500);
    strangers.push(attacker);
    await attacker.started;

    // While the provider signs the participant's submitted claim, the stranger builds again: it gets that claim
    // back (pending), and the record stays the submit's.
    const keypairs = keypairWalletSigner(() => keypair);
    const duringSigning: Array<{ status: number; pending?: boolean }> = [];
    const deps = {
      ...submitDeps,
      loadWallet: async () => ({ id: 'wallet', address: wallet, delegated: true }),
      signer: {
        ...keypairs,
        signTransaction: (async (userId, tx) => {
          const meanwhile = await build({ participant: wallet, referrer: attacker.referrer });
          duringSigning.push({ status: meanwhile.status, pending: meanwhile.body.data?.pending });
          return keypairs.signTransaction(userId, tx);
        }) as typeof keypairs.signTransaction,
      },
      confirmTimeoutMs: 20_000,
    };
    const referrer = someAddress();
    const submitted = await submitClaim(auth, { gtokenAddress: coin.coinMint, referrer }, deps);
    await attacker.stop();

    expect(submitted).toMatchObject({ status: 'confirmed', participant: wallet, claimNumber: 0 });
    expect(await coinBalance(participant.publicKey)).toBe(BigInt(submitted.amount));
    expect(duringSigning).toEqual([{ status: 200, pending: true }]);
    const memo = await memoOf(submitted.receiptAddress, submitted.signature);
    expect(memo).toContain(`referrer=${referrer}`);
    expect(memo).not.toContain(attacker.referrer);
    expect(await getClaimRecord(coin.coinMint, wallet, 0)).toMatchObject({
      status: 'landed',
      signature: submitted.signature,
    });
    expect(await status(wallet)).toMatchObject({ state: 'claimed', claimed: submitted.amount });
    expect((await build({ participant: wallet, referrer: attacker.referrer })).status).toBe(409);
  }, 120_000);

  it('with a current blockhash, cannot choose the referrer of the claim the participant builds and signs', async () => {
    const participant = coin.holders[2] as Keypair;
    const wallet = participant.publicKey.toBase58();
    const theirs = someAddress();
    const planted = await build({ participant: wallet, referrer: theirs });
    expect(planted.status).toBe(200);
    expect(builtMemo(planted.body.data)).toContain(`referrer=${theirs}`);

    // The participant's own build is its own transaction for the same claim, with its own referrer.
    const referrer = someAddress();
    const built = await build({ participant: wallet, referrer });
    expect(built.status).toBe(200);
    expect(built.body.data).toMatchObject({
      claimNumber: planted.body.data.claimNumber,
      amount: planted.body.data.amount,
      receiptAddress: planted.body.data.receiptAddress,
    });
    expect(builtMemo(built.body.data)).toContain(`referrer=${referrer}`);
    const signature = await signAndSend(built.body.data, participant);
    const memo = await memoOf(built.body.data.receiptAddress, signature);
    expect(memo).toContain(`referrer=${referrer}`);
    expect(memo).not.toContain(theirs);
    // The stranger's transaction for the same claim can no longer land (it would need the participant's signature
    // anyway): paid once.
    expect(await coinBalance(participant.publicKey)).toBe(BigInt(built.body.data.amount));
    expect(await status(wallet)).toMatchObject({
      state: 'claimed',
      claimed: built.body.data.amount,
      signature,
    });
  }, 120_000);
});
