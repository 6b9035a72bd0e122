// The functions' settings that the code cannot say: timeouts, memory, event sources of the workers and schedules,
// extra files in a zip. Everything else of a function is derived (scripts/deploy-config.ts): an HTTP function's
// handler and route from its contract (lib/api/catalogue.ts), its grants and resource environment from its bundle
// (infra/access.ts). `comment` lines are written above the function in the generated file.

export interface FunctionSettings {
  comment?: string;
  timeout?: number;
  memorySize?: number;
  package?: { patterns: string[] };
  /** A worker's handler (an HTTP function's comes from its contract's operationId). */
  handler?: string;
  events?: unknown[];
  destinations?: unknown;
}

/** EventBridge invokes asynchronously: after Lambda's two retries the failed event lands in AsyncFailureQueue. */
const onFailure = { onFailure: { type: 'sqs', arn: { 'Fn::GetAtt': ['AsyncFailureQueue', 'Arn'] } } };

/** Settings of HTTP functions, by operationId, beyond what their contract and bundle give. */
export const HTTP_FUNCTIONS: Record<string, FunctionSettings> = {
  apiReference: {
    comment:
      'Swagger UI ships as files in the zip (lib/api/reference/page.ts resolves them on the first request), not\n' +
      'inlined into the bundle: compiling and hashing its 1.9 MB at import cost every cold start ~30 ms of CPU.\n' +
      'Apache-2.0: the license and notice travel with the redistributed files.',
    package: {
      patterns: [
        'node_modules/swagger-ui-dist/swagger-ui-bundle.js',
        'node_modules/swagger-ui-dist/swagger-ui.css',
        'node_modules/swagger-ui-dist/LICENSE',
        'node_modules/swagger-ui-dist/NOTICE',
        'node_modules/swagger-ui-dist/swagger-ui-bundle.js.LICENSE.txt',
      ],
    },
  },
  completeLaunch: { timeout: 29 },
  purchaseMultiplier: {
    comment: 'Sending and confirming the transfer takes up to 20 s; beyond that the answer is 202 pending.',
    timeout: 29,
  },
};

/** Functions without a contract: the catch-all route, the launch tasks, the schedules and the queue workers. */
export const OTHER_FUNCTIONS: Record<string, FunctionSettings> = {
  notFound: {
    comment: 'Every route without a contract.',
    handler: 'functions/reference/not-found.handler',
    events: [{ httpApi: '*' }],
  },
  // Tasks of the launch state machine (infra/launch-state-machine.yml).
  launchTaskReserve: { handler: 'functions/launcher/task-reserve.handler', timeout: 60 },
  launchTaskMint: { handler: 'functions/launcher/task-mint.handler', timeout: 60 },
  launchTaskBuy: { handler: 'functions/launcher/task-buy.handler', timeout: 60 },
  launchTaskComplete: { handler: 'functions/launcher/task-complete.handler', timeout: 60 },
  launchTaskFail: { handler: 'functions/launcher/task-fail.handler', timeout: 20 },
  sweepLaunchJobs: {
    comment:
      'Every launch job ends: the jobs still open past their deadline (execution timed out, stopped, failed before\n' +
      "MarkFailed, never started) are failed the way MarkFailed fails them, freeing the game's lock and the symbol.",
    handler: 'functions/launcher/sweep-launch-jobs.handler',
    timeout: 60,
    // biome-ignore lint/suspicious/noTemplateCurlyInString: a serverless variable
    events: [{ schedule: "rate(${env:LAUNCH_SWEEP_RATE, '5 minutes'})" }],
    destinations: onFailure,
  },
  scheduleSnapshots: {
    handler: 'functions/snapshots/schedule-snapshots.handler',
    timeout: 60,
    // biome-ignore lint/suspicious/noTemplateCurlyInString: a serverless variable
    events: [{ schedule: "rate(${env:SNAPSHOT_RATE, '1 hour'})" }],
    destinations: onFailure,
  },
  buildSnapshots: {
    comment: "SnapshotQueue's visibility timeout is 6× this; 1M holders take ~5 s of CPU plus the RPC read.",
    handler: 'functions/snapshots/build-snapshots.handler',
    timeout: 900,
    memorySize: 2048,
    events: [
      {
        sqs: {
          arn: { 'Fn::GetAtt': ['SnapshotQueue', 'Arn'] },
          batchSize: 5,
          functionResponseType: 'ReportBatchItemFailures',
        },
      },
    ],
  },
  importUsers: {
    comment:
      "Users a save (or a game's split) created before the identity provider had them, imported there in its\n" +
      'batches (docs/wallets.md, "New players"); a provider that is down or rate-limiting only delays this queue.',
    handler: 'functions/user/import-users.handler',
    // A batch of 20 users: a wait of up to 30 s for its creations (lib/user/import-pace.ts), one provider batch
    // import, 20 user reads, the table writes; a merge moves more.
    timeout: 120,
    events: [
      {
        sqs: {
          arn: { 'Fn::GetAtt': ['UserImportQueue', 'Arn'] },
          // One message (one provider batch) an invocation, and two invocations at once (the least SQS allows):
          // the provider's 240 creations a minute are 12 batches, one each 5 s; a batch takes 1-2 s, so two
          // workers keep the shared pace full, and no worker holds received messages while it waits.
          batchSize: 1,
          maximumConcurrency: 2,
          functionResponseType: 'ReportBatchItemFailures',
        },
      },
    ],
  },
  scheduleSettlements: {
    comment:
      "The daily settlement of each game's UTC day (docs/settlement.md): the hourly schedule queues one message per\n" +
      '(game, day) whose delay has passed and that had players; settleGameDays settles each.',
    handler: 'functions/settlement/schedule-settlements.handler',
    timeout: 60,
    // biome-ignore lint/suspicious/noTemplateCurlyInString: a serverless variable
    events: [{ schedule: "rate(${env:SETTLEMENT_RATE, '1 hour'})" }],
    destinations: onFailure,
  },
  scheduleTournamentCloses: {
    comment:
      'Tournament periods whose end plus payout delay has passed (docs/tournaments.md, "Prizes"): each is queued on\n' +
      'the settlement queue, where settleGameDays freezes its board and pays its prize table.',
    handler: 'functions/tournaments/schedule-period-closes.handler',
    timeout: 60,
    // biome-ignore lint/suspicious/noTemplateCurlyInString: a serverless variable
    events: [{ schedule: "rate(${env:TOURNAMENT_CLOSE_RATE, '1 minute'})" }],
    destinations: onFailure,
  },
  relayWebhooks: {
    comment:
      'The webhook outbox relay (docs/webhooks.md, "Outbox"): queues the deliveries of the events still pending in\n' +
      'the outbox. Every step is idempotent; a run that fails is repeated by the next.',
    handler: 'functions/webhooks/relay-webhooks.handler',
    timeout: 60,
    // biome-ignore lint/suspicious/noTemplateCurlyInString: a serverless variable
    events: [{ schedule: "rate(${env:WEBHOOK_RELAY_RATE, '1 minute'})" }],
    destinations: onFailure,
  },
  deliverWebhooks: {
    comment:
      "One attempt per message, a batch's attempts in parallel, each POST within WEBHOOK_TIMEOUT_MS (at most 15 s);\n" +
      "WebhookQueue's visibility timeout is 6x this.",
    handler: 'functions/webhooks/deliver-webhooks.handler',
    timeout: 30,
    events: [
      {
        sqs: {
          arn: { 'Fn::GetAtt': ['WebhookQueue', 'Arn'] },
          batchSize: 10,
          functionResponseType: 'ReportBatchItemFailures',
        },
      },
    ],
  },
  settleGameDays: {
    comment:
      'A day pays the creators and the top 10 (a tournament period its paid ranks, at most 100), each transfer\n' +
      "confirmed within 20 s; SettlementQueue's visibility timeout is 6x this.",
    handler: 'functions/settlement/settle-game-days.handler',
    timeout: 600,
    memorySize: 1024,
    events: [
      {
        sqs: {
          arn: { 'Fn::GetAtt': ['SettlementQueue', 'Arn'] },
          batchSize: 1,
          functionResponseType: 'ReportBatchItemFailures',
        },
      },
    ],
  },
};
