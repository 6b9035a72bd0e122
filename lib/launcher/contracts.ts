import * as z from 'zod/mini';
import { defineContract } from '../core/contract.js';
import { dataEnvelope, described, withMeta } from '../core/schemas.js';
import { EMISSION_DAYS, JOB_STATUSES } from './model.js';

const BEARER = ['bearer'] as const;
const TAGS = ['Launcher'];

const mintAddress = described(
  z.string().check(z.regex(/^[1-9A-HJ-NP-Za-km-z]{32,44}$/, 'must be a base58 Solana address')),
  'Game coin mint address (base58)',
);

const LAUNCH_RULES =
  'Queues a game coin launch for a game; the launch runs asynchronously as a job (poll ' +
  '`GET /token-launcher/launch/{jobId}` every 2–5 s; a launch typically completes within 15 s locally, ~30 s on ' +
  'a public cluster).\n\n' +
  '**Rules, checked in this order** (the first that fails answers):\n' +
  '1. `emissionDays` must be 7 or 30 (else 400 VALIDATION_ERROR naming the allowed values 7, 30); ' +
  '`buyAmount` is a string of integer lamports (1 SOL = 1 000 000 000) large enough to buy at least one token ' +
  'base unit; `gameCoinSymbol`, when given, is 2–10 characters A–Z 0–9 after trimming and upper-casing ' +
  '(400 VALIDATION_ERROR).\n' +
  '2. The game must exist (404 NOT_FOUND).\n' +
  '3. A launch already in progress for this game (by anyone) answers **200 with that job** and ' +
  '`alreadyInProgress: true`; no second job is created. Concurrent calls for one game create exactly one job ' +
  '(conditional write on a per-game launch lock).\n' +
  '4. One game coin may be active per game: while its status is `active` (until its last emission day is ' +
  'settled), 400 ACTIVE_GAME_COIN.\n' +
  '5. **Grace period**: for 48 hours after the previous coin ended (status `ended`; its `emissionEndAt` is then ' +
  'when its last emission day settled), only the game’s owner (the user who last proved its domain with POST ' +
  '/games/claim-ownership/{gameId}) or, when nobody has, its creator may launch the next coin; anyone else, a ' +
  'creator whose listing another user proved included, gets 403 GRACE_PERIOD_RESTRICTED. After 48 hours any ' +
  'authenticated user may launch.\n' +
  '6. **Embedded wallet**: the caller’s wallet is the one the identity provider created for them (GET ' +
  '/user/me shows it); none is 400 NO_EMBEDDED_WALLET, and delegated signing must be enabled for the app at ' +
  'the provider, else 403 WALLET_DELEGATION_REQUIRED (checked before anything is sent on chain). ' +
  '**Fee reserve**: the caller’s embedded wallet must hold at least 0.07 SOL (70 000 000 lamports) for rent ' +
  'and fees plus `buyAmount` (else 400 INSUFFICIENT_BALANCE). A launch actually spends about 0.0095 SOL plus ' +
  '`buyAmount`; the rest stays in the wallet.\n' +
  '7. The symbol must be unique across the platform: a custom `gameCoinSymbol` already reserved or used by ' +
  'another coin is 400 **VALIDATION_ERROR** (detail path `gameCoinSymbol`; 409 CONFLICT is reserved for ' +
  'concurrent-update races). Without a custom symbol one is generated from the game name and the next free ' +
  'alternative is taken when it is used (e.g. SPAINV, then SPAIN2…).\n\n' +
  '**The coin**: a Token-2022 mint with on-mint metadata (name = game name, symbol, uri = the game’s ' +
  '`coin-metadata.json`), 6 decimals, a fixed supply of 1 000 000 000 tokens minted once into a **custodial launch vault held ' +
  'by the platform**, mint and metadata authorities revoked.\n\n' +
  '**Emission**: of the 206 900 000 tokens the curve does not sell, 100 000 000 are the airdrop pool (holders of ' +
  'the game’s `airdropTokenAddress`, by snapshot) and 106 900 000 the emission pool, emitted evenly over ' +
  '`emissionDays` UTC days from the launch day: each day’s share goes, at that day’s settlement, to the day’s ' +
  'players pro rata to their counted points (a day without players rolls its share into the next). Players ' +
  'claim their cumulative allocation through `POST /token-launcher/exercise-claim/build-transactions`. The ' +
  'coin’s `status` is `active` until its last emission day is settled, then `ended`.\n\n' +
  '**Bonding curve**: constant product over virtual reserves (pump.fun’s public parameters): virtual SOL ' +
  '30 SOL, virtual tokens 1 073 000 000, real (sellable) tokens 793 100 000, fee 1 % of the SOL side rounded ' +
  'up. A buy of L lamports yields `vT − ⌈vS·vT / (vS + L − fee)⌉` token base units; every rounding favours the ' +
  'pool. The optional initial buy moves `buyAmount` lamports from the caller’s wallet to the vault and the ' +
  'quoted tokens to the caller in one atomic transaction (e.g. 1 SOL buys 34 277 831.558567 tokens).';

export const launchGameCoinContract = defineContract({
  operationId: 'launchGameCoin',
  method: 'POST',
  path: '/token-launcher/launch',
  tags: TAGS,
  summary: 'Launch a game coin (asynchronous job)',
  description: LAUNCH_RULES,
  auth: BEARER,
  body: z.object({
    gameId: described(z.uuid(), 'Game to launch the coin for'),
    emissionDays: described(
      withMeta(z.number(), { enum: [...EMISSION_DAYS] }),
      'Emission period in days: 7 or 30',
    ),
    buyAmount: described(
      z.optional(
        z
          .string()
          .check(z.regex(/^[1-9][0-9]{0,18}$/, 'must be a positive integer number of lamports, as a string')),
      ),
      'Initial buy in lamports (string; 1 SOL = 1000000000), at launch price on the bonding curve',
    ),
    gameCoinSymbol: described(
      z.optional(z.nullable(z.string().check(z.maxLength(64)))),
      'Custom ticker, 2–10 characters A–Z 0–9, unique; generated from the game name when absent',
    ),
  }),
  response: dataEnvelope(
    z.object({
      jobId: described(z.uuid(), 'Poll GET /token-launcher/launch/{jobId}'),
      status: z.enum(JOB_STATUSES),
      progress: z.int(),
      message: z.string(),
      alreadyInProgress: described(
        z.boolean(),
        'True when a launch for this game was already in progress: this is its job',
      ),
    }),
  ),
  errors: [
    'VALIDATION_ERROR',
    'NOT_FOUND',
    'ACTIVE_GAME_COIN',
    'GRACE_PERIOD_RESTRICTED',
    'INSUFFICIENT_BALANCE',
    'NO_EMBEDDED_WALLET',
    'WALLET_DELEGATION_REQUIRED',
  ],
  example: {
    body: {
      gameId: '6f1d3c1e-2a4b-4c5d-8e9f-0a1b2c3d4e5f',
      emissionDays: 7,
      buyAmount: '100000000',
      gameCoinSymbol: 'SPAINV',
    },
  },
});

const jobBase = {
  jobId: z.uuid(),
  gameId: z.uuid(),
  message: described(z.string(), 'Human-readable status'),
};

export const launchJobSchema = withMeta(
  z.discriminatedUnion('status', [
    withMeta(
      z.object({
        ...jobBase,
        status: z.literal('completed'),
        progress: z.literal(100),
        bundleTx: described(
          z.string(),
          'Signature of the launch’s final transaction: the initial buy, or — without a buy — the ' +
            'transaction that minted the supply and revoked the authorities',
        ),
        gtokenAddress: described(z.string(), 'Mint address of the game coin'),
      }),
      { id: 'LaunchJobCompleted' },
    ),
    withMeta(
      z.object({
        ...jobBase,
        status: z.enum(['waiting', 'active']),
        progress: described(
          z.int().check(z.gte(0), z.lte(100)),
          '0 queued, then 10, 50, 80 as stages finish',
        ),
      }),
      { id: 'LaunchJobInProgress' },
    ),
    withMeta(
      z.object({
        ...jobBase,
        status: z.literal('failed'),
        progress: described(z.int().check(z.gte(0), z.lte(100)), 'Progress reached before the failure'),
        error: described(z.string(), 'What went wrong, in plain words'),
      }),
      { id: 'LaunchJobFailed' },
    ),
  ]),
  { id: 'LaunchJob' },
);
export type LaunchJobView = z.input<typeof launchJobSchema>;

export const getLaunchJobContract = defineContract({
  operationId: 'getLaunchJob',
  method: 'GET',
  path: '/token-launcher/launch/{jobId}',
  tags: TAGS,
  summary: 'Status of a launch job',
  description:
    'Public: the job id is an unguessable random UUID returned only to the launcher (or to whoever asks to ' +
    'launch the same game while it is in progress), and the job holds nothing private — no user, wallet or ' +
    'key material. Three shapes by `status`:\n' +
    '- `waiting` / `active` (in progress): `progress` 0 → 10 (coin address reserved, balance re-checked) → 50 ' +
    '(mint with metadata created, fixed supply minted into the vault, authorities revoked) → 80 (initial buy done, ' +
    'or skipped without `buyAmount`) and `message`;\n' +
    '- `completed`: `progress` 100, `gtokenAddress`, `bundleTx` (the initial buy’s signature, or without a buy ' +
    'the supply transaction’s) and `message`;\n' +
    '- `failed`: the `progress` reached, `message` and a human-readable `error`. Every stage retries transient ' +
    'chain/RPC failures with exponential backoff and jitter before giving up; a failed launch releases the game ' +
    'and the symbol so it can be launched again. No stage ever mints or buys twice.',
  auth: [],
  params: z.object({ jobId: z.uuid() }),
  response: dataEnvelope(launchJobSchema),
  errors: ['NOT_FOUND'],
  example: { params: { jobId: '0d9e4f0a-3b7c-4c1e-9a55-7f3b2d1c6e8a' } },
});

export const completeLaunchContract = defineContract({
  operationId: 'completeLaunch',
  method: 'POST',
  path: '/token-launcher/complete-launch',
  tags: TAGS,
  summary: 'Verify a launched coin on chain and record it',
  description:
    'The launch job calls this use case as its last stage; the user who started the launch may also call it, ' +
    'while that launch is the game’s launch in progress (not after it failed, nor once another launch took the ' +
    'game), under the rules of a launch (no other active coin; in the grace period, the game’s owner only). It ' +
    'checks on chain that the mint exists, belongs to ' +
    'Token-2022, carries the launch’s metadata (pointer to itself), holds exactly the fixed supply with the mint ' +
    'authority revoked, and — when the launch asked for one — that the initial buy landed. Then, in one ' +
    'transaction, it creates the coin record, links the coin to its game, sets the game’s coin summary (status ' +
    '`active`; emission days are the `emissionDays` UTC days from today, `emissionEndAt` the midnight after the ' +
    'last), marks the job completed and frees the game for its next launch once the coin has ended (its last ' +
    'emission day settled) and the grace period allows.\n\n' +
    'Outcomes: **success** (200, `alreadyCompleted: false`); **already completed** (200, `alreadyCompleted: ' +
    'true`, same body: the call is idempotent); **failure** (400 VALIDATION_ERROR whose `details` list every ' +
    'reason, e.g. not a mint launched here, supply not minted, initial buy missing); 403 FORBIDDEN for anyone ' +
    'but the launch’s user; 409 CONFLICT when the launch failed or is no longer the game’s launch in progress; ' +
    'ACTIVE_GAME_COIN and GRACE_PERIOD_RESTRICTED as for a launch.',
  auth: BEARER,
  body: z.object({ gtokenAddress: mintAddress }),
  response: dataEnvelope(
    z.object({
      alreadyCompleted: z.boolean(),
      jobId: z.uuid(),
      gameId: z.uuid(),
      gtokenAddress: z.string(),
      bundleTx: z.string(),
      coin: withMeta(
        z.object({
          gtokenAddress: z.string(),
          gameCoinSymbol: z.string(),
          emissionDays: z.int(),
          status: described(
            z.string(),
            '`active` until its last emission day is settled, then `ended` (48-hour creator grace follows)',
          ),
          emissionStartAt: z.string(),
          emissionEndAt: described(
            z.string(),
            'Active: the midnight after the last emission day. Ended: when the last day settled',
          ),
        }),
        { id: 'GameCoin' },
      ),
    }),
  ),
  errors: ['VALIDATION_ERROR', 'ACTIVE_GAME_COIN', 'FORBIDDEN', 'GRACE_PERIOD_RESTRICTED', 'CONFLICT'],
  example: { body: { gtokenAddress: 'So11111111111111111111111111111111111111112' } },
});
