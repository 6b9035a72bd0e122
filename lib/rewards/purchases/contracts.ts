// POST /multiplier/purchase: its contract, with the purchase rules in order and the purchase as answered.
import * as z from 'zod/mini';
import { defineContract } from '../../core/contract.js';
import { dataEnvelope, described, withMeta } from '../../core/schemas.js';
import { ALLOWANCE_RULE } from '../allowances/contracts.js';
import { EXAMPLE_GAME, gameId, lamports, MODEL, PLAYER, TAGS, tier, usd } from '../contracts.js';
import { DURATIONS, PURCHASE_FEE_RESERVE } from '../model.js';

const duration = described(
  withMeta(
    z
      .int()
      .check(z.refine((v) => (DURATIONS as readonly number[]).includes(v), 'must be 3600, 21600 or 86400')),
    { enum: [...DURATIONS] },
  ),
  'Window length in seconds: 3600 (1 h), 21600 (6 h) or 86400 (24 h)',
);

const PURCHASE_RULES =
  `${MODEL}\n\n${ALLOWANCE_RULE}\n\n**Purchase, in order**: (1) the game must exist (404); (2) a retry with an ` +
  '`idempotencyKey` the caller used before replays that purchase at its first price (never charges twice: a stored ' +
  'transfer signature is looked up on chain first, and a new transfer is sent only when the first provably cannot ' +
  'land); the same key with a different game, tier or duration is 409 CONFLICT; (3) the price is quoted again and ' +
  'must not exceed `maxLamports` (400 VALIDATION_ERROR), and a SOL price must be at hand for its USD record (503 ' +
  'PRICE_UNAVAILABLE with Retry-After when every price feed has failed for a while; nothing is charged); (4) consent: with the identity-provider token nothing ' +
  "more; with a session token the price must fit in what is left today of the player's allowance to this game " +
  '(403 PURCHASE_ALLOWANCE_REQUIRED without one, 403 PURCHASE_ALLOWANCE_EXCEEDED above it); (5) one multiplier per ' +
  'player and game: while one is active, or another purchase for the same game is in flight, 409 CONFLICT (an ' +
  'abandoned purchase stops blocking once it provably cannot land: no transfer sent within 60 s, or its blockhash ' +
  'expired); (6) the embedded wallet is the one the identity provider holds for the player (none: 400 ' +
  'NO_EMBEDDED_WALLET) with delegated signing enabled for the app (else 403 WALLET_DELEGATION_REQUIRED, before ' +
  `anything is sent), and must hold the price plus a fee reserve of ${PURCHASE_FEE_RESERVE} lamports (0.001 SOL: ` +
  'the network fee, and the wallet stays rent-exempt), else 400 INSUFFICIENT_BALANCE; (7) the purchase intent is ' +
  "stored, the slot reserved and, for a session token, the price reserved against the day's allowance, in one " +
  "transaction, **before** anything is sent; (8) a System transfer from the player's wallet (fee payer, signed " +
  "through the embedded-wallet signer) to the game's pool vault, with memo `arcadia:multiplier:<purchaseId>`, is " +
  'sent and confirmed by polling; (9) the multiplier is activated from the confirmation for `durationSeconds`, ' +
  "and the game's `totalRewardsPoolValueUsd` and `estimatedDailyRewardsUsd` are updated (so `GET /games` sorting " +
  'follows). When confirmation takes longer than the request allows, the answer is **202** with `status: ' +
  'pending`: retry with the same idempotencyKey for the outcome.';

const purchaseView = z.object({
  purchaseId: z.uuid(),
  status: z.enum(['completed', 'pending']),
  gameId: z.uuid(),
  tier,
  multiplier: z.number(),
  durationSeconds: z.int(),
  lamports,
  usd,
  solUsdPrice: z.number(),
  fromWallet: described(z.string(), "The player's embedded wallet"),
  vaultAddress: described(z.string(), "The game's custodial pool vault"),
  signature: described(z.nullable(z.string()), 'Transfer signature'),
  startsAt: z.nullable(z.string()),
  expiresAt: z.nullable(z.string()),
  replayed: described(z.boolean(), 'True when this answers a retry of an earlier request with the same key'),
});

export const purchaseMultiplierContract = defineContract({
  operationId: 'purchaseMultiplier',
  method: 'POST',
  path: '/multiplier/purchase',
  tags: TAGS,
  summary: 'Purchase a multiplier',
  description: PURCHASE_RULES,
  auth: PLAYER,
  scope: 'multipliers:buy',
  alsoAnswers: [
    {
      status: 202,
      description: 'Sent, not confirmed yet (`status: pending`): retry with the same idempotencyKey',
    },
  ],
  body: z.object({
    gameId,
    tier,
    durationSeconds: duration,
    idempotencyKey: described(
      z
        .string()
        .check(z.regex(/^[A-Za-z0-9._:-]{8,128}$/, 'must be 8-128 characters of A-Z a-z 0-9 . _ : -')),
      'Unique per purchase (e.g. a UUID); reuse it to retry the same purchase',
    ),
    maxLamports: described(
      z.optional(
        z.pipe(
          z
            .string()
            .check(
              z.regex(/^[1-9][0-9]{0,18}$/, 'must be a positive integer number of lamports, as a string'),
            ),
          z.transform((v) => BigInt(v)),
        ),
      ),
      'Refuse the purchase if the price is now higher (lamports, string)',
    ),
  }),
  response: dataEnvelope(purchaseView),
  errors: [
    'NOT_FOUND',
    'INSUFFICIENT_BALANCE',
    'NO_EMBEDDED_WALLET',
    'WALLET_DELEGATION_REQUIRED',
    'PURCHASE_ALLOWANCE_REQUIRED',
    'PURCHASE_ALLOWANCE_EXCEEDED',
    'CONFLICT',
    'PRICE_UNAVAILABLE',
  ],
  rateLimit: { limit: 10, windowSeconds: 60, key: 'user' },
  example: {
    body: {
      gameId: EXAMPLE_GAME,
      tier: '2x',
      durationSeconds: 3600,
      idempotencyKey: '0c4f2a8e-5b1d-4e7a-9c3f-2d6b8a1e4f70',
      maxLamports: '10000000',
    },
  },
});
