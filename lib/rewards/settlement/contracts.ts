// The public reads of payout runs' statements (docs/provable-payouts.md): a game's runs, one run's statement with
// its commitment and each line's transfer, and one recipient's line with its merkle proof.
import * as z from 'zod/mini';
import { defineContract } from '../../core/contract.js';
import { dataEnvelope, described, withMeta } from '../../core/schemas.js';
import { EXAMPLE_GAME, gameId, lamports, TAGS } from '../contracts.js';
import type { PayoutLine } from './model.js';
import type { Statement } from './statement.js';

const EXAMPLE_DAY = '2026-11-30';
const EXAMPLE_TOURNAMENT = '3b7f1c52-8f0e-4c1d-9a2b-5e6f7a8b9c0d';
const EXAMPLE_PERIOD = '2026-11-30T00:00:00Z';
const EXAMPLE_ARC = '8c2e4a10-5b3d-4f6e-9a7c-1d2e3f4a5b6c';
const EXAMPLE_ROOT = '5f0c1e5b0a4b2e8d9c7f6a5b4c3d2e1f0a9b8c7d6e5f4a3b2c1d0e9f8a7b6c5d';

const day = described(z.string().check(z.regex(/^\d{4}-\d{2}-\d{2}$/)), 'A UTC day, YYYY-MM-DD');
const hash = described(z.string().check(z.regex(/^[0-9a-f]{64}$/)), 'A sha256 hash, hex');
const arcId = described(z.string().check(z.minLength(1), z.maxLength(64)), 'A recipient’s Arc ID');

const payoutLine = withMeta(
  z.object({
    arcId: z.string(),
    wallet: z.nullable(z.string()),
    roles: z.array(z.enum(['creator', 'player'])),
    rank: z.nullable(z.int()),
    share: lamports,
    carriedIn: lamports,
    due: lamports,
    send: lamports,
    fee: lamports,
    carryOut: lamports,
  }),
  {
    id: 'StatementLine',
    description:
      'A recipient’s line as the rules allocated it: share + carriedIn = due; due = send + fee when it can land, ' +
      'else carryOut = due. The transfer sends due less the fee the chain charged (a priority fee lowers send).',
  },
);

const standing = z.object({ rank: z.int(), arcId: z.string(), points: z.number() });
const recipient = z.object({
  arcId: z.string(),
  wallet: z.nullable(z.string()),
  balance: described(lamports, 'The wallet’s balance when the run froze (0: no account yet)'),
  carriedIn: lamports,
});
const common = {
  pool: described(
    z.object({ inflow: lamports, allocated: lamports, earmarked: lamports }),
    'The pool’s books as the run read them',
  ),
  undistributed: described(lamports, 'inflow − allocated − earmarked: what the run allocated from'),
  vaultReserve: lamports,
  rentExemptMinimum: lamports,
  fee: described(lamports, 'The fee of one transfer (one signature)'),
  standings: described(z.array(standing), 'The board in rank order, down to the last paid rank'),
  recipients: z.array(recipient),
};
const dayInputs = z.object({
  kind: z.literal('day'),
  ...common,
  rule: z.object({
    payoutHorizonDays: z.int(),
    creatorShareBps: z.int(),
    playerShareBps: z.int(),
    playerShareByRankBps: z.readonly(z.array(z.int())),
  }),
  creatorSplit: described(z.record(z.string(), z.int()), 'Arc ID → basis points of the creators’ part'),
});
const prizeInputs = z.object({
  kind: z.literal('prize'),
  ...common,
  poolBps: z.int(),
  poolRoom: lamports,
  fund: lamports,
  earmarked: lamports,
  table: z.array(z.object({ fromRank: z.int(), toRank: z.int(), bps: z.int() })),
});

export const statementSchema = withMeta(
  z.object({
    version: z.literal(1),
    gameId: z.string(),
    run: described(z.string(), 'The UTC day, or `<tournamentId>/<periodId>`'),
    inputs: z.discriminatedUnion('kind', [dayInputs, prizeInputs]),
    lines: z.array(payoutLine),
  }),
  {
    id: 'Statement',
    description:
      'What a payout run read and what it allocated. Item 0 of its merkle tree is the statement without `lines`, ' +
      'items 1… are the lines; each item is RFC 8785 canonical JSON (docs/provable-payouts.md).',
  },
);

const commitment = withMeta(
  z.object({
    status: described(
      z.enum(['pending', 'confirmed', 'skipped']),
      '`confirmed`: landed before the run’s first transfer; `skipped`: not sent (see `reason`; the run then sent nothing)',
    ),
    signature: z.nullable(described(z.string(), 'The commitment transaction (base58)')),
    memo: described(z.string(), '`arcadia:statement:v1:<gameId>:<run>:<root>`'),
    feeLamports: z.nullable(lamports),
    reason: z.nullable(z.string()),
  }),
  { id: 'StatementCommitment' },
);

const payout = withMeta(
  z.object({
    arcId: z.string(),
    status: z.enum(['pending', 'confirmed', 'carried']),
    signature: z.nullable(described(z.string(), 'The transfer that paid the line (confirmed)')),
    sentLamports: described(lamports, 'What the transfer sent (0 when carried)'),
    feeLamports: described(lamports, 'The fee the chain charged for it (0 when carried)'),
    reason: z.nullable(described(z.string(), 'Why a carried line was carried')),
  }),
  { id: 'StatementPayout' },
);

const runFields = {
  gameId: z.uuid(),
  run: described(z.string(), 'The UTC day, or `<tournamentId>/<periodId>`'),
  kind: z.enum(['day', 'prize']),
  day: described(z.string(), 'The settled day; a prize run’s: the day its period ended'),
  tournamentId: z.nullable(z.string()),
  periodId: z.nullable(z.string()),
  status: z.enum(['paying', 'settled']),
  frozenAt: z.string(),
  settledAt: z.nullable(z.string()),
  vaultAddress: z.nullable(
    described(z.string(), 'The game’s vault: the commitment’s and every transfer’s signer'),
  ),
  root: z.nullable(
    described(hash, 'The statement’s merkle root; null on runs paid before statements existed'),
  ),
};

const runSummary = withMeta(
  z.object({
    ...runFields,
    allocatedLamports: described(lamports, 'What the run allocated from the pool (its lines’ shares)'),
    commitment: z.nullable(
      z.object({ status: z.enum(['pending', 'confirmed', 'skipped']), signature: z.nullable(z.string()) }),
    ),
  }),
  { id: 'StatementRun' },
);

const runStatement = withMeta(
  z.object({
    ...runFields,
    statement: z.nullable(statementSchema),
    commitment: z.nullable(commitment),
    payouts: described(z.array(payout), 'Each line’s transfer as it went, in the statement’s order'),
  }),
  { id: 'RunStatement' },
);

const lineWithProof = withMeta(
  z.object({
    ...runFields,
    root: hash,
    line: payoutLine,
    leafIndex: described(z.int(), 'The line’s item in the tree (0 is the header)'),
    proof: described(z.array(hash), 'Sibling hashes from the leaf up'),
    payout: z.nullable(payout),
    commitment: z.nullable(commitment),
  }),
  { id: 'StatementLineProof' },
);

const PUBLIC =
  'Public: Arc IDs, wallets and amounts are on the game’s boards and on chain already (docs/provable-payouts.md, ' +
  '“What a statement reveals”).';
const rateLimit = { limit: 30, windowSeconds: 10, key: 'ip' } as const;

export const listStatementsContract = defineContract({
  operationId: 'listStatements',
  method: 'GET',
  path: '/rewards/statements/{gameId}',
  tags: TAGS,
  summary: 'A game’s payout runs and their statements',
  description:
    'The game’s daily settlements, newest day first; with `tournamentId`, that tournament’s prize runs, newest ' +
    'period first. Each run names its statement’s root and its commitment (null on runs paid before statements ' +
    `existed). Pass \`meta.nextCursor\` as \`cursor\` for older runs (null after the oldest). ${PUBLIC}`,
  auth: [],
  params: z.object({ gameId }),
  query: z.object({
    tournamentId: z.optional(described(z.uuid(), 'List this tournament’s prize runs instead of the days')),
    limit: described(z._default(z.coerce.number().check(z.int(), z.gte(1), z.lte(100)), 30), 'Runs per page'),
    cursor: described(
      z.optional(z.string().check(z.minLength(1), z.maxLength(64))),
      'From the previous page (`meta.nextCursor`)',
    ),
  }),
  response: z.object({
    data: z.array(runSummary),
    meta: z.object({ limit: z.int(), nextCursor: z.nullable(z.string()) }),
  }),
  rateLimit,
  errors: ['VALIDATION_ERROR', 'NOT_FOUND'],
  example: { params: { gameId: EXAMPLE_GAME }, query: { limit: '30' } },
});

const RUN_TEXT =
  'The run’s statement (its inputs and lines), its merkle root, its commitment transaction and each line’s ' +
  'transfer: everything `verifyStatement` of the SDK checks (`npx @arcadia/sdk verify`). A run paid before ' +
  `statements existed answers with \`statement\`, \`root\` and \`commitment\` null. 404 for a run that never ran. ${PUBLIC}`;

export const getDayStatementContract = defineContract({
  operationId: 'getDayStatement',
  method: 'GET',
  path: '/rewards/statements/{gameId}/days/{day}',
  tags: TAGS,
  summary: 'A daily settlement’s statement',
  description: RUN_TEXT,
  auth: [],
  params: z.object({ gameId, day }),
  response: dataEnvelope(runStatement),
  rateLimit,
  errors: ['VALIDATION_ERROR', 'NOT_FOUND'],
  example: { params: { gameId: EXAMPLE_GAME, day: EXAMPLE_DAY } },
});

const prizeParams = {
  gameId,
  tournamentId: z.uuid(),
  periodId: described(z.string().check(z.minLength(1), z.maxLength(40)), 'The period (its start)'),
};

export const getPrizeStatementContract = defineContract({
  operationId: 'getPrizeStatement',
  method: 'GET',
  path: '/rewards/statements/{gameId}/prizes/{tournamentId}/{periodId}',
  tags: TAGS,
  summary: 'A tournament period’s prize run statement',
  description: RUN_TEXT,
  auth: [],
  params: z.object(prizeParams),
  response: dataEnvelope(runStatement),
  rateLimit,
  errors: ['VALIDATION_ERROR', 'NOT_FOUND'],
  example: { params: { gameId: EXAMPLE_GAME, tournamentId: EXAMPLE_TOURNAMENT, periodId: EXAMPLE_PERIOD } },
});

const LINE_TEXT =
  'One recipient’s line of a run, with its merkle proof against the committed root: a player checks their own ' +
  'line without the whole statement (the SDK’s `verifyLineProof`). 404 when the run has no statement or the ' +
  `recipient no line in it. ${PUBLIC}`;

export const getDayStatementLineContract = defineContract({
  operationId: 'getDayStatementLine',
  method: 'GET',
  path: '/rewards/statements/{gameId}/days/{day}/lines/{arcId}',
  tags: TAGS,
  summary: 'A recipient’s line of a daily settlement, with its proof',
  description: LINE_TEXT,
  auth: [],
  params: z.object({ gameId, day, arcId }),
  response: dataEnvelope(lineWithProof),
  rateLimit,
  errors: ['VALIDATION_ERROR', 'NOT_FOUND'],
  example: { params: { gameId: EXAMPLE_GAME, day: EXAMPLE_DAY, arcId: EXAMPLE_ARC } },
});

export const getPrizeStatementLineContract = defineContract({
  operationId: 'getPrizeStatementLine',
  method: 'GET',
  path: '/rewards/statements/{gameId}/prizes/{tournamentId}/{periodId}/lines/{arcId}',
  tags: TAGS,
  summary: 'A recipient’s line of a prize run, with its proof',
  description: LINE_TEXT,
  auth: [],
  params: z.object({ ...prizeParams, arcId }),
  response: dataEnvelope(lineWithProof),
  rateLimit,
  errors: ['VALIDATION_ERROR', 'NOT_FOUND'],
  example: {
    params: {
      gameId: EXAMPLE_GAME,
      tournamentId: EXAMPLE_TOURNAMENT,
      periodId: EXAMPLE_PERIOD,
      arcId: EXAMPLE_ARC,
    },
  },
});

// The published schema and the verifier's types are one shape (a drift fails the typecheck).
type Same<A, B> = [A] extends [B] ? ([B] extends [A] ? true : false) : false;
const sameLine: Same<z.infer<typeof payoutLine>, PayoutLine> = true;
const sameStatement: Same<z.infer<typeof statementSchema>, Statement> = true;
void [sameLine, sameStatement, EXAMPLE_ROOT];
