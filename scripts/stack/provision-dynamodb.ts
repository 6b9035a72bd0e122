// AWS::DynamoDB::Table → a table on DynamoDB Local (idempotent; adds missing GSIs to a persisted table).
import {
  type AttributeDefinition,
  CreateTableCommand,
  DescribeTableCommand,
  DescribeTimeToLiveCommand,
  type DynamoDBClient,
  type GlobalSecondaryIndex,
  type KeySchemaElement,
  type LocalSecondaryIndex,
  type Projection,
  type StreamSpecification,
  UpdateTableCommand,
  UpdateTimeToLiveCommand,
} from '@aws-sdk/client-dynamodb';
import type { StackLogger } from './log.js';

interface IndexProps {
  IndexName: string;
  KeySchema: KeySchemaElement[];
  Projection?: Projection;
}

/** The subset of `AWS::DynamoDB::Table` properties that shape behaviour locally. */
export interface TableProps {
  AttributeDefinitions?: AttributeDefinition[];
  KeySchema?: KeySchemaElement[];
  GlobalSecondaryIndexes?: IndexProps[];
  LocalSecondaryIndexes?: IndexProps[];
  StreamSpecification?: { StreamViewType?: StreamSpecification['StreamViewType'] };
  TimeToLiveSpecification?: { AttributeName?: string; Enabled?: boolean };
}

/** Creates the table (on-demand billing) or brings an existing one up to date; returns its name. */
export async function ensureTable(
  client: DynamoDBClient,
  tableName: string,
  props: TableProps,
  log: StackLogger,
): Promise<string> {
  const gsis = (props.GlobalSecondaryIndexes ?? []).map(toIndex);
  try {
    await client.send(
      new CreateTableCommand({
        TableName: tableName,
        BillingMode: 'PAY_PER_REQUEST',
        AttributeDefinitions: props.AttributeDefinitions,
        KeySchema: props.KeySchema,
        GlobalSecondaryIndexes: gsis.length > 0 ? gsis : undefined,
        LocalSecondaryIndexes: props.LocalSecondaryIndexes?.map(toIndex) as LocalSecondaryIndex[] | undefined,
        StreamSpecification: props.StreamSpecification?.StreamViewType
          ? { StreamEnabled: true, StreamViewType: props.StreamSpecification.StreamViewType }
          : undefined,
      }),
    );
    log.debug(`dynamodb: created table ${tableName}`);
  } catch (error) {
    if (!(error instanceof Error && error.name === 'ResourceInUseException')) throw error;
    await addMissingIndexes(client, tableName, props, gsis, log);
  }
  await ensureTimeToLive(client, tableName, props.TimeToLiveSpecification, log);
  return tableName;
}

function toIndex(index: IndexProps): GlobalSecondaryIndex {
  return {
    IndexName: index.IndexName,
    KeySchema: index.KeySchema,
    Projection: {
      ProjectionType: index.Projection?.ProjectionType ?? 'ALL',
      NonKeyAttributes: index.Projection?.NonKeyAttributes,
    },
  };
}

async function addMissingIndexes(
  client: DynamoDBClient,
  tableName: string,
  props: TableProps,
  gsis: GlobalSecondaryIndex[],
  log: StackLogger,
): Promise<void> {
  const { Table: table } = await client.send(new DescribeTableCommand({ TableName: tableName }));
  if (JSON.stringify(table?.KeySchema) !== JSON.stringify(props.KeySchema)) {
    log.warn(
      `dynamodb: table ${tableName} exists with another key schema; start with --fresh to recreate it`,
    );
  }
  const existing = new Set((table?.GlobalSecondaryIndexes ?? []).map((index) => index.IndexName));
  for (const index of gsis.filter((gsi) => !existing.has(gsi.IndexName))) {
    await client.send(
      new UpdateTableCommand({
        TableName: tableName,
        AttributeDefinitions: props.AttributeDefinitions,
        GlobalSecondaryIndexUpdates: [{ Create: index }],
      }),
    );
    log.info(`dynamodb: added index ${index.IndexName} to existing table ${tableName}`);
  }
}

async function ensureTimeToLive(
  client: DynamoDBClient,
  tableName: string,
  spec: TableProps['TimeToLiveSpecification'],
  log: StackLogger,
): Promise<void> {
  if (!spec?.Enabled || !spec.AttributeName) return;
  const { TimeToLiveDescription: current } = await client.send(
    new DescribeTimeToLiveCommand({ TableName: tableName }),
  );
  if (current?.TimeToLiveStatus === 'ENABLED' || current?.TimeToLiveStatus === 'ENABLING') {
    if (current.AttributeName !== spec.AttributeName) {
      log.warn(
        `dynamodb: ${tableName} has TTL on ${current.AttributeName}, not ${spec.AttributeName}; use --fresh`,
      );
    }
    return;
  }
  await client.send(
    new UpdateTimeToLiveCommand({
      TableName: tableName,
      TimeToLiveSpecification: { AttributeName: spec.AttributeName, Enabled: true },
    }),
  );
}
