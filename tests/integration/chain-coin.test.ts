// The game coin launch steps (lib/launcher/coin-steps.ts, with coin.ts and coin-verify.ts) against the local chain
// started in this file: real Token-2022 with metadata, the atomic initial buy, and re-runs that must never mint or
// buy twice. @solana/web3.js and @solana/spl-token serve only as an independent reading of what the kit-based code
// wrote on chain.
import { generateKeyPairSigner, type KeyPairSigner } from '@solana/kit';
import {
  ExtensionType,
  getAssociatedTokenAddressSync,
  getMetadataPointerState,
  getMintLen,
  getTokenMetadata,
  TOKEN_2022_PROGRAM_ID,
  unpackMint,
} from '@solana/spl-token';
import { type Connection, Keypair, PublicKey, SystemProgram } from '@solana/web3.js';
import { getTransferSolInstruction } from '@solana-program/system';
import bs58 from 'bs58';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createMint } from '../helpers/spl-fixtures.js';
import { localConnection } from '../helpers/web3-connection.js';

const { keypairWalletSigner } = await import('../helpers/keypair-signer.js');
const { budgetOfTransaction, ChainError, decodeWireTransaction, holdersToMap, makeChain, wireTransaction } =
  await import('../../lib/chain/index.js');
const spl = await import('../../lib/chain/spl.js');
const { decodeMint } = await import('../../lib/chain/token.js');
// The game coin, its launch steps and their verification, under one name.
const coin = {
  ...(await import('../../lib/launcher/coin.js')),
  ...(await import('../../lib/launcher/coin-steps.js')),
  ...(await import('../../lib/launcher/coin-verify.js')),
};
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
/** web3.js over the same node: the independent reader. */
let connection: Connection;
const wallets = new Map<string, KeyPairSigner>();
const signer = keypairWalletSigner((userId) => wallets.get(userId));

/** A user with a funded embedded wallet, as the launch endpoint requires. */
const newUser = async (lamports = 2n * SOL) => {
  const { signer: keypair } = await spl.newKeypair();
  const userId = `user-${keypair.address.slice(0, 8)}`;
  wallets.set(userId, keypair);
  if (lamports > 0n) await chain.airdrop(keypair.address, lamports);
  return { userId, wallet: keypair.address };
};

const newLaunch = async (lamports?: bigint) => {
  const user = await newUser(lamports);
  const sealed = await coin.generateLaunchKeys();
  return { ...user, sealed, launch: { userId: user.userId, keys: await coin.openLaunchKeys(sealed) } };
};

const deps = () => ({ chain, signer });

/** An owner's associated Token-2022 account, derived by spl-token. */
const ata2022 = (mint: string, owner: string) =>
  getAssociatedTokenAddressSync(
    new PublicKey(mint),
    new PublicKey(owner),
    true,
    TOKEN_2022_PROGRAM_ID,
  ).toBase58();

/** A mint as spl-token reads it, in the adapter's MintInfo shape. */
const splTokenView = async (mint: string) => {
  const key = new PublicKey(mint);
  const info = await connection.getAccountInfo(key, 'confirmed');
  const parsed = unpackMint(key, info, TOKEN_2022_PROGRAM_ID);
  const pointer = getMetadataPointerState(parsed);
  const metadata = await getTokenMetadata(connection, key, 'confirmed', TOKEN_2022_PROGRAM_ID);
  return {
    decimals: parsed.decimals,
    supply: parsed.supply,
    mintAuthority: parsed.mintAuthority?.toBase58() ?? null,
    freezeAuthority: parsed.freezeAuthority?.toBase58() ?? null,
    metadataPointer: pointer
      ? {
          authority: pointer.authority?.toBase58() ?? null,
          metadataAddress: pointer.metadataAddress?.toBase58() ?? null,
        }
      : null,
    metadata: metadata
      ? {
          name: metadata.name,
          symbol: metadata.symbol,
          uri: metadata.uri,
          updateAuthority: metadata.updateAuthority?.toBase58() ?? null,
          additionalMetadata: metadata.additionalMetadata.map(([k, v]) => [k, v]),
        }
      : null,
  };
};

/** The adapter's reading of a mint (getMint and decodeMint) equals spl-token's. */
const expectSameAsSplToken = async (mint: string) => {
  const expected = await splTokenView(mint);
  expect(await chain.getMint(mint)).toEqual({
    address: mint,
    programId: TOKEN_2022_PROGRAM_ID.toBase58(),
    isToken2022: true,
    ...expected,
  });
  const data = (await chain.getAccountInfo(mint))?.data;
  expect(data && decodeMint(data, true)).toEqual(expected);
};

beforeAll(async () => {
  local = await startLocalChain({ port: 0 });
  chain = makeChain({ rpcUrl: local.url, pollMs: 50 });
  connection = localConnection(local.url);
});

afterAll(async () => {
  await local.stop();
});

describe('keys and addresses', () => {
  it('makes keypairs whose 64-byte secret (seed ‖ public key) opens back to the same signer, as web3.js reads it', async () => {
    const { signer: keypair, secretKey } = await spl.newKeypair();
    expect(secretKey).toHaveLength(64);
    expect(Keypair.fromSecretKey(secretKey).publicKey.toBase58()).toBe(keypair.address);
    expect((await spl.keypairFromSecret(secretKey)).address).toBe(keypair.address);
    expect((await spl.keypairFromSecret(bs58.encode(secretKey))).address).toBe(keypair.address);
    const other = await spl.newKeypair();
    const mismatched = Uint8Array.from([...secretKey.subarray(0, 32), ...other.secretKey.subarray(32)]);
    await expect(spl.keypairFromSecret(mismatched)).rejects.toThrow();
  });

  it('derives token accounts and the initial-buy receipt as spl-token and web3.js do', async () => {
    const [mint, owner] = await Promise.all([generateKeyPairSigner(), generateKeyPairSigner()]);
    expect(await spl.walletTokenAccount(mint.address, owner.address)).toBe(
      ata2022(mint.address, owner.address),
    );
    expect(await spl.vaultTokenAccount(mint.address, owner.address)).toBe(
      ata2022(mint.address, owner.address),
    );
    const receipt = await PublicKey.createWithSeed(
      new PublicKey(owner.address),
      spl.INITIAL_BUY_RECEIPT_SEED,
      SystemProgram.programId,
    );
    expect(await spl.initialBuyReceipt(owner.address)).toBe(receipt.toBase58());
  });

  it('sizes a coin mint as spl-token does: metadata pointer allocated, token metadata on top', () => {
    const sizes = spl.coinMintSizes(METADATA);
    expect(sizes.space).toBe(getMintLen([ExtensionType.MetadataPointer]));
    // The token-metadata TLV entry: header + update authority + mint + three borsh strings + empty vector.
    const strings = [METADATA.name, METADATA.symbol, METADATA.uri].reduce((n, s) => n + 4 + s.length, 0);
    expect(sizes.total).toBe(getMintLen([ExtensionType.MetadataPointer]) + 4 + 32 + 32 + strings + 4);
    // UTF-8 is counted in bytes, not characters.
    expect(spl.coinMintSizes({ ...METADATA, name: 'Café' }).total).toBe(
      sizes.total - METADATA.name.length + 5,
    );
  });
});

describe('game coin launch', () => {
  it('creates the Token-2022 mint with its metadata, readable back over RPC', async () => {
    const { launch } = await newLaunch();
    const started = performance.now();
    const result = await coin.createCoinMint(deps(), launch, METADATA);
    const elapsed = performance.now() - started;
    expect(result.skipped).toBe(false);
    expect(result.signature).toMatch(/^[1-9A-HJ-NP-Za-km-z]{64,88}$/);
    const mintAddress = launch.keys.mint.address;
    const mint = await chain.getMint(mintAddress);
    expect(mint).toMatchObject({
      programId: TOKEN_2022_PROGRAM_ID.toBase58(),
      isToken2022: true,
      decimals: 6,
      supply: 0n,
      mintAuthority: launch.keys.vault.address,
      freezeAuthority: null,
      metadataPointer: { authority: null, metadataAddress: mintAddress },
      metadata: {
        ...METADATA,
        updateAuthority: launch.keys.vault.address,
        additionalMetadata: [],
      },
    });
    // spl-token reads the same mint, pointer and metadata.
    await expectSameAsSplToken(mintAddress);
    // The account grew to exactly coinMintSizes().total and was funded rent-exempt for it.
    const { total } = spl.coinMintSizes(METADATA);
    const account = await chain.getAccountInfo(mintAddress);
    expect(account?.data.length).toBe(total);
    expect(account?.lamports).toBe(await chain.getMinimumBalanceForRentExemption(total));
    // The same metadata through the jsonParsed encoding of the RPC.
    const parsed = await connection.getParsedAccountInfo(new PublicKey(mintAddress));
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
    const mintAddress = launch.keys.mint.address;
    const vaultAta = ata2022(mintAddress, launch.keys.vault.address);
    expect(await chain.getTokenAccountBalance(vaultAta)).toBe(coin.COIN_SUPPLY);
    const mint = await chain.getMint(mintAddress);
    expect(mint).toMatchObject({ supply: coin.COIN_SUPPLY, mintAuthority: null });
    expect(mint?.metadata?.updateAuthority).toBeNull();
    await expectSameAsSplToken(mintAddress);
    const logs = (await chain.getTransactionLogs(result.signature as string)).join('\n');
    expect(logs).toMatch(/Instruction: MintToChecked/);
    expect(logs).toMatch(/Instruction: SetAuthority/);
    expect((await coin.verifyLaunchedCoin(chain, mintAddress, METADATA)).ok).toBe(true);
  });

  it('makes the initial buy atomically: lamports to the vault, quoted tokens to the buyer', async () => {
    const { launch, wallet } = await newLaunch(3n * SOL);
    await coin.createCoinMint(deps(), launch, METADATA);
    await coin.mintCoinSupply(deps(), launch);
    const buyerBefore = await chain.getBalance(wallet);
    const vaultBefore = await chain.getBalance(launch.keys.vault.address);
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
    const mint = launch.keys.mint.address;
    const buyerAta = ata2022(mint, wallet);
    const vaultAta = ata2022(mint, launch.keys.vault.address);
    expect(await chain.getTokenAccountBalance(buyerAta)).toBe(quote.tokensOut);
    expect(await chain.getTokenAccountBalance(vaultAta)).toBe(coin.COIN_SUPPLY - quote.tokensOut);
    expect(await chain.getBalance(launch.keys.vault.address)).toBe(vaultBefore + buyAmount);
    // The buyer paid the buy, the transaction fee and rent for its token account and the buy receipt.
    const rent = (size: number) => chain.getMinimumBalanceForRentExemption(size);
    const ataSize = (await chain.getAccountInfo(buyerAta))?.data.length ?? 0;
    expect(await chain.getBalance(wallet)).toBe(
      buyerBefore - buyAmount - 10_000n - (await rent(ataSize)) - (await rent(spl.RECEIPT_SPACE)),
    );
    expect(holdersToMap(await chain.listTokenHolders(mint))).toEqual(
      new Map([
        [launch.keys.vault.address, coin.COIN_SUPPLY - quote.tokensOut],
        [wallet, quote.tokensOut],
      ]),
    );
    // One transaction did all of it, marked with a memo.
    const [latest] = await chain.findSignatures(buyerAta);
    expect(latest?.signature).toBe(result.signature);
    expect(latest?.memo).toMatch(/arcadia:initial-buy/);
  });

  it('a stranger’s transfer to the receipt neither passes for the buy nor stops it', async () => {
    const { launch, wallet } = await newLaunch(3n * SOL);
    await coin.createCoinMint(deps(), launch, METADATA);
    await coin.mintCoinSupply(deps(), launch);
    // Anybody can fund the receipt's address (it is derived from the public vault address) with any memo.
    const receipt = await spl.initialBuyReceipt(launch.keys.vault.address);
    const { signer: stranger } = await spl.newKeypair();
    await chain.airdrop(stranger.address, SOL);
    await chain.sendAndConfirm({
      feePayer: stranger.address,
      instructions: [
        getTransferSolInstruction({
          source: stranger,
          destination: receipt,
          amount: await chain.getMinimumBalanceForRentExemption(0),
        }),
        spl.memoInstruction(`arcadia:initial-buy mint=${launch.keys.mint.address} lamports=1 tokens=1`),
      ],
    });
    const buy = await coin.initialBuy(deps(), launch, SOL / 2n);
    expect(buy.skipped).toBe(false);
    expect(await chain.getTokenAccountBalance(ata2022(launch.keys.mint.address, wallet))).toBe(buy.tokensOut);
    // Run again, the step finds the buy the vault signed, not the stranger's transfer.
    const again = await coin.initialBuy(deps(), launch, SOL / 2n);
    expect(again).toMatchObject({ skipped: true, signature: buy.signature });
  });

  it('finds the buy the vault signed however many dust transfers land on the receipt after it', async () => {
    const { launch } = await newLaunch(3n * SOL);
    await coin.createCoinMint(deps(), launch, METADATA);
    await coin.mintCoinSupply(deps(), launch);
    const buy = await coin.initialBuy(deps(), launch, SOL / 2n);
    const receipt = await spl.initialBuyReceipt(launch.keys.vault.address);
    const { signer: stranger } = await spl.newKeypair();
    await chain.airdrop(stranger.address, SOL);
    // More dust than a page of the newest signatures: the buy is no longer among them.
    for (let i = 0; i < 30; i++)
      await chain.sendAndConfirm({
        feePayer: stranger.address,
        instructions: [
          getTransferSolInstruction({ source: stranger, destination: receipt, amount: 1n + BigInt(i) }),
        ],
      });
    expect((await chain.findSignatures(receipt, 20)).map((s) => s.signature)).not.toContain(buy.signature);
    // Without the recorded signature (a lost record), the history is read back to the buy.
    expect(await coin.findSignedBy(chain, receipt, launch.keys.vault.address)).toBe(buy.signature);
    expect(await coin.findSignedBy(chain, receipt, launch.keys.vault.address, [null])).toBe(buy.signature);
    // A re-run of the step reports the buy, not a stranger's transfer.
    expect(await coin.initialBuy(deps(), launch, SOL / 2n)).toMatchObject({
      skipped: true,
      signature: buy.signature,
    });
  });

  it('keeps the launch’s largest transaction within a packet with its compute budget, every step carrying one', async () => {
    // The longest metadata a launch can write: a 100-character name of 3-byte characters, a 10-letter symbol
    // and the metadata URL under a long API host.
    const longest = {
      name: '語'.repeat(100),
      symbol: 'W'.repeat(10),
      uri: `https://api.arcadia-games.example.com/games/id/${crypto.randomUUID()}/coin-metadata.json`,
    };
    const { launch } = await newLaunch(3n * SOL);
    const seen: Array<{ bytes: number; budget: ReturnType<typeof budgetOfTransaction> }> = [];
    const recording = {
      ...signer,
      signTransaction: async <T extends Parameters<typeof signer.signTransaction>[1]>(
        userId: string,
        tx: T,
      ) => {
        const signed = await signer.signTransaction(userId, tx);
        seen.push({
          bytes: Buffer.from(wireTransaction(signed), 'base64').length,
          budget: budgetOfTransaction(decodeWireTransaction(wireTransaction(signed))),
        });
        return signed;
      },
    };
    await coin.createCoinMint({ chain, signer: recording }, launch, longest);
    await coin.mintCoinSupply({ chain, signer: recording }, launch);
    await coin.initialBuy({ chain, signer: recording }, launch, SOL / 2n);
    expect(seen).toHaveLength(3);
    for (const { budget } of seen) expect(budget).toMatchObject({ limitSet: true, microLamports: 0n });
    expect(Math.max(...seen.map((s) => s.bytes))).toBeLessThanOrEqual(1232);
    expect((await chain.getMint(launch.keys.mint.address))?.metadata?.name).toBe(longest.name);
  });

  it('re-running every step is a no-op: no second mint, no second buy', async () => {
    const { launch, wallet } = await newLaunch(3n * SOL);
    const mint = launch.keys.mint.address;
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
    expect(await chain.getTokenAccountBalance(ata2022(mint, wallet))).toBe(buy.tokensOut);
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
    expect(await chain.getTokenAccountBalance(ata2022(launch.keys.mint.address, wallet))).toBe(
      results[0]?.tokensOut,
    );
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
    expect(await chain.getTokenAccountBalance(ata2022(launch.keys.mint.address, wallet))).toBe(
      retried.tokensOut,
    );
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
    expect(await chain.getTokenAccountBalance(ata2022(launch.keys.mint.address, wallet))).toBe(
      retried.tokensOut,
    );
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

  it('takes over a mint address a stranger funded (Allocate + Assign, where CreateAccount would fail)', async () => {
    const { launch } = await newLaunch();
    const mint = launch.keys.mint.address;
    await chain.airdrop(mint, 890_880n);
    expect((await chain.getAccountInfo(mint))?.owner).toBe(SystemProgram.programId.toBase58());
    const created = await coin.createCoinMint(deps(), launch, METADATA);
    expect(created.skipped).toBe(false);
    expect(await chain.getMint(mint)).toMatchObject({ isToken2022: true, supply: 0n });
    // The payer added only the rent the address lacked: the mint holds exactly the rent-exempt minimum.
    const rent = await chain.getMinimumBalanceForRentExemption(spl.coinMintSizes(METADATA).total);
    expect((await chain.getAccountInfo(mint))?.lamports).toBe(rent);
    // Once it is a coin mint, a repeated step does nothing.
    expect((await coin.createCoinMint(deps(), launch, METADATA)).skipped).toBe(true);
  });

  it('refuses steps out of order', async () => {
    const { launch } = await newLaunch();
    await expect(coin.mintCoinSupply(deps(), launch)).rejects.toThrow(coin.CoinLaunchError);
    await coin.createCoinMint(deps(), launch, METADATA);
    await expect(coin.initialBuy(deps(), launch, SOL / 10n)).rejects.toThrow(/mint the supply first/);
  });

  it('opens persisted launch keys only when they match their addresses', async () => {
    const sealed = await coin.generateLaunchKeys();
    const keys = await coin.openLaunchKeys(sealed);
    expect(keys.mint.address).toBe(sealed.coinMint);
    expect(keys.vault.address).toBe(sealed.vaultAddress);
    expect(keys.mint.address).not.toBe(keys.vault.address);
    await expect(coin.openLaunchKeys({ ...sealed, coinMint: sealed.vaultAddress })).rejects.toThrow(
      coin.CoinLaunchError,
    );
    await expect(coin.openLaunchKeys({ ...sealed, vaultAddress: sealed.coinMint })).rejects.toThrow(
      coin.CoinLaunchError,
    );
  });
});

describe('verifyLaunchedCoin', () => {
  it('reports each failed check', async () => {
    const missing = await coin.verifyLaunchedCoin(chain, (await generateKeyPairSigner()).address);
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
    const half = await coin.verifyLaunchedCoin(chain, launch.keys.mint.address);
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
    const wrongSymbol = await coin.verifyLaunchedCoin(chain, launch.keys.mint.address, {
      symbol: 'OTHER',
    });
    expect(wrongSymbol.checks.metadata).toBe(false);
    expect(wrongSymbol.problems).toEqual(['Metadata symbol differ from the launch']);

    const payer = await generateKeyPairSigner();
    await chain.airdrop(payer.address, SOL);
    const classic = await createMint(chain, payer);
    const notCoin = await coin.verifyLaunchedCoin(chain, classic);
    expect(notCoin.checks).toMatchObject({ exists: true, token2022: false, metadata: false });
    expect(notCoin.problems).toContain('Mint is not owned by the Token-2022 program');
  });
});
