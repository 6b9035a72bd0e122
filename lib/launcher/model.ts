import * as z from 'zod/mini';

/** Launch job states: waiting → active → completed | failed. */
export const JOB_STATUSES = ['waiting', 'active', 'completed', 'failed'] as const;
export type JobStatus = (typeof JOB_STATUSES)[number];

/** The launch stages in order, with the progress each reports when it is done (10, 50, 80, 100). */
export const STAGES = ['queued', 'reserve', 'mint', 'buy', 'complete'] as const;
export type Stage = (typeof STAGES)[number];
export const STAGE_PROGRESS: Record<Stage, number> = {
  queued: 0,
  reserve: 10,
  mint: 50,
  buy: 80,
  complete: 100,
};

/** Allowed emission periods in days. */
export const EMISSION_DAYS = [7, 30] as const;
/** Lamports a launch needs for rent and fees on top of the buy: 0.07 SOL, checked before anything is spent. */
export const LAUNCH_FEE_RESERVE = 70_000_000n;
/** After a coin's emission ends, only the game's owner (or creator, while nobody proved its domain) may launch for this long. */
export const GRACE_PERIOD_MS = 48 * 60 * 60 * 1000;
/**
 * The launch state machine's execution timeout (infra/launch-state-machine.yml's TimeoutSeconds; a unit test keeps
 * the two equal and checks that every stage's retry budget fits inside it).
 */
export const EXECUTION_TIMEOUT_SECONDS = 1800;
/**
 * How long after its creation a job may stay open: the execution timeout plus 5 minutes for the start and the
 * closing writes. Past it no execution can still be driving the job, so the sweeper fails it.
 */
export const JOB_DEADLINE_MS = (EXECUTION_TIMEOUT_SECONDS + 300) * 1000;

const nullableString = z._default(z.nullable(z.string()), null);

/** A launch job as stored. Sealed keys and the user never leave the service. */
export const jobRecordSchema = z.object({
  jobId: z.uuid(),
  gameId: z.uuid(),
  /** Arc ID of the launching user: their embedded wallet pays and receives the initial buy. */
  userId: z.uuid(),
  status: z.enum(JOB_STATUSES),
  progress: z.int().check(z.gte(0), z.lte(100)),
  /** Last stage that started. */
  stage: z.enum(STAGES),
  message: z.string(),
  error: nullableString,
  emissionDays: z.int(),
  /** Initial buy in lamports (integer string), null for none. */
  buyAmount: nullableString,
  gameCoinSymbol: z.string(),
  symbolSource: z.enum(['custom', 'generated']),
  coinName: z.string(),
  coinUri: z.string(),
  // Persisted by the reserve stage before any transaction is sent; every later stage is keyed by them.
  /** The game coin's mint address, reserved before any transaction (`gtokenAddress` on the wire). */
  coinMint: nullableString,
  vaultAddress: nullableString,
  sealedMintKey: nullableString,
  sealedVaultKey: nullableString,
  /** Signatures of the launch transactions, recorded before sending (pending) and once confirmed. */
  mintTx: nullableString,
  supplyTx: nullableString,
  buyTx: nullableString,
  tokensBought: nullableString,
  bundleTx: nullableString,
  executionArn: nullableString,
  /** When the sweeper may fail the job if it is still open (createdAt + JOB_DEADLINE_MS); null on older jobs. */
  deadlineAt: nullableString,
  createdAt: z.string(),
  updatedAt: z.string(),
  completedAt: nullableString,
});
export type JobRecord = z.infer<typeof jobRecordSchema>;

/** A coin's lifecycle: `active` until its last emission day settles, then `ended` (docs/game-coin.md). */
export const COIN_STATUSES = ['active', 'ended'] as const;

/** A coin record (one per mint), created by complete-launch. */
export const coinRecordSchema = z.object({
  coinMint: z.string(),
  gameId: z.uuid(),
  jobId: z.uuid(),
  gameCoinSymbol: z.string(),
  name: z.string(),
  uri: z.string(),
  emissionDays: z.int(),
  status: z.string(),
  emissionStartAt: z.string(),
  emissionEndAt: z.string(),
  launchedBy: z.uuid(),
  bundleTx: z.string(),
  createdAt: z.string(),
  /** When its last emission day settled (status `ended`; `emissionEndAt` is then the same instant). */
  endedAt: z.optional(z.nullable(z.string())),
});
export type CoinRecord = z.infer<typeof coinRecordSchema>;

/** Whether a job can still change (a launch in progress). */
export const isOpen = (job: Pick<JobRecord, 'status'>): boolean =>
  job.status === 'waiting' || job.status === 'active';
