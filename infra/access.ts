// What each module of ours reaches in AWS: the one source of the functions' IAM grants and of the environment
// entries that name those resources. scripts/deploy-config.ts bundles every function (esbuild, metafile only),
// unions the access of the project modules in its bundle and writes infra/functions.generated.yml;
// tests/contract/package.test.ts checks the packaged roles against the same declarations, both ways.
// Keyed by the module that makes the call (or builds the transaction item, or reads the setting): a function that
// bundles the module gets the access, whichever export it uses. Nothing under lib/ imports this file.

/** Resources a grant can name: the template's logical ids, and the deployer's identity-provider secret. */
export type ResourceId =
  | 'UsersTable'
  | 'GamesTable'
  | 'PlayTable'
  | 'RewardsTable'
  | 'SettlementTable'
  | 'SnapshotsTable'
  | 'LauncherTable'
  | 'EphemeralTable'
  | 'WebhooksTable'
  | 'WebhookQueue'
  | 'ImagesBucket'
  | 'SnapshotsBucket'
  | 'SettlementQueue'
  | 'SnapshotQueue'
  | 'UserImportQueue'
  | 'PayoutDlq'
  | 'AsyncFailureQueue'
  | 'VaultKeySecret'
  | 'SecretsKeySecret'
  | 'IdpCredentialsSecret'
  | 'SecretsKmsKey'
  | 'LaunchStateMachine'
  | 'LaunchExecutions';

export interface Grant {
  resource: ResourceId;
  /** Below the resource: `index/*` or `index/<name>` of a table, `games/*` of a bucket. */
  part?: string;
  actions: string[];
  /** Only for the routes this holds for (the contract's auth and method), e.g. signed writes. */
  only?: 'signedWrites';
}

export interface ModuleAccess {
  grants?: Grant[];
  /** Environment entries the module reads (a CloudFormation value or a serverless variable). */
  environment?: Record<string, unknown>;
}

const dynamo = (resource: ResourceId, actions: string[], indexes?: string): Grant[] => [
  { resource, actions: actions.map((a) => `dynamodb:${a}`) },
  ...(indexes
    ? [
        {
          resource,
          part: `index/${indexes}`,
          actions: actions.filter((a) => a === 'Query' || a === 'Scan').map((a) => `dynamodb:${a}`),
        },
      ]
    : []),
];
/**
 * The KMS key the secrets are encrypted under: the customer-managed key the deployer names (SECRETS_KMS_KEY_ARN,
 * README "Deploying"), whose use a reader of a secret needs besides the secret; else Secrets Manager's own key,
 * which needs no grant (the grant then names its alias, harmlessly).
 */
const secretsKmsKey: Grant = { resource: 'SecretsKmsKey', actions: ['kms:Decrypt'] };
const vaultKey: ModuleAccess = {
  grants: [{ resource: 'VaultKeySecret', actions: ['secretsmanager:GetSecretValue'] }, secretsKmsKey],
  environment: { VAULT_KEY_SECRET_ID: { Ref: 'VaultKeySecret' } },
};
// The secret's id, never the key: a function's environment is readable with lambda:GetFunctionConfiguration.
const secretsKey: ModuleAccess = {
  grants: [{ resource: 'SecretsKeySecret', actions: ['secretsmanager:GetSecretValue'] }, secretsKmsKey],
  environment: { SECRETS_KEY_SECRET_ID: { Ref: 'SecretsKeySecret' } },
};
const launchStateMachineArn = {
  LAUNCH_STATE_MACHINE_ARN: {
    'Fn::Sub': [
      // biome-ignore lint/suspicious/noTemplateCurlyInString: CloudFormation fills the pseudo parameters
      'arn:${AWS::Partition}:states:${AWS::Region}:${AWS::AccountId}:stateMachine:${self:custom.names.launchStateMachine}',
      {},
    ],
  },
};

/** Modules that make no call themselves (the callers' declarations cover what they send through them). */
const none: ModuleAccess = {};

export const ACCESS: Record<string, ModuleAccess> = {
  // --- adapters ---
  'lib/adapters/dynamodb.ts': none,
  // Its reads price transactions against DynamoDB Local only (DYNAMODB_CAPACITY=count): no grant in AWS.
  'lib/adapters/capacity.ts': none,
  'lib/adapters/s3.ts': none,
  // The one SQS client and batch sender: each domain's queue module holds its queue's grant and URL.
  'lib/adapters/sqs.ts': none,
  'lib/adapters/secret-value.ts': none,
  'lib/adapters/secrets.ts': secretsKey,
  'lib/adapters/privy-api.ts': {
    grants: [{ resource: 'IdpCredentialsSecret', actions: ['secretsmanager:GetSecretValue'] }, secretsKmsKey],
  },
  'lib/adapters/vault-keys.ts': vaultKey,
  'lib/adapters/storage.ts': {
    grants: [{ resource: 'ImagesBucket', part: 'games/*', actions: ['s3:PutObject'] }],
  },
  // The URL is signed with the function's credentials: its role is what allows the upload, and only there.
  'lib/adapters/image-upload-urls.ts': {
    grants: [{ resource: 'ImagesBucket', part: 'uploads/*', actions: ['s3:PutObject'] }],
  },
  // S3 answers a HEAD of a missing key with 404 only to callers that may list the bucket (403 otherwise).
  'lib/adapters/image-upload-claims.ts': {
    grants: [
      { resource: 'ImagesBucket', part: 'uploads/*', actions: ['s3:GetObject', 's3:DeleteObject'] },
      { resource: 'ImagesBucket', actions: ['s3:ListBucket'] },
    ],
  },

  // --- ratelimit (EphemeralTable) ---
  'lib/ratelimit/limiter.ts': { grants: dynamo('EphemeralTable', ['UpdateItem']) },
  // Every authenticator is bundled where any is, but only HMAC-signed writes spend their signature.
  'lib/ratelimit/once.ts': {
    grants: [{ resource: 'EphemeralTable', actions: ['dynamodb:PutItem'], only: 'signedWrites' }],
  },

  // --- user (UsersTable) ---
  'lib/user/repository.ts': {
    grants: dynamo('UsersTable', ['GetItem', 'BatchGetItem', 'PutItem', 'UpdateItem', 'ConditionCheckItem']),
  },
  'lib/user/legacy-wallets.ts': { grants: dynamo('UsersTable', ['Scan', 'UpdateItem']) },
  'lib/user/merge.ts': {
    grants: dynamo('UsersTable', ['Scan', 'PutItem', 'UpdateItem', 'ConditionCheckItem']),
  },
  'lib/user/provider.ts': none,
  // Reads IDP_IMPORT_API_URL, a setting every function has (serverless.yml provider.environment).
  'lib/user/directory.ts': none,
  // New users queued for their import into the identity provider (the saves, the games' splits); the worker
  // bundles it too.
  'lib/user/importer.ts': {
    grants: [{ resource: 'UserImportQueue', actions: ['sqs:SendMessage'] }],
    environment: { USER_IMPORT_QUEUE_URL: { Ref: 'UserImportQueue' } },
  },
  // The import worker's shared pace at the provider: one UsersTable item (lib/user/keys.ts, importPace).
  'lib/user/import-pace.ts': { grants: dynamo('UsersTable', ['GetItem', 'UpdateItem']) },

  // --- connect (UsersTable, codes in the EphemeralTable) ---
  'lib/connect/keys.ts': none,
  'lib/connect/grant-reads.ts': { grants: dynamo('UsersTable', ['GetItem']) },
  'lib/connect/repository.ts': {
    grants: dynamo('UsersTable', ['GetItem', 'Query', 'PutItem', 'UpdateItem', 'DeleteItem']),
  },
  // Authorization codes: only the consent (writes them) and the token endpoint (reads and spends them).
  'lib/connect/codes.ts': { grants: dynamo('EphemeralTable', ['GetItem', 'PutItem', 'UpdateItem']) },

  // --- games (GamesTable) ---
  'lib/games/repository.ts': {
    grants: dynamo('GamesTable', [
      'GetItem',
      'BatchGetItem',
      'Query',
      'PutItem',
      'UpdateItem',
      'DeleteItem',
      'ConditionCheckItem',
    ]),
  },
  'lib/games/listings.ts': { grants: dynamo('GamesTable', ['Query', 'Scan'], '*') },
  'lib/games/merge.ts': { grants: dynamo('GamesTable', ['Scan']) },

  // --- play (PlayTable) ---
  'lib/play/repository.ts': { grants: dynamo('PlayTable', ['GetItem', 'BatchGetItem', 'Query'], '*') },
  // The games with activity on a day (the settlement schedule): a Query of the byActiveDay index only.
  'lib/play/ranks/day-board.ts': { grants: dynamo('PlayTable', ['Query'], 'byActiveDay') },
  'lib/play/protocol/budget.ts': { grants: dynamo('PlayTable', ['UpdateItem']) },
  'lib/play/ranks/writes.ts': { grants: dynamo('PlayTable', ['UpdateItem']) },
  // A rank read records a large tie group it found on its board's meta item (a hint for later reads).
  'lib/play/ranks/around.ts': { grants: dynamo('PlayTable', ['UpdateItem']) },
  'lib/play/saves/writes.ts': {
    grants: dynamo('PlayTable', ['PutItem', 'UpdateItem', 'ConditionCheckItem']),
  },
  // The session protocol's writes on open sessions and the totals they move; the opening's, the one Put, apart.
  'lib/play/protocol/repository.ts': { grants: dynamo('PlayTable', ['UpdateItem']) },
  'lib/play/protocol/open-repository.ts': { grants: dynamo('PlayTable', ['PutItem', 'UpdateItem']) },
  'lib/play/player-names.ts': { grants: dynamo('PlayTable', ['UpdateItem']) },
  'lib/play/merge.ts': { grants: dynamo('PlayTable', ['Scan', 'UpdateItem', 'DeleteItem']) },
  // Its signing key comes from lib/adapters/secrets.ts (derivedKey), which declares the secret.
  'lib/play/protocol/token.ts': none,
  'lib/play/ranks/tournament-entries.ts': { grants: dynamo('PlayTable', ['PutItem', 'UpdateItem']) },
  'lib/tournaments/repository.ts': { grants: dynamo('PlayTable', ['GetItem', 'Query', 'PutItem']) },
  // Periods due to close: a Query of the byPeriodClose index, and the record's close marks.
  'lib/tournaments/close-repository.ts': {
    grants: dynamo('PlayTable', ['Query', 'UpdateItem'], 'byPeriodClose'),
  },

  // --- insights (their day counters, in PlayTable) ---
  // The counters' ADD, an item of the changes' own transactions (saves, commits, joins, webhook attempts, …).
  'lib/insights/keys.ts': none,
  'lib/insights/counters.ts': { grants: dynamo('PlayTable', ['UpdateItem']) },
  'lib/insights/repository.ts': { grants: dynamo('PlayTable', ['Query']) },

  // --- rewards (RewardsTable) ---
  // The save paths read a multiplier slot (a key with its table) in their one BatchGetItem across both tables.
  'lib/rewards/keys.ts': { grants: dynamo('RewardsTable', ['BatchGetItem']) },
  'lib/rewards/repository.ts': {
    grants: dynamo('RewardsTable', ['GetItem', 'PutItem', 'UpdateItem', 'DeleteItem', 'ConditionCheckItem']),
  },
  'lib/rewards/allowances/repository.ts': {
    grants: dynamo('RewardsTable', ['GetItem', 'Query', 'UpdateItem', 'DeleteItem', 'ConditionCheckItem']),
  },
  'lib/rewards/pool-repository.ts': { grants: dynamo('RewardsTable', ['Query', 'PutItem']) },
  'lib/rewards/payout.ts': { grants: dynamo('RewardsTable', ['UpdateItem']) },
  // Deposits into tournament periods, their funds (the prize run's freeze builds an Update of the fund).
  'lib/rewards/deposit-repository.ts': {
    grants: dynamo('RewardsTable', ['GetItem', 'PutItem', 'UpdateItem']),
  },
  // The day's books, an Update in the transactions that move the pool's totals.
  // GET /games/{gameId}/insights reads the days' sales and payouts (a Query).
  'lib/rewards/pool-days.ts': { grants: dynamo('RewardsTable', ['UpdateItem', 'Query']) },
  // The history's pages (a Query; TransactGetItems needs GetItem); its cursor's key comes from lib/adapters/secrets.ts.
  'lib/rewards/pools/history.ts': { grants: dynamo('RewardsTable', ['Query', 'GetItem']) },

  // --- settlement (SettlementTable, its queue, the payout DLQ) ---
  'lib/rewards/settlement/keys.ts': none,
  'lib/rewards/settlement/repository.ts': {
    grants: dynamo(
      'SettlementTable',
      [
        'GetItem',
        'BatchGetItem',
        'Query',
        'PutItem',
        'UpdateItem',
        'DeleteItem',
        'BatchWriteItem',
        'ConditionCheckItem',
      ],
      '*',
    ),
  },
  'lib/rewards/settlement/payout-repository.ts': {
    grants: dynamo('SettlementTable', ['GetItem', 'PutItem', 'UpdateItem']),
  },
  'lib/rewards/settlement/commitment-repository.ts': {
    grants: dynamo('SettlementTable', ['GetItem', 'PutItem', 'UpdateItem']),
  },
  'lib/rewards/settlement/commitment.ts': none,
  'lib/rewards/settlement/statement-reads.ts': {
    grants: dynamo('SettlementTable', ['GetItem', 'BatchGetItem', 'Query']),
  },
  'lib/rewards/settlement/statements.ts': none,
  'lib/rewards/settlement/statement.ts': none,
  'lib/rewards/settlement/statement-tree.ts': none,
  'lib/rewards/settlement/contracts.ts': none,
  'lib/rewards/settlement/merge.ts': {
    grants: dynamo(
      'SettlementTable',
      ['GetItem', 'Query', 'PutItem', 'UpdateItem', 'DeleteItem', 'ConditionCheckItem'],
      '*',
    ),
  },
  'lib/rewards/settlement/settle.ts': none,
  'lib/rewards/settlement/prizes.ts': none,
  // The schedule's producer side, and the payout DLQ a line that kept failing is parked in.
  'lib/rewards/settlement/queue.ts': {
    grants: [
      { resource: 'SettlementQueue', actions: ['sqs:SendMessage'] },
      { resource: 'PayoutDlq', actions: ['sqs:SendMessage'] },
    ],
    environment: { SETTLEMENT_QUEUE_URL: { Ref: 'SettlementQueue' }, PAYOUT_DLQ_URL: { Ref: 'PayoutDlq' } },
  },

  // --- snapshots (SnapshotsTable, SnapshotsBucket, the snapshot queue) ---
  'lib/snapshots/repository.ts': {
    grants: dynamo('SnapshotsTable', ['GetItem', 'Query', 'Scan', 'PutItem', 'UpdateItem', 'DeleteItem']),
  },
  'lib/snapshots/emission/repository.ts': {
    grants: dynamo('SnapshotsTable', ['GetItem', 'Query', 'PutItem', 'UpdateItem', 'ConditionCheckItem']),
  },
  'lib/snapshots/storage.ts': {
    grants: [{ resource: 'SnapshotsBucket', part: 'snapshots/*', actions: ['s3:GetObject', 's3:PutObject'] }],
  },
  'lib/snapshots/queue.ts': {
    grants: [{ resource: 'SnapshotQueue', actions: ['sqs:SendMessage', 'sqs:GetQueueUrl'] }],
    environment: { SNAPSHOT_QUEUE_URL: { Ref: 'SnapshotQueue' } },
  },

  // --- launcher (LauncherTable, the launch state machine) ---
  'lib/launcher/repository.ts': {
    grants: dynamo('LauncherTable', ['GetItem', 'Query', 'PutItem', 'UpdateItem'], 'openJobs'),
  },
  'lib/launcher/lock-repository.ts': {
    grants: dynamo('LauncherTable', ['GetItem', 'PutItem', 'UpdateItem', 'DeleteItem', 'ConditionCheckItem']),
  },
  'lib/launcher/coin-repository.ts': {
    grants: dynamo('LauncherTable', ['GetItem', 'PutItem', 'UpdateItem']),
  },
  'lib/launcher/sfn.ts': none,
  'lib/launcher/execution-start.ts': {
    grants: [{ resource: 'LaunchStateMachine', actions: ['states:StartExecution'] }],
  },
  // Only the launch state machine's executions, to read their status and stop an overdue one.
  'lib/launcher/executions.ts': {
    grants: [{ resource: 'LaunchExecutions', actions: ['states:DescribeExecution', 'states:StopExecution'] }],
  },
  // --- outbox and webhooks (WebhooksTable, the delivery queue) ---
  // The outbox item a change adds to its own transaction: a Put into WebhooksTable from any domain's function.
  'lib/outbox/outbox.ts': { grants: dynamo('WebhooksTable', ['PutItem']) },
  'lib/outbox/events.ts': none,
  // After the change commits, its writer sends the events' ids to the delivery worker (one SendMessage).
  'lib/outbox/relay-now.ts': {
    grants: [{ resource: 'WebhookQueue', actions: ['sqs:SendMessage', 'sqs:GetQueueUrl'] }],
    environment: { WEBHOOK_QUEUE_URL: { Ref: 'WebhookQueue' } },
  },
  'lib/webhooks/repository.ts': {
    grants: dynamo(
      'WebhooksTable',
      ['GetItem', 'Query', 'PutItem', 'UpdateItem', 'DeleteItem', 'ConditionCheckItem'],
      'byOutboxPending',
    ),
  },
  'lib/webhooks/service.ts': { grants: dynamo('WebhooksTable', ['PutItem']) },
  'lib/webhooks/queue.ts': {
    grants: [{ resource: 'WebhookQueue', actions: ['sqs:SendMessage', 'sqs:GetQueueUrl'] }],
    environment: { WEBHOOK_QUEUE_URL: { Ref: 'WebhookQueue' } },
  },

  'functions/launcher/launch-game-coin.ts': { environment: launchStateMachineArn },
  'functions/launcher/sweep-launch-jobs.ts': { environment: launchStateMachineArn },
};

/** The table each domain owns (docs/architecture.md): what an undeclared module of the domain is assumed to use. */
const OWNED: Record<string, ResourceId> = {
  user: 'UsersTable',
  games: 'GamesTable',
  play: 'PlayTable',
  rewards: 'RewardsTable',
  settlement: 'SettlementTable',
  snapshots: 'SnapshotsTable',
  launcher: 'LauncherTable',
  ratelimit: 'EphemeralTable',
  webhooks: 'WebhooksTable',
  outbox: 'WebhooksTable',
};

/** Source text that reaches AWS: an SDK command, a transaction item, an S3 call, or a resource's setting. */
export const CALLS =
  /new [A-Z]\w*Command\(|\b(?:Put|Update|Delete|ConditionCheck): \{|\bs3\(\)\.|requireSetting\('[A-Z_]+'\)|settings\(\)\.[A-Z_]+_(?:TABLE|BUCKET|QUEUE_URL|SECRET_ID|ARN)\b/;

/** The DynamoDB actions a module's text uses: its commands and the items of the transactions it builds. */
export const dynamoActionsIn = (source: string): string[] =>
  (
    [
      [/new GetCommand\(/, 'GetItem'],
      [/new BatchGetCommand\(/, 'BatchGetItem'],
      [/new QueryCommand\(/, 'Query'],
      [/new ScanCommand\(/, 'Scan'],
      [/new PutCommand\(|\bPut: \{/, 'PutItem'],
      [/new UpdateCommand\(|\bUpdate: \{/, 'UpdateItem'],
      [/new DeleteCommand\(|\bDelete: \{/, 'DeleteItem'],
      [/\bConditionCheck: \{/, 'ConditionCheckItem'],
      [/new BatchWriteCommand\(/, 'BatchWriteItem'],
    ] as const
  )
    .filter(([pattern]) => pattern.test(source))
    .map(([, action]) => action);

/**
 * The access of one bundled module: its declaration, or, for a module of a domain that reaches AWS and is not
 * declared yet (moved or new), its domain's table with the actions of the commands its text uses, so that
 * regenerating after a move still grants what the code needs. `undeclared` says which case it was.
 */
export const accessOf = (path: string, source: string): { access: ModuleAccess; undeclared: boolean } => {
  const declared = ACCESS[path];
  if (declared) return { access: declared, undeclared: false };
  if (!CALLS.test(source)) return { access: none, undeclared: false };
  const domain = /^lib\/([a-z]+)\//.exec(path)?.[1] ?? '';
  const table = OWNED[domain];
  if (!table) return { access: none, undeclared: true };
  const actions = dynamoActionsIn(source);
  const grants = actions.length ? dynamo(table, actions, /IndexName/.test(source) ? '*' : undefined) : [];
  return { access: { grants }, undeclared: true };
};

/** A grant's resource as the template writes it. */
export const arnOf = (grant: Grant): unknown => {
  const arn = { 'Fn::GetAtt': [grant.resource, 'Arn'] };
  switch (grant.resource) {
    case 'VaultKeySecret':
    case 'SecretsKeySecret':
    case 'LaunchStateMachine':
      return { Ref: grant.resource };
    case 'IdpCredentialsSecret':
      // The deployer creates it, so it is named, not referenced; `-??????` is the random suffix Secrets Manager
      // appends to every secret's ARN.
      return {
        'Fn::Join': [
          '',
          [
            'arn:',
            { Ref: 'AWS::Partition' },
            ':secretsmanager:',
            { Ref: 'AWS::Region' },
            ':',
            { Ref: 'AWS::AccountId' },
            // biome-ignore lint/suspicious/noTemplateCurlyInString: a serverless variable
            ':secret:${self:custom.names.idpCredentialsSecret}-??????',
          ],
        ],
      };
    case 'SecretsKmsKey':
      return {
        'Fn::If': [
          'SecretsKmsKeyNamed',
          // biome-ignore lint/suspicious/noTemplateCurlyInString: a serverless variable
          "${env:SECRETS_KMS_KEY_ARN, ''}",
          {
            // biome-ignore lint/suspicious/noTemplateCurlyInString: CloudFormation fills the pseudo parameters
            'Fn::Sub': 'arn:${AWS::Partition}:kms:${AWS::Region}:${AWS::AccountId}:alias/aws/secretsmanager',
          },
        ],
      };
    case 'LaunchExecutions':
      return {
        'Fn::Sub': [
          // biome-ignore lint/suspicious/noTemplateCurlyInString: CloudFormation fills the pseudo parameters
          'arn:${AWS::Partition}:states:${AWS::Region}:${AWS::AccountId}:execution:${self:custom.names.launchStateMachine}:*',
          {},
        ],
      };
    case 'ImagesBucket':
    case 'SnapshotsBucket':
      return grant.part ? { 'Fn::Join': ['', [arn, `/${grant.part}`]] } : arn;
    default:
      return grant.part ? { 'Fn::Join': ['/', [arn, grant.part]] } : arn;
  }
};

/** What the route is, for the grants that hold for some routes only. */
export interface RouteFacts {
  /** An HMAC-signed request that is not a GET (it spends its signature once). */
  signedWrite: boolean;
}

/** One statement per resource (ARN), its actions sorted: the union of the modules' grants. */
export const statementsOf = (
  accesses: ModuleAccess[],
  route: RouteFacts | undefined,
): Array<{ Effect: 'Allow'; Action: string[]; Resource: unknown }> => {
  const byArn = new Map<string, { resource: unknown; actions: Set<string> }>();
  for (const grant of accesses.flatMap((a) => a.grants ?? [])) {
    if (grant.only === 'signedWrites' && !route?.signedWrite) continue;
    if (grant.actions.length === 0) continue;
    const resource = arnOf(grant);
    const key = JSON.stringify(resource);
    const entry = byArn.get(key) ?? { resource, actions: new Set<string>() };
    for (const action of grant.actions) entry.actions.add(action);
    byArn.set(key, entry);
  }
  return [...byArn.entries()]
    .sort(([a], [b]) => a.localeCompare(b))
    .map(([, { resource, actions }]) => ({
      Effect: 'Allow',
      Action: [...actions].sort(),
      Resource: resource,
    }));
};

/** The environment entries the modules read, by name. */
export const environmentOf = (accesses: ModuleAccess[]): Record<string, unknown> =>
  Object.fromEntries(
    accesses.flatMap((a) => Object.entries(a.environment ?? {})).sort(([a], [b]) => a.localeCompare(b)),
  );
