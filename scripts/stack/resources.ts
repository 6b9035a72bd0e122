// Creates the local equivalent of every resource in the resolved serverless configuration: tables on
// DynamoDB Local, buckets and queues on fauxqs, secrets on the Secrets Manager stand-in; state machines are
// resolved for the Step Functions stand-in.
import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { CreateBucketCommand, S3Client } from '@aws-sdk/client-s3';
import { SecretsManagerClient } from '@aws-sdk/client-secrets-manager';
import { SQSClient } from '@aws-sdk/client-sqs';
import type { CfnResource, ServerlessConfig } from './config.js';
import { functionLogicalId, type LocalRef, type RefScope, resolveString } from './intrinsics.js';
import type { StackLogger } from './log.js';
import { ensureTable, type TableProps } from './provision-dynamodb.js';
import { ensureSecret, type ProvisionedSecret } from './provision-secrets.js';
import { ensureQueue, type ProvisionedQueue, queueCreationOrder } from './provision-sqs.js';
import { type LocalStateMachine, localStateMachines, stateMachineRefs } from './statemachines.js';

/** Endpoints of the local AWS stand-ins. */
export interface LocalEndpoints {
  dynamodb: string;
  s3: string;
  sqs: string;
  secretsManager: string;
}

export interface ProvisionOptions {
  region: string;
  accountId: string;
  log: StackLogger;
}

/** What exists locally after provisioning, by CloudFormation logical id. */
export interface ProvisionedResources {
  /** Logical id → table name. */
  tables: Record<string, string>;
  /** Logical id → bucket name. */
  buckets: Record<string, string>;
  queues: Record<string, ProvisionedQueue>;
  secrets: Record<string, ProvisionedSecret>;
  stateMachines: LocalStateMachine[];
  /** Logical id → the value `Ref` gives locally (table/bucket name, queue URL, state machine ARN, function name). */
  names: Record<string, string>;
  /** Everything intrinsic functions can refer to locally. */
  scope: RefScope;
  /** Resources of types the local stack has no stand-in for. */
  ignored: { logicalId: string; type: string }[];
}

export const LOCAL_CREDENTIALS = { accessKeyId: 'local', secretAccessKey: 'local' };

/** Creates every table, bucket and queue of `config` (idempotently) and resolves its state machines. */
export async function provisionResources(
  config: ServerlessConfig,
  endpoints: LocalEndpoints,
  { region, accountId, log }: ProvisionOptions,
): Promise<ProvisionedResources> {
  const resources = config.resources?.Resources ?? {};
  const ofType = (type: string) =>
    Object.fromEntries(Object.entries(resources).filter(([, resource]) => resource.Type === type));
  const stackName = `${config.service}-${config.provider.stage ?? 'dev'}`;
  const refs = new Map<string, LocalRef>();
  const scope: RefScope = {
    refs,
    conditions: config.resources?.Conditions ?? {},
    pseudo: {
      'AWS::Region': region,
      'AWS::AccountId': accountId,
      'AWS::Partition': 'aws',
      'AWS::StackName': stackName,
      'AWS::URLSuffix': 'amazonaws.com',
    },
  };

  const clientConfig = { region, credentials: LOCAL_CREDENTIALS, maxAttempts: 3 };
  const dynamodb = new DynamoDBClient({ ...clientConfig, endpoint: endpoints.dynamodb });
  const s3 = new S3Client({ ...clientConfig, endpoint: endpoints.s3, forcePathStyle: true });
  const sqs = new SQSClient({ ...clientConfig, endpoint: endpoints.sqs });
  const secretsManager = new SecretsManagerClient({ ...clientConfig, endpoint: endpoints.secretsManager });
  let tables: Record<string, string>;
  let buckets: Record<string, string>;
  let queues: Record<string, ProvisionedQueue>;
  let secrets: Record<string, ProvisionedSecret>;
  try {
    [tables, buckets, secrets] = await Promise.all([
      createTables(ofType('AWS::DynamoDB::Table'), scope, dynamodb, log),
      createBuckets(ofType('AWS::S3::Bucket'), scope, s3),
      createSecrets(ofType('AWS::SecretsManager::Secret'), scope, secretsManager),
    ]);
    queues = await createQueues(ofType('AWS::SQS::Queue'), scope, sqs);
  } finally {
    for (const client of [dynamodb, s3, sqs, secretsManager]) client.destroy();
  }

  for (const [key, fn] of Object.entries(config.functions ?? {})) {
    const name = fn.name ?? `${stackName}-${key}`;
    const ref = { ref: name, attributes: { Arn: `arn:aws:lambda:${region}:${accountId}:function:${name}` } };
    refs.set(functionLogicalId(key), ref);
    // serverless-step-functions also accepts the function key itself in Fn::GetAtt.
    if (!refs.has(key)) refs.set(key, ref);
  }
  for (const [id, ref] of stateMachineRefs(config, region, accountId)) refs.set(id, ref);

  const stateMachines = localStateMachines(config, scope, region, accountId);
  for (const machine of stateMachines) {
    if (machine.error)
      log.error(`stepfunctions: state machine ${machine.key} cannot run locally: ${machine.error}`);
  }

  const known = new Set([
    'AWS::DynamoDB::Table',
    'AWS::S3::Bucket',
    'AWS::SQS::Queue',
    'AWS::SecretsManager::Secret',
  ]);
  const ignored = Object.entries(resources)
    .filter(([, resource]) => !known.has(resource.Type))
    .map(([logicalId, resource]) => ({ logicalId, type: resource.Type }));
  for (const { logicalId, type } of ignored)
    log.debug(`resources: no local stand-in for ${logicalId} (${type})`);

  const names = Object.fromEntries([...refs].map(([id, ref]) => [id, ref.ref]));
  return { tables, buckets, queues, secrets, stateMachines, names, scope, ignored };
}

// A name property may itself use intrinsics (Fn::Sub with AWS::StackName, ...); CloudFormation generates
// `<stack>-<logical id>` when it is absent.
function nameOf(value: unknown, logicalId: string, scope: RefScope): string {
  if (value === undefined) return `${scope.pseudo['AWS::StackName']}-${logicalId}`;
  return resolveString(value, scope);
}

async function createTables(
  resources: Record<string, CfnResource>,
  scope: RefScope,
  client: DynamoDBClient,
  log: StackLogger,
): Promise<Record<string, string>> {
  const created = await Promise.all(
    Object.entries(resources).map(async ([id, resource]) => {
      const props = (resource.Properties ?? {}) as TableProps & { TableName?: unknown };
      const name = await ensureTable(client, nameOf(props.TableName, id, scope), props, log);
      return [id, name] as const;
    }),
  );
  for (const [id, name] of created) {
    const arn = `arn:aws:dynamodb:${scope.pseudo['AWS::Region']}:${scope.pseudo['AWS::AccountId']}:table/${name}`;
    scope.refs.set(id, { ref: name, attributes: { Arn: arn } });
  }
  return Object.fromEntries(created);
}

async function createBuckets(
  resources: Record<string, CfnResource>,
  scope: RefScope,
  client: S3Client,
): Promise<Record<string, string>> {
  const created = await Promise.all(
    Object.entries(resources).map(async ([id, resource]) => {
      const name = nameOf(resource.Properties?.BucketName, id, scope).toLowerCase();
      try {
        await client.send(new CreateBucketCommand({ Bucket: name }));
      } catch (error) {
        if (!(error instanceof Error && /^BucketAlready(OwnedByYou|Exists)$/.test(error.name))) throw error;
      }
      return [id, name] as const;
    }),
  );
  for (const [id, name] of created) {
    scope.refs.set(id, {
      ref: name,
      attributes: { Arn: `arn:aws:s3:::${name}`, DomainName: `${name}.s3.amazonaws.com` },
    });
  }
  return Object.fromEntries(created);
}

/**
 * Creates the AWS::SQS::Queue resources one at a time, dead-letter queues first (a redrive policy names its DLQ
 * by ARN), and records each queue's Ref / Fn::GetAtt values in `scope`.
 */
export async function createQueues(
  resources: Record<string, CfnResource>,
  scope: RefScope,
  client: SQSClient,
): Promise<Record<string, ProvisionedQueue>> {
  const queues: Record<string, ProvisionedQueue> = {};
  for (const id of queueCreationOrder(resources)) {
    const queue = await ensureQueue(client, id, resources[id] as CfnResource, scope);
    queues[id] = queue;
    scope.refs.set(id, {
      ref: queue.url,
      attributes: { Arn: queue.arn, QueueName: queue.name, QueueUrl: queue.url },
    });
  }
  return queues;
}

/** Creates the AWS::SecretsManager::Secret resources; `Ref` gives a secret's ARN, as in CloudFormation. */
async function createSecrets(
  resources: Record<string, CfnResource>,
  scope: RefScope,
  client: SecretsManagerClient,
): Promise<Record<string, ProvisionedSecret>> {
  const created = await Promise.all(
    Object.entries(resources).map(async ([id, resource]) => ensureSecret(client, id, resource, scope)),
  );
  for (const secret of created)
    scope.refs.set(secret.logicalId, { ref: secret.arn, attributes: { Id: secret.arn } });
  return Object.fromEntries(created.map((secret) => [secret.logicalId, secret]));
}
