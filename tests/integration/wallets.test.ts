// Embedded wallets belong to the identity provider (issue 21, SPEC §5, DESIGN §5), against the local stack: a
// user funds the address the local provider shows them and launches a coin and buys a multiplier; every
// transaction their wallet signs went through the provider's signing endpoint (counted there and on chain);
// revoking delegation makes the next launch, purchase and claim a 403 with nothing sent; a user without an embedded
// wallet gets a 400; identifier-created users get a provider wallet; no table holds a user secret key.
import { randomUUID } from 'node:crypto';
import { GetCommand } from '@aws-sdk/lib-dynamodb';
import { getAssociatedTokenAddressSync, TOKEN_2022_PROGRAM_ID } from '@solana/spl-token';
import { PublicKey } from '@solana/web3.js';
import { describe, expect, it } from 'vitest';
import { handler as getJobHandler } from '../../functions/launcher/get-launch-job.js';
import { handler as launchHandler } from '../../functions/launcher/launch-game-coin.js';
import { handler as purchaseHandler } from '../../functions/rewards/purchase-multiplier.js';
import { handler as submitClaimHandler } from '../../functions/snapshots/submit-claim.js';
import { handler as getMeHandler } from '../../functions/user/get-me.js';
import { dynamo } from '../../lib/adapters/dynamodb.js';
import { makeChain } from '../../lib/chain/index.js';
import { coinEmissionDeps, settleCoinEmission } from '../../lib/snapshots/index.js';
import { configuredDirectory, resolveIdentifiers } from '../../lib/user/index.js';
import { userKeys } from '../../lib/user/keys.js';
import { getUser } from '../../lib/user/repository.js';
import { loadWallet, walletAddresses } from '../../lib/user/wallet.js';
import { fetchLocalToken } from '../../scripts/token.js';
import { registerGame } from '../helpers/games.js';
import { invoke } from '../helpers/http.js';
import { providerUser, providerWallet, providerWalletAddresses, setDelegation } from '../helpers/idp.js';
import { PLATFORM_KEY_ATTRIBUTES, scanTablesForKeys } from '../helpers/secret-scan.js';
import { createDeveloper } from '../helpers/users.js';
import { localConnection } from '../helpers/web3-connection.js';

// The launch function's own setting (serverless.yml gives it to that function only).
process.env.LAUNCH_STATE_MACHINE_ARN =
  'arn:aws:states:us-east-1:000000000000:stateMachine:arcadia-dev-launch';
process.env.PUBLIC_API_URL ??= process.env.API_BASE_URL;

const SOL = 1_000_000_000n;
const chain = makeChain({ rpcUrl: process.env.SOLANA_RPC_URL ?? '', pollMs: 50 });
/** An independent reader of the chain (web3.js), for what was signed by whom. */
const connection = localConnection();

type ErrorBody = { error: { code: string; message: string } };
type Me = { data: { arcId: string; walletAddress: string | null; walletDelegated: boolean } };

/** The provider wallet mirrored in a user's profile (read straight from the table). */
const mirrored = async (arcId: string) =>
  (await dynamo().send(new GetCommand({ TableName: process.env.USERS_TABLE, Key: userKeys.profile(arcId) })))
    .Item;
const mirroredAddress = async (arcId: string) => (await mirrored(arcId))?.providerWalletAddress;

const bearer = (token: string) => ({ authorization: `Bearer ${token}` });

const signIn = async (name: string, options: { embeddedWallet?: boolean } = {}) =>
  fetchLocalToken(name, process.env.IDP_URL ?? '', undefined, options);

const getMe = (token: string) =>
  invoke<Me & ErrorBody>(getMeHandler, { method: 'GET', path: '/user/me', headers: bearer(token) });

const launch = (token: string, gameId: string, buyAmount = '10000000') =>
  invoke<{ data: { jobId: string } } & ErrorBody>(launchHandler, {
    method: 'POST',
    path: '/token-launcher/launch',
    headers: bearer(token),
    body: { gameId, emissionDays: 7, buyAmount },
  });

const purchase = (token: string, gameId: string) =>
  invoke<{ data: { status: string; fromWallet: string; signature: string | null } } & ErrorBody>(
    purchaseHandler,
    {
      method: 'POST',
      path: '/multiplier/purchase',
      headers: bearer(token),
      body: { gameId, tier: '2x', durationSeconds: 3_600, idempotencyKey: randomUUID() },
    },
  );

const claim = (token: string, gtokenAddress: string) =>
  invoke<
    {
      data: { status: string; signature: string; participant: string; amount: string; claimNumber: number };
    } & ErrorBody
  >(submitClaimHandler, {
    method: 'POST',
    path: '/token-launcher/exercise-claim/submit',
    headers: bearer(token),
    body: { gtokenAddress },
  });

/** Poll the launch job until it ends, within a deadline. */
const finished = async (jobId: string, deadlineMs = 150_000) => {
  const started = Date.now();
  for (;;) {
    const res = await invoke<{ data: { status: string; error?: string; gtokenAddress?: string } }>(
      getJobHandler,
      { method: 'GET', path: `/token-launcher/launch/${jobId}`, pathParameters: { jobId } },
    );
    if (res.body.data.status === 'completed' || res.body.data.status === 'failed') return res.body.data;
    if (Date.now() - started > deadlineMs) throw new Error(`job ${jobId} still ${res.body.data.status}`);
    await new Promise((resolve) => setTimeout(resolve, 250));
  }
};

/** Transactions on chain that `wallet` signed (it is among the message's signers), from an independent reader. */
const signedOnChainBy = async (wallet: string) => {
  const signatures = await connection.getSignaturesForAddress(new PublicKey(wallet));
  const signed: string[] = [];
  for (const { signature } of signatures) {
    const tx = await connection.getParsedTransaction(signature, { maxSupportedTransactionVersion: 0 });
    if (tx?.transaction.message.accountKeys.some((k) => k.signer && k.pubkey.toBase58() === wallet))
      signed.push(signature);
  }
  return signed;
};

/** A user signed in at the provider, with an API key (to register games) and a game of their own. */
const newUser = async () => {
  const name = `wallet-${randomUUID().slice(0, 8)}`;
  const dev = await createDeveloper(name);
  const { token } = await signIn(name);
  return { name, subject: `did:local:${name}`, dev, token, game: await registerGame(dev) };
};

describe('embedded wallets held by the identity provider', () => {
  let alice: Awaited<ReturnType<typeof newUser>>;
  let wallet: string;
  let coinMint: string;

  it('GET /user/me shows the wallet the provider created and its delegation flag', async () => {
    alice = await newUser();
    const shown = await providerUser(alice.subject);
    expect(shown.walletAddress).toMatch(/^[1-9A-HJ-NP-Za-km-z]{32,44}$/);
    expect(shown.delegated).toBe(true);
    wallet = shown.walletAddress ?? '';
    const me = await getMe(alice.token);
    expect(me.status).toBe(200);
    expect(me.body.data).toMatchObject({ walletAddress: wallet, walletDelegated: true });
  });

  it('a user who funds that address launches a coin and buys a multiplier; the provider signed every transaction', async () => {
    await chain.airdrop(wallet, 3n * SOL);
    const queued = await launch(alice.token, alice.game.id);
    expect(queued.status, queued.text).toBe(200);
    const job = await finished(queued.body.data.jobId);
    expect(job.status, job.error).toBe('completed');
    coinMint = job.gtokenAddress ?? '';

    const bought = await purchase(alice.token, alice.game.id);
    expect([200, 202], bought.text).toContain(bought.status);
    expect(bought.body.data.fromWallet).toBe(wallet);

    // Mint + supply + initial buy, then the multiplier transfer: four transactions paid by the user's wallet.
    const onChain = await signedOnChainBy(wallet);
    const counted = await providerWallet(wallet);
    expect(onChain).toHaveLength(4);
    expect(counted).toMatchObject({ delegated: true, signed: onChain.length, signRequests: onChain.length });
  }, 300_000);

  it('after the user revokes delegation, launch and purchase are 403 WALLET_DELEGATION_REQUIRED and nothing is sent', async () => {
    const before = {
      counted: await providerWallet(wallet),
      balance: await chain.getBalance(wallet),
      onChain: (await signedOnChainBy(wallet)).length,
    };
    await setDelegation(alice.subject, false);
    const other = await registerGame(alice.dev);

    const launched = await launch(alice.token, other.id);
    expect(launched.status).toBe(403);
    expect(launched.body.error.code).toBe('WALLET_DELEGATION_REQUIRED');
    expect(launched.body.error.message).toContain(wallet);
    const bought = await purchase(alice.token, other.id);
    expect(bought.status).toBe(403);
    expect(bought.body.error.code).toBe('WALLET_DELEGATION_REQUIRED');

    expect(await providerWallet(wallet)).toMatchObject({
      delegated: false,
      signRequests: before.counted.signRequests,
      signed: before.counted.signed,
    });
    expect(await chain.getBalance(wallet)).toBe(before.balance);
    expect((await signedOnChainBy(wallet)).length).toBe(before.onChain);
    expect((await getMe(alice.token)).body.data.walletDelegated).toBe(false);

    // Granted again, the next launch goes through.
    await setDelegation(alice.subject, true);
    const again = await launch(alice.token, other.id);
    expect(again.status, again.text).toBe(200);
    expect((await finished(again.body.data.jobId)).status).toBe('completed');
  }, 300_000);

  it('claims her coin emission through the provider (POST /token-launcher/exercise-claim/submit); revoked → 403, nothing sent', async () => {
    // Day 0 of her coin's emission settles with her as the only player: the whole day's share is hers.
    const today = new Date().toISOString().slice(0, 10);
    const emitted = await settleCoinEmission(
      { gameId: alice.game.id, day: today, players: [{ userId: alice.dev.arcId, wallet, points: 100 }] },
      coinEmissionDeps(),
    );
    expect(emitted.status).toBe('settled');
    const share = BigInt(emitted.tokensEmitted);
    expect(share).toBeGreaterThan(0n);
    const ata = getAssociatedTokenAddressSync(
      new PublicKey(coinMint),
      new PublicKey(wallet),
      false,
      TOKEN_2022_PROGRAM_ID,
    );
    const held = async () =>
      BigInt((await connection.getTokenAccountBalance(ata).catch(() => null))?.value.amount ?? '0');
    const start = { tokens: await held(), counted: await providerWallet(wallet) };

    await setDelegation(alice.subject, false);
    const refused = await claim(alice.token, coinMint);
    expect(refused.status, refused.text).toBe(403);
    expect(refused.body.error.code).toBe('WALLET_DELEGATION_REQUIRED');
    expect(await providerWallet(wallet)).toMatchObject({ signRequests: start.counted.signRequests });
    expect(await held()).toBe(start.tokens);

    await setDelegation(alice.subject, true);
    const claimed = await claim(alice.token, coinMint);
    expect(claimed.status, claimed.text).toBe(200);
    expect(claimed.body.data).toMatchObject({
      status: 'confirmed',
      participant: wallet,
      amount: share.toString(),
      claimNumber: 0,
    });
    expect(await held()).toBe(start.tokens + share);
    expect(await providerWallet(wallet)).toMatchObject({
      signRequests: start.counted.signRequests + 1,
      signed: start.counted.signed + 1,
    });
    const tx = await connection.getParsedTransaction(claimed.body.data.signature, {
      maxSupportedTransactionVersion: 0,
    });
    expect(tx?.transaction.message.accountKeys[0]?.pubkey.toBase58()).toBe(wallet); // her wallet paid the fee

    // Everything allocated is claimed: a repeat is a 409 and signs nothing.
    const repeat = await claim(alice.token, coinMint);
    expect(repeat.status, repeat.text).toBe(409);
    expect(await providerWallet(wallet)).toMatchObject({ signRequests: start.counted.signRequests + 1 });
    // Another user has no allocation of this coin: 404.
    const bob = await newUser();
    const none = await claim(bob.token, coinMint);
    expect(none.status, none.text).toBe(404);
    expect((await claim(alice.token, 'not-a-mint')).status).toBe(400);

    // With an allocation but an unfunded wallet: 400 INSUFFICIENT_BALANCE, nothing signed.
    const bobWallet = (await providerUser(bob.subject)).walletAddress ?? '';
    const tomorrow = new Date(Date.now() + 86_400_000).toISOString().slice(0, 10);
    const bobDay = await settleCoinEmission(
      {
        gameId: alice.game.id,
        day: tomorrow,
        players: [{ userId: bob.dev.arcId, wallet: bobWallet, points: 5 }],
      },
      coinEmissionDeps(),
    );
    expect(bobDay.status).toBe('settled');
    const poor = await claim(bob.token, coinMint);
    expect(poor.status, poor.text).toBe(400);
    expect(poor.body.error.code).toBe('INSUFFICIENT_BALANCE');
    expect(await providerWallet(bobWallet)).toMatchObject({ signRequests: 0 });

    // No bearer token: 401.
    const anonymous = await invoke<ErrorBody>(submitClaimHandler, {
      method: 'POST',
      path: '/token-launcher/exercise-claim/submit',
      body: { gtokenAddress: coinMint },
    });
    expect(anonymous.status).toBe(401);
    expect(anonymous.body.error.code).toBe('UNAUTHORIZED');
  }, 300_000);

  it('a user without an embedded wallet gets 400 NO_EMBEDDED_WALLET on launch, purchase and claim', async () => {
    const name = `nowallet-${randomUUID().slice(0, 8)}`;
    const dev = await createDeveloper(name);
    const { token, walletAddress } = await signIn(name, { embeddedWallet: false });
    expect(walletAddress).toBeNull();
    const game = await registerGame(dev);
    for (const res of [
      await launch(token, game.id),
      await purchase(token, game.id),
      await claim(token, 'So11111111111111111111111111111111111111112'),
    ]) {
      expect(res.status, res.text).toBe(400);
      expect(res.body.error.code).toBe('NO_EMBEDDED_WALLET');
    }
    expect((await getMe(token)).body.data).toMatchObject({ walletAddress: null, walletDelegated: false });
  });

  it('users created from an email or a did get their embedded wallet from the provider; an X handle nobody signed in with stays unimported', async () => {
    const tag = randomUUID().slice(0, 8);
    const raws = [`email:payee-${tag}@example.com`, `did:local:payee-${tag}`];
    const mapping = await resolveIdentifiers([...raws, `x:payee_${tag}`], {
      directory: configuredDirectory(),
    });
    for (const raw of raws) {
      const arcId = mapping[raw] ?? '';
      const subject = (await getUser(arcId))?.subject ?? '';
      const atProvider = await providerUser(subject);
      expect(atProvider.walletAddress, raw).toMatch(/^[1-9A-HJ-NP-Za-km-z]{32,44}$/);
      // Created users (email) have the address the creation answered mirrored from creation on.
      if (!raw.startsWith('did:'))
        expect(await mirrored(arcId), raw).toMatchObject({
          providerWalletAddress: atProvider.walletAddress,
          providerWalletId: atProvider.walletId,
        });
      expect((await loadWallet(arcId))?.address, raw).toBe(atProvider.walletAddress);
    }
    // The provider links an X account by its numeric subject, which a handle does not give: an Arc user
    // without a provider user and without a wallet until it signs in.
    const xUser = await getUser(mapping[`x:payee_${tag}`] ?? '');
    expect(xUser?.subject ?? null).toBeNull();
    expect(await loadWallet(xUser?.arcId ?? '')).toBeNull();
    // The settlement reads a board's wallets in one batch: the provider's addresses, mirrored in the profiles
    // (a public address only; a user without a wallet is left out).
    const arcIds = raws.map((raw) => mapping[raw] ?? '');
    const { arcId: walletless } = await createDeveloper(`nowallet-${tag}`);
    await signIn(`nowallet-${tag}`, { embeddedWallet: false });
    const addresses = await walletAddresses([...arcIds, walletless]);
    expect(addresses.has(walletless)).toBe(false);
    for (const arcId of arcIds) {
      const profile = await getUser(arcId);
      const atProvider = await providerUser(profile?.subject ?? '');
      expect(addresses.get(arcId)).toBe(atProvider.walletAddress);
      expect(await mirroredAddress(arcId)).toBe(atProvider.walletAddress);
    }
  });

  it('no table holds a user secret key (every table scanned after the flows above)', async () => {
    const userWallets = new Set(await providerWalletAddresses());
    expect(userWallets.has(wallet)).toBe(true);
    // Profiles planted with a legacy keypair by sweep-wallets.test.ts (the migration's input) may be seen mid-run.
    const found = (await scanTablesForKeys(userWallets)).filter(
      (k) => !k.subject?.startsWith('did:local:legacy-'),
    );
    // Only the platform's own custodial keys are stored, and none of them is a user's wallet.
    expect(found.filter((k) => !PLATFORM_KEY_ATTRIBUTES.has(k.attribute))).toEqual([]);
    expect(found.filter((k) => userWallets.has(k.address))).toEqual([]);
    expect(found.length).toBeGreaterThan(0); // the launch vault keys are found: the scan does decode sealed keys
  }, 300_000);
});
