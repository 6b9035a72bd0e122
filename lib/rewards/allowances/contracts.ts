// PUT and DELETE /rewards/allowances/{gameId}: the player's consent to a game's session-token purchases, and the
// allowance as every rewards contract shows it (GET /rewards/me lists them).
import * as z from 'zod/mini';
import { defineContract } from '../../core/contract.js';
import { dataEnvelope, described, withMeta } from '../../core/schemas.js';
import { EXAMPLE_GAME, gameId, lamports, TAGS } from '../contracts.js';
import { MAX_ALLOWANCE_LAMPORTS } from '../model.js';

export const ALLOWANCE_RULE =
  "**Consent to purchases.** A game holds its players' session tokens (its own code runs with them), so a " +
  'session token buys a multiplier only within an **allowance** the player granted to that game: an amount in ' +
  'lamports per UTC day, set with `PUT /rewards/allowances/{gameId}` and revoked with `DELETE ' +
  "/rewards/allowances/{gameId}`, both with the player's own identity-provider token only (an HMAC signature is " +
  '401; a session or grant token 403 `INSUFFICIENT_SCOPE`). A game connected with Connect with Arcadia gets its ' +
  "allowance from the spending limit the player chose on the connect page (docs/connect.md). Each session purchase reserves its price against the day's allowance when its " +
  'intent is stored, in the same transaction, so concurrent purchases cannot spend more than allowed; a ' +
  'purchase that fails without charging gives its price back. Without an allowance a session purchase is 403 ' +
  '`PURCHASE_ALLOWANCE_REQUIRED`, above what is left of it today 403 `PURCHASE_ALLOWANCE_EXCEEDED` (the message ' +
  'names what remains); nothing is charged. A purchase with the identity-provider token needs no allowance ' +
  'and spends none. Changing or revoking an allowance applies to the next purchase; `GET /rewards/me` shows ' +
  'every allowance with what was spent of it today.';

export const allowanceSchema = withMeta(
  z.object({
    gameId: z.uuid(),
    lamportsPerDay: described(lamports, 'What the game may spend per UTC day with your session token'),
    day: described(z.string(), 'Today (UTC, YYYY-MM-DD), the day of the two figures below'),
    spentTodayLamports: described(lamports, 'Reserved today by session-token purchases in this game'),
    remainingTodayLamports: described(lamports, 'What session-token purchases may still spend today'),
    grantedAt: z.string(),
    updatedAt: z.string(),
  }),
  {
    id: 'PurchaseAllowance',
    examples: [
      {
        gameId: EXAMPLE_GAME,
        lamportsPerDay: '20000000',
        day: '2026-11-24',
        spentTodayLamports: '5000000',
        remainingTodayLamports: '15000000',
        grantedAt: '2026-11-20T09:12:03.000Z',
        updatedAt: '2026-11-24T10:00:00.000Z',
      },
    ],
  },
);

const BEARER_ONLY = ['bearer'] as const;

export const setPurchaseAllowanceContract = defineContract({
  operationId: 'setPurchaseAllowance',
  method: 'PUT',
  path: '/rewards/allowances/{gameId}',
  tags: TAGS,
  summary: 'Allow a game to buy multipliers for me',
  description:
    `${ALLOWANCE_RULE}\n\nGrants the game an allowance, or changes it (what was spent today stays spent). ` +
    `At most ${MAX_ALLOWANCE_LAMPORTS} lamports (1 000 SOL) per day. 404 when the game does not exist.`,
  auth: BEARER_ONLY,
  params: z.object({ gameId }),
  body: z.object({
    lamportsPerDay: described(
      z.pipe(
        z.string().check(
          z.regex(/^[1-9][0-9]{0,12}$/, 'must be a positive integer number of lamports, as a string'),
          z.refine(
            (v) => !/^[0-9]+$/.test(v) || BigInt(v) <= MAX_ALLOWANCE_LAMPORTS,
            `must be at most ${MAX_ALLOWANCE_LAMPORTS}`,
          ),
        ),
        z.transform((v) => BigInt(v)),
      ),
      'Lamports the game may spend per UTC day with your session token (string)',
    ),
  }),
  response: dataEnvelope(allowanceSchema),
  errors: ['NOT_FOUND'],
  rateLimit: { limit: 30, windowSeconds: 60, key: 'user' },
  example: { params: { gameId: EXAMPLE_GAME }, body: { lamportsPerDay: '20000000' } },
});

export const revokePurchaseAllowanceContract = defineContract({
  operationId: 'revokePurchaseAllowance',
  method: 'DELETE',
  path: '/rewards/allowances/{gameId}',
  tags: TAGS,
  summary: 'Stop a game buying multipliers for me',
  description:
    `${ALLOWANCE_RULE}\n\nRevokes the game's allowance: its session-token purchases are refused from now on ` +
    '(a purchase already reserved completes). Idempotent: `revoked` says whether there was one.',
  auth: BEARER_ONLY,
  params: z.object({ gameId }),
  response: dataEnvelope(
    z.object({
      gameId: z.uuid(),
      revoked: described(z.boolean(), 'True when an allowance existed and is now gone'),
    }),
  ),
  errors: [],
  rateLimit: { limit: 30, windowSeconds: 60, key: 'user' },
  example: { params: { gameId: EXAMPLE_GAME } },
});
