// The events a studio can receive by webhook: one zod schema per type, the one source of the payloads' shape
// (OpenAPI `webhooks`, the SDK's typed union, the worker's check). Each payload is versioned: a change that is
// not purely additive gets a new `version`, never a silent reshape (docs/webhooks.md, "Versioning").
import * as z from 'zod/mini';
import { described, withMeta } from '../core/schemas.js';

const lamports = described(z.string().check(z.regex(/^\d+$/)), 'Lamports, as a decimal string (u64)');
const utcDay = described(z.string(), 'UTC day, yyyy-mm-dd');
const signature = described(z.string(), 'Solana transaction signature (base58)');
const statementOf = described(
  z.object({
    root: described(z.string(), 'The merkle root of the run’s statement (hex)'),
    commitment: described(
      z.nullable(signature),
      'The transaction whose memo carries the root, signed by the game’s vault before the first payout; null when the run sent no commitment (see the statement’s `commitment.reason`)',
    ),
  }),
  'The run’s statement (docs/provable-payouts.md); absent on runs paid before statements existed',
);
const prizeOf = described(
  z.object({ tournamentId: z.string(), periodId: z.string() }),
  'Set when the payout is a tournament prize: the tournament and its period',
);

/** The `data` of each event type, version 1. */
export const EVENT_DATA = {
  'settlement.completed': z.object({
    day: utcDay,
    totalLamports: lamports,
    recipients: z.array(
      z.object({
        arcId: z.string(),
        role: described(z.string(), 'Why this recipient is paid: creator, owner, player (top 10), …'),
        lamports,
      }),
    ),
    statement: z.optional(statementOf),
  }),
  'payout.sent': z.object({
    day: utcDay,
    arcId: z.string(),
    lamports,
    signature,
    tournament: z.optional(prizeOf),
  }),
  'payout.carried': z.object({
    day: utcDay,
    arcId: z.string(),
    lamports,
    reason: described(z.string(), 'Why it was carried to the recipient’s next payout'),
    tournament: z.optional(prizeOf),
  }),
  'tournament.period.ended': z.object({
    tournamentId: z.string(),
    periodId: z.string(),
    endsAt: z.string(),
    potLamports: described(lamports, "The period's prize pool (its share of the rewards pool)"),
    results: described(
      z.array(z.object({ rank: z.int(), arcId: z.string(), points: z.number(), lamports })),
      'The frozen board down to the last paid rank, with each rank’s prize',
    ),
    voided: described(
      z.nullable(z.literal('cancelled')),
      '`cancelled`: the tournament was cancelled before the period ended; nothing is paid',
    ),
  }),
  'tournament.period.paid': z.object({
    tournamentId: z.string(),
    periodId: z.string(),
    totalLamports: lamports,
    recipients: z.array(z.object({ arcId: z.string(), rank: z.int(), lamports })),
    statement: z.optional(statementOf),
  }),
  'claim.landed': z.object({
    wallet: z.string(),
    mint: z.string(),
    amount: described(z.string(), 'Base units, as a decimal string'),
    signature: z.nullable(signature),
  }),
  'session.flagged': z.object({
    sessionId: z.string(),
    arcId: z.string(),
    riskScore: z.number(),
    threshold: z.number(),
  }),
  'session.invalidated': z.object({
    sessionId: z.string(),
    arcId: z.string(),
    reason: z.nullable(z.string()),
  }),
  'launch.completed': z.object({ jobId: z.string(), coinMint: z.string(), symbol: z.string() }),
  'launch.failed': z.object({ jobId: z.string(), reason: z.string() }),
  'multiplier.purchased': z.object({
    purchaseId: z.string(),
    arcId: z.string(),
    multiplier: z.number(),
    lamports,
    signature,
  }),
  'ownership.verified': z.object({
    ownerId: z.string(),
    gameUrl: z.string(),
    previousOwnerId: described(
      z.optional(z.nullable(z.string())),
      'The verified owner before this proof (null: nobody had proved the domain)',
    ),
    previousControllerId: described(
      z.optional(z.string()),
      'Who held the game before: its previous owner, or its creator. Another user than `ownerId` means control ' +
        'changed hands; that user takes it back by proving the domain again',
    ),
    disabledEndpointIds: described(
      z.optional(z.array(z.string())),
      "The previous controller's webhook endpoints, disabled by this change of control (`disabledReason: control_changed`)",
    ),
  }),
  'webhook.test': z.object({ endpointId: z.string(), message: z.string() }),
} as const;

export type WebhookEventType = keyof typeof EVENT_DATA;
export const WEBHOOK_EVENT_TYPES = Object.keys(EVENT_DATA) as [WebhookEventType, ...WebhookEventType[]];
/** The types an endpoint can subscribe to (`webhook.test` goes to the endpoint it is sent to only). */
export const SUBSCRIBABLE_EVENT_TYPES = WEBHOOK_EVENT_TYPES.filter((t) => t !== 'webhook.test') as [
  WebhookEventType,
  ...WebhookEventType[],
];

export type EventData<T extends WebhookEventType> = z.output<(typeof EVENT_DATA)[T]>;

const SUMMARIES: Record<WebhookEventType, string> = {
  'settlement.completed': "A game's UTC day settled: what it paid, and to whom.",
  'payout.sent': 'A payout transfer landed on chain.',
  'payout.carried': "A payout line could not be paid and was carried to the recipient's next payout.",
  'tournament.period.ended':
    "A tournament period's board was frozen after its end: its results and each paid rank's prize, about to be paid.",
  'tournament.period.paid':
    "A tournament period's prizes were all paid (or carried to recipients who can't receive yet).",
  'claim.landed': "An airdrop claim of the game's coin landed on chain.",
  'session.flagged': "A play session's risk score went over the flagging threshold.",
  'session.invalidated': 'A play session was invalidated; its points no longer count.',
  'launch.completed': "The game's coin launch finished: the coin is live.",
  'launch.failed': "The game's coin launch failed; nothing was minted for good.",
  'multiplier.purchased': 'A player bought a points multiplier for the game; the transfer is confirmed.',
  'ownership.verified':
    "Someone proved the game's domain and is now its verified owner; when control changed hands, who held it before and which of their webhook endpoints were disabled.",
  'webhook.test': 'Sent on request (POST …/test) to one endpoint, to check the receiver.',
};

/** The full payload of one event type: the envelope every event shares, with its `data`. */
export const eventSchema = <T extends WebhookEventType>(type: T) =>
  withMeta(
    z.object({
      id: described(z.string(), 'The event id, also the `webhook-id` header: the same on every retry'),
      type: z.literal(type),
      version: described(z.literal(1), 'Version of this type’s payload'),
      timestamp: described(z.string(), 'When the change happened (ISO 8601)'),
      gameId: z.string(),
      data: EVENT_DATA[type],
    }),
    { id: `WebhookEvent_${type.replaceAll('.', '_')}`, description: SUMMARIES[type] },
  );

export const EVENT_SUMMARIES = SUMMARIES;

export interface WebhookEventOf<T extends WebhookEventType> {
  id: string;
  type: T;
  version: 1;
  timestamp: string;
  gameId: string;
  data: EventData<T>;
}

/** Every event payload, discriminated by `type`. */
export type WebhookEvent = { [T in WebhookEventType]: WebhookEventOf<T> }[WebhookEventType];
