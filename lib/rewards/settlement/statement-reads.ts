// The public reads of payout runs (./contracts.ts): read-only access to the settlement table, kept apart from the
// settlement's writers so the functions that serve them get only the reads (infra/access.ts).
import { BatchGetCommand, GetCommand, QueryCommand } from '@aws-sdk/lib-dynamodb';
import type { NativeAttributeValue } from '@aws-sdk/util-dynamodb';
import { dynamo } from '../../adapters/dynamodb.js';
import type { CommitmentRecord } from './commitment-repository.js';
import { type PrizeRef, settlementKeys, settlementTable } from './keys.js';
import type { Settlement } from './model.js';
import type { PayoutRecord } from './repository.js';
import type { Statement } from './statement.js';

type Item = Record<string, NativeAttributeValue>;
type RunKey = { gameId: string; day: string; prize?: PrizeRef | undefined };

/** An intent as listed: without its lines. */
export type RunHeader = Omit<Settlement, 'lines'>;

const HEADER_FIELDS = [
  'gameId',
  '#day',
  'prize',
  '#status',
  'players',
  'allocated',
  'vaultAddress',
  'statement',
  'frozenAt',
  'settledAt',
  'sk',
];

/**
 * A page of a game's runs, newest first: its days (sk DAY#…), or one tournament's prize runs (sk
 * PRIZE#<tournamentId>#…), after `after` (the sort key suffix the previous page ended on). One Query.
 */
export const runsPage = async (
  gameId: string,
  page: { tournamentId?: string | undefined; after?: string | undefined; limit: number },
): Promise<{ runs: RunHeader[]; last: string | undefined }> => {
  const prefix = page.tournamentId ? `PRIZE#${page.tournamentId}#` : settlementKeys.DAY_PREFIX;
  const pk = settlementKeys.gamePartition(gameId);
  const { Items = [], LastEvaluatedKey } = await dynamo().send(
    new QueryCommand({
      TableName: settlementTable(),
      KeyConditionExpression: 'pk = :pk AND begins_with(sk, :prefix)',
      ExpressionAttributeValues: { ':pk': pk, ':prefix': prefix },
      ExpressionAttributeNames: { '#day': 'day', '#status': 'status' },
      ProjectionExpression: HEADER_FIELDS.join(', '),
      ScanIndexForward: false,
      Limit: page.limit,
      ...(page.after ? { ExclusiveStartKey: { pk, sk: `${prefix}${page.after}` } } : {}),
    }),
  );
  const lastSk = LastEvaluatedKey ? String(LastEvaluatedKey.sk) : undefined;
  return {
    runs: Items.map(({ sk: _sk, ...run }) => run as RunHeader),
    last: lastSk?.slice(prefix.length),
  };
};

/** The commitment records of up to 100 runs (one BatchGetItem; unprocessed keys read again). */
export const commitmentsOf = async (runs: readonly RunKey[]): Promise<Map<string, CommitmentRecord>> => {
  const found = new Map<string, CommitmentRecord>();
  let keys: Item[] = runs.map((run) => settlementKeys.commitment(run.gameId, run.day, run.prize));
  for (let attempt = 0; keys.length > 0 && attempt < 5; attempt++) {
    const out = await dynamo().send(
      new BatchGetCommand({ RequestItems: { [settlementTable()]: { Keys: keys } } }),
    );
    for (const item of out.Responses?.[settlementTable()] ?? [])
      found.set(String(item.pk), item as CommitmentRecord);
    keys = (out.UnprocessedKeys?.[settlementTable()]?.Keys ?? []) as Item[];
  }
  return found;
};

/** The partition key a run's records share (its commitment's, its statement's, its payouts'). */
export const runPartition = (run: RunKey) => settlementKeys.dayPartition(run.gameId, run.day, run.prize);

/**
 * A run as published: its intent, its statement, its commitment and its payout records (three reads at once;
 * the run's partition read between COMMITMENT and the payouts, never its frozen player chunks).
 */
export const runRecords = async (
  run: RunKey,
): Promise<
  | {
      intent: Settlement;
      statement: { statement: Statement; root: string } | undefined;
      commitment: CommitmentRecord | undefined;
      payouts: PayoutRecord[];
    }
  | undefined
> => {
  const TableName = settlementTable();
  const partition = async () => {
    const items: Item[] = [];
    let start: Item | undefined;
    do {
      const page = await dynamo().send(
        new QueryCommand({
          TableName,
          KeyConditionExpression: 'pk = :pk AND sk BETWEEN :from AND :to',
          ExpressionAttributeValues: { ':pk': runPartition(run), ':from': 'COMMITMENT', ':to': 'PAY$' },
          ...(start ? { ExclusiveStartKey: start } : {}),
        }),
      );
      items.push(...(page.Items ?? []));
      start = page.LastEvaluatedKey;
    } while (start);
    return items;
  };
  const [intent, statement, records] = await Promise.all([
    dynamo().send(
      new GetCommand({ TableName, Key: settlementKeys.settlement(run.gameId, run.day, run.prize) }),
    ),
    dynamo().send(
      new GetCommand({ TableName, Key: settlementKeys.statement(run.gameId, run.day, run.prize) }),
    ),
    partition(),
  ]);
  if (!intent.Item) return undefined;
  return {
    intent: intent.Item as Settlement,
    statement: statement.Item
      ? { statement: statement.Item.statement as Statement, root: String(statement.Item.root) }
      : undefined,
    commitment: records.find((item) => item.sk === 'COMMITMENT') as CommitmentRecord | undefined,
    payouts: records.filter((item) => String(item.sk).startsWith('PAY#')) as PayoutRecord[],
  };
};
