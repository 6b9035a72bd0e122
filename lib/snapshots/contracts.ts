import * as z from 'zod/mini';
import { defineContract } from '../core/contract.js';
import { dataEnvelope, described, listEnvelope, withMeta } from '../core/schemas.js';
import { decodeAddress } from './allocation.js';

const TAGS = ['Snapshots'];
const PUBLIC = [] as const;

/** A base58 Solana address that decodes to exactly 32 bytes (else 400 VALIDATION_ERROR). */
export const address = (what: string) =>
  described(
    z.string().check(
      z.refine((s) => s.length >= 32 && s.length <= 44 && decodeAddress(s, Buffer.alloc(32)), {
        message: 'must be a base58 Solana address (32 bytes)',
      }),
    ),
    what,
  );

export const amount = z.string().check(z.regex(/^[0-9]+$/));

const RULES =
  '**Snapshots.** A snapshot belongs to a **game coin** (`gtokenAddress`) whose game has an ' +
  '`airdropTokenAddress` (set with `POST /games/update/{gameId}`, HMAC, by the game’s owner, or its creator ' +
  'while nobody has proved its domain). The ' +
  'snapshot endpoints take the **airdrop token mint** as `{tokenMint}` and answer the snapshot of the coin of ' +
  'the game that airdrops it (when several games airdrop the same token: the newest of their snapshots); the ' +
  'game coin mint is an alias and answers the same snapshot. The answer’s `tokenMint` is always the game coin ' +
  'mint. A scheduled job (hourly by default) queues ' +
  'one build per such coin; the builder reads every token account of the airdrop mint in both token programs ' +
  '(classic SPL Token and Token-2022), sums balances per owner wallet and allocates the coin’s airdrop pool:\n\n' +
  '- **Pool** = 10 % of the coin’s supply: `P = floor(supply × 1000 / 10000)` base units (100 000 000 tokens ' +
  'for a standard coin), held by the coin’s custodial distribution vault (the launch vault).\n' +
  '- **Eligible** wallets hold at least **1 whole airdrop token** (10^decimals base units); zero balances and ' +
  'the vault itself are excluded.\n' +
  '- **Pro rata, largest remainder**: `amount = floor(P × b / S)` with `S` = Σ eligible balances; the `P − Σ ' +
  'floors` leftover units go one each to the largest remainders (ties: smaller wallet bytes first), so Σ amounts ' +
  '= P exactly. Wallets whose amount rounds to 0 are left out.\n\n' +
  '**Merkle convention** (Jito merkle-distributor, so proofs verify with its on-chain `new_claim`): leaves sorted ' +
  'ascending by the 32 wallet bytes; `leaf = sha256(0x00 ‖ sha256(wallet(32) ‖ u64le(amount) ‖ u64le(0)))`; ' +
  '`node = sha256(0x01 ‖ min(a,b) ‖ max(a,b))` (byte-wise order); the last node of an odd level is paired with ' +
  'itself; a proof lists the sibling hashes from the leaf up (hex), verified by folding with the same rule until ' +
  'the root.\n\n' +
  '**Versions.** Each build with a different root gets the next `version`; the summary is switched to it ' +
  'atomically (conditional write: a newer slot and version only). Rebuilding an unchanged holder set keeps the ' +
  'version. Objects of a version are immutable.\n\n' +
  '**Auth**: public (everything served is derivable from the public chain); default per-IP rate limit.';

const summarySchema = withMeta(
  z.object({
    tokenMint: described(z.string(), 'Game coin mint'),
    airdropTokenAddress: described(z.string(), 'Airdrop token mint whose holders were read'),
    gameId: z.uuid(),
    merkleRoot: described(z.string(), 'Hex sha256 root (64 chars)'),
    holderCount: described(z.int(), 'Wallets with a positive allocation (= leaves)'),
    totalAllocation: described(amount, 'Σ allocations, game coin base units (= the pool)'),
    version: described(z.int(), 'Snapshot version, +1 per changed root'),
    slot: described(z.int(), 'Chain slot read before the holders'),
    readSlots: described(
      z.optional(z.object({ first: z.int(), last: z.int() })),
      'Context slots of the first and last page of the holder read (the holders are the chain between them; ' +
        'absent on snapshots built before paged reads)',
    ),
    createdAt: described(z.string(), 'ISO 8601 UTC'),
  }),
  { id: 'SnapshotSummary' },
);

const tokenMintParam = address(
  'Airdrop token mint of the game (base58); the game coin mint is accepted as an alias',
);

export const getSnapshotContract = defineContract({
  operationId: 'getSnapshot',
  method: 'GET',
  path: '/token-launcher/snapshot/{tokenMint}',
  tags: TAGS,
  summary: 'Merkle snapshot summary of a game coin’s airdrop',
  description: `${RULES}\n\n404 NOT_FOUND when no game airdropping this token and no coin of this mint has a snapshot yet.`,
  auth: PUBLIC,
  params: z.object({ tokenMint: tokenMintParam }),
  response: dataEnvelope(summarySchema),
  errors: ['VALIDATION_ERROR', 'NOT_FOUND'],
  example: { params: { tokenMint: 'So11111111111111111111111111111111111111112' } },
});

export const getSnapshotProofContract = defineContract({
  operationId: 'getSnapshotProof',
  method: 'GET',
  path: '/token-launcher/snapshot/{tokenMint}/proof/{userAddress}',
  tags: TAGS,
  summary: 'Merkle proof of one wallet’s allocation',
  description:
    'The wallet’s leaf `index`, `amount` (game coin base units, string), `proof` (sibling hashes, hex, leaf to ' +
    'root) and `merkleRoot` of the current snapshot; see getSnapshot for the convention. Served with one S3 ' +
    'ranged read (the bucket of ≤ 1024 leaves is re-hashed and checked against the stored tree). `{tokenMint}` is ' +
    'the airdrop token mint or, as an alias, the game coin mint (see getSnapshot). 404 NOT_FOUND for an unknown ' +
    'mint or a wallet not in the snapshot; 400 VALIDATION_ERROR for a malformed address.',
  auth: PUBLIC,
  params: z.object({ tokenMint: tokenMintParam, userAddress: address('Wallet address (base58)') }),
  response: dataEnvelope(
    withMeta(
      z.object({
        tokenMint: z.string(),
        userAddress: z.string(),
        index: described(z.int(), 'Leaf index (leaves sorted by wallet bytes)'),
        amount: described(amount, 'Allocation, game coin base units'),
        amountLocked: described(amount, 'Always "0" (Jito leaf field)'),
        proof: described(z.array(z.string()), 'Sibling hashes, hex, from the leaf up'),
        merkleRoot: z.string(),
        version: z.int(),
      }),
      { id: 'SnapshotProof' },
    ),
  ),
  errors: ['VALIDATION_ERROR', 'NOT_FOUND'],
  example: {
    params: {
      tokenMint: 'So11111111111111111111111111111111111111112',
      userAddress: '9xQeWvG816bUx9EPjHmaT23yvVM2ZWbrrpZb9PusVFin',
    },
  },
});

export const listSnapshotHoldersContract = defineContract({
  operationId: 'listSnapshotHolders',
  method: 'GET',
  path: '/token-launcher/snapshot/{tokenMint}/holders',
  tags: TAGS,
  summary: 'Holders (leaves) of a snapshot, paginated',
  description:
    'Every wallet of the current snapshot with its leaf `index` and `amount`, in leaf order (ascending wallet ' +
    'bytes). Paginated with `limit` (1–1000, default 100) and `offset` (default 0); `meta.total` is the holder ' +
    'count; a page past the end is empty. One S3 ranged read per page. `{tokenMint}` is the airdrop token mint ' +
    'or, as an alias, the game coin mint (see getSnapshot). 404 NOT_FOUND for a mint without snapshot.',
  auth: PUBLIC,
  params: z.object({ tokenMint: tokenMintParam }),
  query: z.object({
    limit: z._default(z.coerce.number().check(z.int(), z.gte(1), z.lte(1000)), 100),
    offset: z._default(z.coerce.number().check(z.int(), z.gte(0)), 0),
  }),
  response: listEnvelope(
    withMeta(z.object({ index: z.int(), address: z.string(), amount }), { id: 'SnapshotHolder' }),
  ),
  errors: ['VALIDATION_ERROR', 'NOT_FOUND'],
  example: {
    params: { tokenMint: 'So11111111111111111111111111111111111111112' },
    query: { limit: '100', offset: '0' },
  },
});

/** The allocation rules every claim answer follows (also docs/game-coin.md). */
export const ALLOCATION_RULES =
  'A wallet’s **allocation** of a coin is cumulative: the airdrop the coin’s snapshots released to it (the airdrop ' +
  'pool, 10 % of the supply, is released evenly over the emission window; each snapshot releases what became due ' +
  'since the last one to the airdrop-token holders of that moment, pro rata to holdings, so moving tokens moves ' +
  'only later shares) plus its emission of every settled day (the emission pool of 106 900 000 tokens is emitted ' +
  'evenly over `emissionDays` UTC days from the launch day; each day’s share goes to that day’s players pro rata ' +
  'to their counted points, after the day’s settlement). A claim pays everything allocated and not yet claimed; ' +
  'claim again later for the rest.\n\n' +
  '**Claims are the platform’s records.** Before the vault’s signature leaves the platform, the claim is recorded ' +
  'with its number, amount and the exact transaction the vault signed; it counts as landed only when that ' +
  'transaction has used the claim’s receipt account on chain, and it is freed when its blockhash expires unlanded. ' +
  'Every claim transaction takes the platform’s latest blockhash. While a claim can still land, building again ' +
  'gives another transaction for that same claim (same `claimNumber`, `amount` and receipt, so only one of them ' +
  'can land), signed for that caller with its own `referrer`; a claim sent by the wallet’s own ' +
  '`POST /token-launcher/exercise-claim/submit` is answered back instead (`pending: true`) until it lands or ' +
  'expires. So nobody else building a wallet’s claim can stop it or choose its referrer, and nothing anybody else ' +
  'writes on chain (memos, transfers to the receipt or any address) changes what a claim pays or stops it.';

/** What a claim pays and why: build-transactions and submit answer these fields. */
export const claimFields = {
  amount: described(amount, 'Game coin base units this claim pays: allocated − claimedBefore'),
  claimNumber: described(z.int(), 'The wallet’s claim number for this coin (0 = first)'),
  allocated: described(amount, 'Cumulative allocation: airdropAllocation + emissionAllocation'),
  airdropAllocation: described(amount, 'Share in the current snapshot (0 when none)'),
  emissionAllocation: described(amount, 'Σ of the wallet’s emission over the settled days'),
  claimedBefore: described(amount, 'Σ of the wallet’s landed claims before this one'),
  index: described(z.nullable(z.int()), 'Leaf index in the snapshot; null without airdrop share'),
  merkleRoot: described(z.nullable(z.string()), 'Root the airdrop share was verified against'),
  snapshotVersion: z.nullable(z.int()),
  receiptAddress: described(z.string(), 'Claim receipt account the transaction uses (allocates one byte of)'),
};

export const buildClaimTransactionsContract = defineContract({
  operationId: 'buildClaimTransactions',
  method: 'POST',
  path: '/token-launcher/exercise-claim/build-transactions',
  tags: TAGS,
  summary: 'Build the claim transaction of a wallet’s unclaimed allocation (airdrop and emission)',
  description:
    `${ALLOCATION_RULES}\n\n` +
    'Reads the allocation (an airdrop proof is verified against the stored root) and the wallet’s claims, ' +
    'then builds **one transaction** (base64, legacy wire format) with the participant as fee payer, ' +
    '**partially signed by the coin’s custodial distribution vault**; the participant signs and sends it. It:\n' +
    '1. uses the wallet’s claim receipt number `claimNumber`: the participant funds its rent ' +
    '(`SystemProgram.transfer`), then `SystemProgram.allocateWithSeed` (base = vault, seed = `c` + ' +
    'hex(sha256("arcadia-claim-v2:<coin>:<wallet>:<n>"))[0..31], 1 byte, signed by the vault) — allocation ' +
    'fails once the receipt holds data, so of all transactions built for a number only one can land, and a ' +
    'transfer a stranger sends to the receipt blocks nothing;\n' +
    '2. creates the participant’s associated token account idempotently;\n' +
    '3. transfers `amount` (= `allocated` − `claimedBefore`) from the vault’s token account (`TransferChecked`);\n' +
    '4. a Memo `arcadia:claim mint=… claim=<n> amount=… [referrer=…]` (for explorers and referral tracking; never ' +
    'read back).\n\n' +
    'Changing any byte (e.g. the amount) invalidates the vault’s signature. Public: the transaction can only pay ' +
    'the eligible wallet and needs its signature; anybody may build it, so a build never holds the wallet’s ' +
    'claim. The transaction always takes the platform’s latest blockhash (`blockhash` in the body is ignored). ' +
    'While the wallet’s last claim can still land, the answer is another transaction for that same claim ' +
    '(same `claimNumber`, `amount` and `receiptAddress`: whichever of them lands first pays, the others then ' +
    'fail), signed with this request’s `referrer`: sign the one you built; or, when the wallet’s own submit sent ' +
    'that claim, that claim again, `pending: true` (same transaction, amount and expiry). 404 NOT_FOUND: no ' +
    'allocation; 409 CONFLICT: the whole allocation is already claimed; 409 CLAIM_MIGRATION_PENDING: a claim ' +
    'recorded before the claim records is still being verified.',
  auth: PUBLIC,
  body: z.object({
    gtokenAddress: address('Game coin mint address'),
    participant: address('Claimer’s wallet address'),
    referrer: z.optional(
      address('Referrer wallet address, recorded in the memo of the transaction built here'),
    ),
    // Kept so that clients that send it are not refused; a caller's blockhash let anyone record a claim that could
    // never land (one the chain no longer knows), answered back to the wallet for its whole lifetime.
    blockhash: withMeta(z.optional(z.string().check(z.regex(/^[1-9A-HJ-NP-Za-km-z]{32,44}$/))), {
      description:
        'Deprecated, ignored: the transaction always takes the platform’s latest blockhash (the answer’s `blockhash`)',
      deprecated: true,
    }),
  }),
  response: dataEnvelope(
    withMeta(
      z.object({
        transactions: described(
          z.array(z.string()),
          'Base64 serialized transactions, to sign and send in order',
        ),
        ...claimFields,
        blockhash: z.string(),
        lastValidBlockHeight: described(
          z.int(),
          'No transaction built for this claim can land after this block height (this one’s own last valid ' +
            'height, or an earlier build’s of the same claim when that one is later)',
        ),
        pending: described(
          z.boolean(),
          'True when this is the claim the wallet’s own submit sent earlier, which can still land; false for a ' +
            'transaction built by this request',
        ),
      }),
      { id: 'ClaimTransactions' },
    ),
  ),
  errors: ['VALIDATION_ERROR', 'NOT_FOUND', 'CONFLICT', 'CLAIM_MIGRATION_PENDING'],
  example: {
    body: {
      gtokenAddress: 'So11111111111111111111111111111111111111112',
      participant: '9xQeWvG816bUx9EPjHmaT23yvVM2ZWbrrpZb9PusVFin',
    },
  },
});

export const getClaimStatusContract = defineContract({
  operationId: 'getClaimStatus',
  method: 'GET',
  path: '/token-launcher/exercise-claim/{gtokenAddress}/status/{wallet}',
  tags: TAGS,
  summary: 'A wallet’s allocation of a coin: claimable, claimed, and the next settlement',
  description:
    `${ALLOCATION_RULES}\n\n` +
    '`state`: `pending` while the wallet’s last claim can still land (`amount` = its amount; building again ' +
    'builds that same claim); else `claimable` when `claimable` > 0 (`amount` = claimable); else `claimed` when the wallet ' +
    'has landed claims (`amount` = claimed; `claimedAt` and `signature` of its last claim, when known); else ' +
    '`not_eligible`. `canClaim`: state is `pending` or `claimable`. Reading the status settles a pending claim ' +
    'against the chain (landed when its receipt is used, freed once its blockhash expired). `nextSettlement`: ' +
    'the next emission day to settle (`day`), settled after `notBefore` (the end of that UTC day) plus the ' +
    'settlement delay; null once the coin’s emission has ended. Public.',
  auth: PUBLIC,
  params: z.object({
    gtokenAddress: address('Game coin mint address'),
    wallet: address('Wallet address'),
  }),
  response: dataEnvelope(
    withMeta(
      z.object({
        gtokenAddress: z.string(),
        wallet: z.string(),
        canClaim: z.boolean(),
        state: z.enum(['not_eligible', 'claimable', 'pending', 'claimed']),
        amount: described(
          z.nullable(amount),
          'The pending claim’s amount (pending), claimable amount (claimable) or claimed amount (claimed); null ' +
            'when not eligible',
        ),
        allocated: described(amount, 'Cumulative allocation: airdrop + emission'),
        airdropAllocation: described(amount, 'Share in the current snapshot (0 when none)'),
        emissionAllocation: described(amount, 'Σ emission of the settled days'),
        claimed: described(amount, 'Σ of the landed claims'),
        claimable: described(amount, 'What a new claim built now would pay (0 while one is pending)'),
        pending: described(
          z.nullable(
            z.object({
              claimNumber: z.int(),
              amount,
              lastValidBlockHeight: z.int(),
              signature: z.nullable(z.string()),
            }),
          ),
          'The claim that can still land: it lands or is freed once the chain passes `lastValidBlockHeight`',
        ),
        claims: described(z.int(), 'Landed claims'),
        claimedAt: z.nullable(z.string()),
        signature: described(z.optional(z.nullable(z.string())), 'Last claim transaction, when claimed'),
        snapshotVersion: z.nullable(z.int()),
        nextSettlement: described(
          z.nullable(z.object({ day: z.string(), notBefore: z.string(), lastDay: z.string() })),
          'Next emission day to settle, the earliest it settles, and the coin’s last emission day',
        ),
      }),
      { id: 'ClaimStatus' },
    ),
  ),
  errors: ['VALIDATION_ERROR', 'CLAIM_MIGRATION_PENDING'],
  example: {
    params: {
      gtokenAddress: 'So11111111111111111111111111111111111111112',
      wallet: '9xQeWvG816bUx9EPjHmaT23yvVM2ZWbrrpZb9PusVFin',
    },
  },
});

const emissionDaySchema = z.object({
  day: described(z.string(), 'The settled UTC day'),
  index: described(z.int(), 'Its place in the emission (0 for the launch day)'),
  amount: described(amount, 'Coins emitted that day (base units), shared by the day’s players by points'),
  wallets: described(z.int(), 'Wallets that received a share'),
  status: described(z.enum(['pending', 'settled']), '`pending`: frozen, being applied'),
  settledAt: z.nullable(z.string()),
});

export const getCoinEmissionContract = defineContract({
  operationId: 'getCoinEmission',
  method: 'GET',
  path: '/token-launcher/emission/{coinMint}',
  tags: TAGS,
  summary: 'A game coin’s emission so far, day by day',
  description:
    'Each UTC day of the emission that has settled (at most the coin’s `emissionDays`, 7 or 30: one list), with ' +
    'the coins it emitted to the day’s players, and the total emitted of the emission pool. 404 NOT_FOUND for a ' +
    'mint that is no game’s coin.',
  auth: PUBLIC,
  params: z.object({ coinMint: address('The game coin’s mint (base58)') }),
  response: dataEnvelope(
    withMeta(
      z.object({
        coinMint: z.string(),
        gameId: z.string(),
        status: z.string(),
        emissionDays: z.int(),
        emissionStartAt: z.nullable(z.string()),
        poolAmount: described(
          amount,
          'The emission pool: what the coin emits over all its days (base units)',
        ),
        emittedAmount: described(amount, 'Emitted so far (base units)'),
        days: z.array(emissionDaySchema),
      }),
      {
        id: 'CoinEmission',
        examples: [
          {
            coinMint: '9xQeWvG816bUx9EPjHmaT23yvVM2ZWbrrpZb9PusVFin',
            gameId: '6f1d3c1e-2a4b-4c5d-8e9f-0a1b2c3d4e5f',
            status: 'active',
            emissionDays: 7,
            emissionStartAt: '2026-11-20T10:00:00.000Z',
            poolAmount: '106900000000000',
            emittedAmount: '30542857142857',
            days: [
              {
                day: '2026-11-20',
                index: 0,
                amount: '15271428571428',
                wallets: 312,
                status: 'settled',
                settledAt: '2026-11-21T06:00:41.000Z',
              },
              {
                day: '2026-11-21',
                index: 1,
                amount: '15271428571429',
                wallets: 287,
                status: 'settled',
                settledAt: '2026-11-22T06:00:38.000Z',
              },
            ],
          },
        ],
      },
    ),
  ),
  errors: ['VALIDATION_ERROR', 'NOT_FOUND'],
  example: { params: { coinMint: '9xQeWvG816bUx9EPjHmaT23yvVM2ZWbrrpZb9PusVFin' } },
});
