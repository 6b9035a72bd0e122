// The close index of tournament periods (the sparse byPeriodClose index of the play table): the periods due to
// close, and the marks a close writes on a period record. Apart from repository.ts: only the close schedule and
// the settlement worker query that index and write these marks, and a function is granted what the modules in
// its bundle declare (infra/access.ts).
import { QueryCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { dynamo, isConditionFailure } from '../adapters/dynamodb.js';
import { CLOSE_SHARDS, playTable, tournamentPlayKeys } from '../play/index.js';
import type { PeriodCloseMessage } from '../rewards/index.js';

/** Periods read per index partition and run: a run queues at most this many × CLOSE_SHARDS. */
const PER_SHARD = 500;

/** The period records' keys: `TPERIOD#<gameId>#<tournamentId>` / `<periodId>`. */
const refOf = (pk: string, sk: string): PeriodCloseMessage | undefined => {
  const [kind, gameId, tournamentId, ...rest] = pk.split('#');
  return kind === 'TPERIOD' && gameId && tournamentId && rest.length === 0
    ? { gameId, tournamentId, periodId: sk }
    : undefined;
};

/** The periods whose close time has passed (one Query per index partition). */
export const duePeriodCloses = async (now: Date): Promise<PeriodCloseMessage[]> => {
  const pages = await Promise.all(
    Array.from({ length: CLOSE_SHARDS }, (_, shard) =>
      dynamo().send(
        new QueryCommand({
          TableName: playTable(),
          IndexName: 'byPeriodClose',
          KeyConditionExpression: 'closeDue = :due AND closeAt <= :now',
          ExpressionAttributeValues: { ':due': `CLOSE#${shard}`, ':now': now.toISOString() },
          Limit: PER_SHARD,
        }),
      ),
    ),
  );
  return pages.flatMap((page) =>
    (page.Items ?? []).flatMap((item) => {
      const ref = refOf(String(item.pk), String(item.sk));
      return ref ? [ref] : [];
    }),
  );
};

/** A queued close's next close time (it stays in the index); a period closed meanwhile has left it. */
export const postponeClose = async (m: PeriodCloseMessage, later: string) => {
  try {
    await dynamo().send(
      new UpdateCommand({
        TableName: playTable(),
        Key: tournamentPlayKeys.period(m.gameId, m.tournamentId, m.periodId),
        UpdateExpression: 'SET closeAt = :later',
        ConditionExpression: 'attribute_exists(closeDue)',
        ExpressionAttributeValues: { ':later': later },
      }),
    );
  } catch (error) {
    // Closed meanwhile: it left the index.
    if (!isConditionFailure(error)) throw error;
  }
};

/**
 * The period record leaves the close index, with when it closed and its pot (the periods list shows them).
 * Fails on its condition when the record is gone.
 */
export const markClosed = async (m: PeriodCloseMessage, closedAt: string, potLamports: string) => {
  await dynamo().send(
    new UpdateCommand({
      TableName: playTable(),
      Key: tournamentPlayKeys.period(m.gameId, m.tournamentId, m.periodId),
      UpdateExpression: 'SET closedAt = :at, potLamports = :pot REMOVE closeDue, closeAt',
      ConditionExpression: 'attribute_exists(pk)',
      ExpressionAttributeValues: { ':at': closedAt, ':pot': potLamports },
    }),
  );
};

/** A period record naming no period of a tournament leaves the close index (never queued again). */
export const dropClose = async (m: PeriodCloseMessage) => {
  try {
    await dynamo().send(
      new UpdateCommand({
        TableName: playTable(),
        Key: tournamentPlayKeys.period(m.gameId, m.tournamentId, m.periodId),
        UpdateExpression: 'REMOVE closeDue, closeAt',
        ConditionExpression: 'attribute_exists(pk)',
      }),
    );
  } catch (error) {
    if (!isConditionFailure(error)) throw error;
  }
};
