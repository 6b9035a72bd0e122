// The game coin launch steps (lib/launcher/coin) against the local chain started in this file: real
// Token-2022 with metadata, the atomic initial buy, and re-runs that must never mint or buy twice.
import {
  createInitializeMintInstruction,
  getAssociatedTokenAddressSync,
  MINT_SIZE,
  TOKEN_2022_PROGRAM_ID,
  TOKEN_PROGRAM_ID,
} from '@solana/spl-token';
import { Keypair, SystemProgram, Transaction } from '@solana/web3.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

process.env.SECRETS_ENCRYPTION_KEY ??= Buffer.alloc(32, 7).toString('base64');

const { sealSecret } = await import('../../lib/adapters/secrets.js');
const { makeLocalWalletSigner } = await import('../../lib/adapters/wallet-signer.js');
const { ChainError, makeChain } = await import('../../lib/chain/index.js');
const coin = await import('../../lib/launcher/coin.js');
const { INITIAL_CURVE, quoteBuy } = await import('../../lib/launcher/curve.js');
const { startLocalChain } = await import('../../scripts/chain/rpc-server.js');

const SOL = 1_000_000_000n;
const METADATA = {
  name: 'Space Invaders',
  symbol: 'SPAINV',
  uri: 'https://arcadia.example/coins/spainv.json',
};

let local: Awaited<ReturnType<typeof startLocalChain>>;
let chain: ReturnType<typeof makeChain>;
const wallets = new Map<string, { address: string; sealedSecretKey: string }>();
const signer = makeLocalWalletSigner(async (userId) => wallets.get(userId) ?? null);

/** A user with a funded embedded wallet, as the launch endpoint requires. */
const newUser = async (lamports = 2n * SOL) => {
  const keypair = Keypair.generate();
  const userId = `user-${keypair.publicKey.toBase58().slice(0, 8)}`;
  wallets.set(userId, {
    address: keypair.publicKey.toBase58(),
    sealedSecretKey: sealSecret(Buffer.from(keypair.secretKey)),
  });
  if (lamports > 0n) await chain.airdrop(keypair.publicKey, lamports);
  return { userId, wallet: keypair.publicKey };
};

const newLaunch = async (lamports?: bigint) => {
  const user = await newUser(lamports);
  const sealed = coin.generateLaunchKeys();
  return { ...user, sealed, launch: { userId: user.userId, keys: coin.openLaunchKeys(sealed) } };
};

const deps = () => ({ chain, signer });

beforeAll(async () => {
  local = await startLocalChain({ port: 0 });
  chain = makeChain({ rpcUrl: local.url, pollMs: 50 });
});

afterAll(async () => {
  await local.stop();
});

describe('game coin launch', () => {
  it('creates the Token-2022 mint with its metadata, readable back over RPC', async () => {
    const { launch } = await newLaunch();
    const started = performance.now();
    const result = await coin.createCoinMint(deps(), launch, METADATA);
    const elapsed = performance.now() - started;
    expect(result.skipped).toBe(false);
    expect(result.signature).toMatch(/^[1-9A-HJ-NP-Za-km-z]{64,88}$/);
    const mint = await chain.getMint(launch.keys.mint.publicKey);
    expect(mint).toMatchObject({
      programId: TOKEN_2022_PROGRAM_ID.toBase58(),
      isToken2022: true,
      decimals: 6,
      supply: 0n,
      mintAuthority: launch.keys.vault.publicKey.toBase58(),
      freezeAuthority: null,
      metadataPointer: { authority: null, metadataAddress: launch.keys.mint.publicKey.toBase58() },
      metadata: {
        ...METADATA,
        updateAuthority: launch.keys.vault.publicKey.toBase58(),
        additionalMetadata: [],
      },
    });
    // The same metadata through the jsonParsed encoding of the RPC.
    const parsed = await chain.connection.getParsedAccountInfo(launch.keys.mint.publicKey);
    const data = parsed.value?.data as
      | { parsed: { info: { extensions: Array<{ extension: string; state: unknown }> } } }
      | undefined;
    const extensions = data?.parsed.info.extensions ?? [];
    expect(extensions.find((e) => e.extension === 'tokenMetadata')?.state).toMatchObject(METADATA);
    expect(elapsed).toBeLessThan(5000);
  });

  it('mints the fixed supply into the vault and revokes the mint authority in one transaction', async () => {
    const { launch } = await newLaunch();
    await coin.createCoinMint(deps(), launch, METADATA);
    const result = await coin.mintCoinSupply(deps(), launch);
    expect(result.skipped).toBe(false);
    const vaultAta = getAssociatedTokenAddressSync(
      launch.keys.mint.publicKey,
      launch.keys.vault.publicKey,
      false,
      TOKEN_2022_PROGRAM_ID,
    );
    expect(await chain.getTokenAccountBalance(vaultAta)).toBe(coin.COIN_SUPPLY);
    const mint = await chain.getMint(launch.keys.mint.publicKey);
    expect(mint).toMatchObject({ supply: coin.COIN_SUPPLY, mintAuthority: null });
    expect(mint?.metadata?.updateAuthority).toBeNull();
    const tx = await chain.connection.getTransaction(result.signature as string, {
      maxSupportedTransactionVersion: 0,
    });
    const logs = tx?.meta?.logMessages?.join('\n') ?? '';
    expect(logs).toMatch(/Instruction: MintToChecked/);
    expect(logs).toMatch(/Instruction: SetAuthority/);
    expect((await coin.verifyLaunchedCoin(chain, launch.keys.mint.publicKey.toBase58(), METADATA)).ok).toBe(
      true,
    );
  });

  it('makes the initial buy atomically: lamports to the vault, quoted tokens to the buyer', async () => {
    const { launch, wallet } = await newLaunch(3n * SOL);
    await coin.createCoinMint(deps(), launch, METADATA);
    await coin.mintCoinSupply(deps(), launch);
    const buyerBefore = await chain.getBalance(wallet);
    const vaultBefore = await chain.getBalance(launch.keys.vault.publicKey);
    const buyAmount = 1n * SOL;
    const quote = quoteBuy(INITIAL_CURVE, buyAmount);
    const result = await coin.initialBuy(deps(), launch, buyAmount);
    expect(result).toMatchObject({
      skipped: false,
      tokensOut: quote.tokensOut,
      fee: quote.fee,
      lamportsIn: buyAmount,
    });
    expect(result.newState).toEqual(quote.newState);
    const mint = launch.keys.mint.publicKey;
    const buyerAta = getAssociatedTokenAddressSync(mint, wallet, false, TOKEN_2022_PROGRAM_ID);
    const vaultAta = getAssociatedTokenAddressSync(
      mint,
      launch.keys.vault.publicKey,
      false,
      TOKEN_2022_PROGRAM_ID,
    );
    expect(await chain.getTokenAccountBalance(buyerAta)).toBe(quote.tokensOut);
    expect(await chain.getTokenAccountBalance(vaultAta)).toBe(coin.COIN_SUPPLY - quote.tokensOut);
    expect(await chain.getBalance(launch.keys.vault.publicKey)).toBe(vaultBefore + buyAmount);
    // The buyer paid the buy, the transaction fee and rent for its token account and the buy receipt.
    const rent = (size: number) => chain.getMinimumBalanceForRentExemption(size);
    const ataSize = (await chain.getAccountInfo(buyerAta))?.data.length ?? 0;
    expect(await chain.getBalance(wallet)).toBe(
      buyerBefore - buyAmount - 10_000n - (await rent(ataSize)) - (await rent(0)),
    );
    expect(await chain.listTokenHolders(mint)).toEqual(
      new Map([
        [launch.keys.vault.publicKey.toBase58(), coin.COIN_SUPPLY - quote.tokensOut],
        [wallet.toBase58(), quote.tokensOut],
      ]),
    );
    // One transaction did all of it, marked with a memo.
    const [latest] = await chain.findSignatures(buyerAta);
    expect(latest?.signature).toBe(result.signature);
    expect(latest?.memo).toMatch(/arcadia:initial-buy/);
  });

  it('re-running every step is a no-op: no second mint, no second buy', async () => {
    const { launch, wallet } = await newLaunch(3n * SOL);
    const mint = launch.keys.mint.publicKey;
    await coin.createCoinMint(deps(), launch, METADATA);
    await coin.mintCoinSupply(deps(), launch);
    const buy = await coin.initialBuy(deps(), launch, SOL / 2n);
    const mintHistory = (await chain.findSignatures(mint, 100)).length;
    const buyerLamports = await chain.getBalance(wallet);

    const again = [
      await coin.createCoinMint(deps(), launch, METADATA),
      await coin.mintCoinSupply(deps(), launch),
      await coin.initialBuy(deps(), launch, SOL / 2n),
    ];
    expect(again.map((r) => r.skipped)).toEqual([true, true, true]);
    expect(again[2]?.signature).toBe(buy.signature);
    expect((await chain.findSignatures(mint, 100)).length).toBe(mintHistory);
    expect(await chain.getBalance(wallet)).toBe(buyerLamports);
    expect((await chain.getMint(mint))?.supply).toBe(coin.COIN_SUPPLY);
    const buyerAta = getAssociatedTokenAddressSync(mint, wallet, false, TOKEN_2022_PROGRAM_ID);
    expect(await chain.getTokenAccountBalance(buyerAta)).toBe(buy.tokensOut);
  });

  it('lets only one of two concurrent initial buys land', async () => {
    const { launch, wallet } = await newLaunch(3n * SOL);
    await coin.createCoinMint(deps(), launch, METADATA);
    await coin.mintCoinSupply(deps(), launch);
    const results = await Promise.all([
      coin.initialBuy(deps(), launch, SOL / 4n),
      coin.initialBuy(deps(), launch, SOL / 4n),
    ]);
    expect(new Set(results.map((r) => r.signature)).size).toBe(1);
    const buyerAta = getAssociatedTokenAddressSync(
      launch.keys.mint.publicKey,
      wallet,
      false,
      TOKEN_2022_PROGRAM_ID,
    );
    expect(await chain.getTokenAccountBalance(buyerAta)).toBe(results[0]?.tokensOut);
  });

  it('resumes after a confirmation timeout without buying twice', async () => {
    const { launch, wallet } = await newLaunch(3n * SOL);
    await coin.createCoinMint(deps(), launch, METADATA);
    await coin.mintCoinSupply(deps(), launch);
    // The buy lands, but every status poll fails until the step's deadline: the step cannot tell.
    local.injectFault({ method: 'getSignatureStatuses', status: 503, times: 1000 });
    const sent: string[] = [];
    const first = await coin
      .initialBuy(deps(), launch, SOL / 2n, {
        timeoutMs: 400,
        onSent: ({ signature }) => void sent.push(signature),
      })
      .catch((e: unknown) => e);
    local.clearFaults();
    expect(first).toBeInstanceOf(ChainError);
    expect((first as InstanceType<typeof ChainError>).name).toBe('ChainTransientError');
    const retried = await coin.initialBuy(deps(), launch, SOL / 2n);
    expect(retried.skipped).toBe(true);
    expect(retried.signature).toBe(sent[0]);
    const buyerAta = getAssociatedTokenAddressSync(
      launch.keys.mint.publicKey,
      wallet,
      false,
      TOKEN_2022_PROGRAM_ID,
    );
    expect(await chain.getTokenAccountBalance(buyerAta)).toBe(retried.tokensOut);
  });

  it('resends after a lost transaction whose blockhash expired, buying once', async () => {
    const { launch, wallet } = await newLaunch(3n * SOL);
    await coin.createCoinMint(deps(), launch, METADATA);
    await coin.mintCoinSupply(deps(), launch);
    local.injectFault({ method: 'sendTransaction', drop: true, times: 1000 });
    const pending = coin.initialBuy(deps(), launch, SOL / 2n, { timeoutMs: 5000 }).catch((e: unknown) => e);
    await new Promise((r) => setTimeout(r, 200));
    local.ledger.advance(151);
    const lost = await pending;
    local.clearFaults();
    expect((lost as InstanceType<typeof ChainError>).code).toBe('BLOCKHASH_EXPIRED');
    const retried = await coin.initialBuy(deps(), launch, SOL / 2n);
    expect(retried.skipped).toBe(false);
    const buyerAta = getAssociatedTokenAddressSync(
      launch.keys.mint.publicKey,
      wallet,
      false,
      TOKEN_2022_PROGRAM_ID,
    );
    expect(await chain.getTokenAccountBalance(buyerAta)).toBe(retried.tokensOut);
  });

  it('fails a buy the wallet cannot afford with the program logs, and a later retry still works', async () => {
    const { launch, wallet } = await newLaunch(SOL / 10n);
    await coin.createCoinMint(deps(), launch, METADATA);
    await coin.mintCoinSupply(deps(), launch);
    const error = await coin.initialBuy(deps(), launch, SOL).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ChainError);
    const chainError = error as InstanceType<typeof ChainError>;
    expect(chainError).toMatchObject({ name: 'ChainError', transient: false, code: 'SIMULATION_FAILED' });
    expect(chainError.logs.join('\n')).toMatch(/insufficient lamports/);
    await chain.airdrop(wallet, 2n * SOL);
    expect((await coin.initialBuy(deps(), launch, SOL)).skipped).toBe(false);
  });

  it('refuses steps out of order', async () => {
    const { launch } = await newLaunch();
    await expect(coin.mintCoinSupply(deps(), launch)).rejects.toThrow(coin.CoinLaunchError);
    await coin.createCoinMint(deps(), launch, METADATA);
    await expect(coin.initialBuy(deps(), launch, SOL / 10n)).rejects.toThrow(/mint the supply first/);
  });

  it('opens persisted launch keys only when they match their addresses', () => {
    const sealed = coin.generateLaunchKeys();
    const keys = coin.openLaunchKeys(sealed);
    expect(keys.mint.publicKey.toBase58()).toBe(sealed.mintAddress);
    expect(keys.vault.publicKey.toBase58()).toBe(sealed.vaultAddress);
    expect(() => coin.openLaunchKeys({ ...sealed, mintAddress: sealed.vaultAddress })).toThrow(
      coin.CoinLaunchError,
    );
  });
});

describe('verifyLaunchedCoin', () => {
  it('reports each failed check', async () => {
    const missing = await coin.verifyLaunchedCoin(chain, Keypair.generate().publicKey.toBase58());
    expect(missing).toMatchObject({
      ok: false,
      checks: { exists: false },
      problems: ['Mint account does not exist'],
    });
    expect((await coin.verifyLaunchedCoin(chain, 'not-an-address')).problems).toEqual([
      'Not a valid mint address',
    ]);

    const { launch } = await newLaunch();
    await coin.createCoinMint(deps(), launch, METADATA);
    const half = await coin.verifyLaunchedCoin(chain, launch.keys.mint.publicKey.toBase58());
    expect(half.checks).toEqual({
      exists: true,
      token2022: true,
      metadata: true,
      supply: false,
      mintAuthorityRevoked: false,
    });
    expect(half.problems).toEqual([
      `Supply is 0, expected ${coin.COIN_SUPPLY}`,
      'Mint authority is not revoked',
    ]);
    await coin.mintCoinSupply(deps(), launch);
    const wrongSymbol = await coin.verifyLaunchedCoin(chain, launch.keys.mint.publicKey.toBase58(), {
      symbol: 'OTHER',
    });
    expect(wrongSymbol.checks.metadata).toBe(false);
    expect(wrongSymbol.problems).toEqual(['Metadata symbol differ from the launch']);

    const payer = Keypair.generate();
    await chain.airdrop(payer.publicKey, SOL);
    const classic = Keypair.generate();
    await chain.sendAndConfirm(
      new Transaction().add(
        SystemProgram.createAccount({
          fromPubkey: payer.publicKey,
          newAccountPubkey: classic.publicKey,
          space: MINT_SIZE,
          lamports: Number(await chain.getMinimumBalanceForRentExemption(MINT_SIZE)),
          programId: TOKEN_PROGRAM_ID,
        }),
        createInitializeMintInstruction(classic.publicKey, 6, payer.publicKey, null, TOKEN_PROGRAM_ID),
      ),
      [payer, classic],
    );
    const notCoin = await coin.verifyLaunchedCoin(chain, classic.publicKey.toBase58());
    expect(notCoin.checks).toMatchObject({ exists: true, token2022: false, metadata: false });
    expect(notCoin.problems).toContain('Mint is not owned by the Token-2022 program');
  });
});
