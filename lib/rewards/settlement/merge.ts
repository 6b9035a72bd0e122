// What merging two identities of one person needs from the settlement (scripts/merge-identities.ts,
// docs/wallets.md "One identity per person"): which days may still be moved on the boards, the payouts listed
// under the person, and what they are still owed. A payout already sent is the chain's; its record stays the
// settlement's (its line names the identity it was computed for), only the list it shows in moves.
import { GetCommand, QueryCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import type { NativeAttributeValue } from '@aws-sdk/util-dynamodb';
import { dynamo, isConditionFailure, transact } from '../../adapters/dynamodb.js';
import { settlementKeys, settlementTable } from './keys.js';
import { carriesChanged, getSettlement, openDay } from './repository.js';
import { settlesAt } from './settle.js';

type Item = Record<string, NativeAttributeValue>;

/**
 * Whether a (game, day)'s board may change now: its settlement is closed (the board only shows history then), or
 * the day is not due yet and no settlement of it started. A day due or being paid is frozen from the board as it
 * is read, page by page: it is left alone until settled.
 */
export const boardMayChange = async (gameId: string, day: string, now: Date): Promise<boolean> => {
  const settlement = await getSettlement(gameId, day);
  if (settlement) return settlement.status === 'settled';
  if ((await openDay(gameId)) === day) return false;
  return now.getTime() < settlesAt(day).getTime();
};

/**
 * List `from`'s payout records under `to` (GSI byRecipient), conditional on each still being listed under `from`.
 * The record itself (its key, its line, where it was sent) does not change. Returns how many moved, their games,
 * and the lamports they record as sent (to `from`'s wallet, where they stay).
 */
export const redirectPayouts = async (
  from: string,
  to: string,
): Promise<{ moved: number; games: string[]; sentLamports: string }> => {
  // Read the whole list first: the index is eventually consistent, and an update takes its item out of it.
  const items: Item[] = [];
  let start: Item | undefined;
  do {
    const page = await dynamo().send(
      new QueryCommand({
        TableName: settlementTable(),
        IndexName: 'byRecipient',
        KeyConditionExpression: 'recipient = :r',
        ExpressionAttributeValues: { ':r': from },
        ...(start ? { ExclusiveStartKey: start } : {}),
      }),
    );
    items.push(...((page.Items ?? []) as Item[]));
    start = page.LastEvaluatedKey;
  } while (start);
  const games = new Set<string>();
  let moved = 0;
  let sent = 0n;
  for (const item of items) {
    games.add(String(item.gameId));
    try {
      await dynamo().send(
        new UpdateCommand({
          TableName: settlementTable(),
          Key: { pk: item.pk, sk: item.sk },
          UpdateExpression: 'SET recipient = :to, mergedFrom = :from',
          ConditionExpression: 'recipient = :from',
          ExpressionAttributeValues: { ':to': to, ':from': from },
        }),
      );
      moved++;
      if (item.status === 'confirmed') sent += BigInt(String(item.send ?? '0'));
    } catch (error) {
      if (!isConditionFailure(error)) throw error;
    }
  }
  return { moved, games: [...games], sentLamports: sent.toString() };
};

/**
 * Move what `from` is still owed in a game (its carry: lamports that could not land yet) to `to`'s carry, in one
 * transaction conditional on both carries as read and on no settlement of the game being open (a settlement in
 * progress consumed the carries it read). 'open' when one is; the carry is then moved by a later run.
 */
export const moveCarry = async (
  gameId: string,
  from: string,
  to: string,
  now: string,
): Promise<{ lamports: number } | 'open'> => {
  const TableName = settlementTable();
  const read = async (arcId: string) =>
    (
      await dynamo().send(
        new GetCommand({ TableName, Key: settlementKeys.carry(gameId, arcId), ConsistentRead: true }),
      )
    ).Item;
  for (let attempt = 0; attempt < 4; attempt++) {
    const fromCarry = await read(from);
    if (!fromCarry) return { lamports: 0 };
    if (await openDay(gameId)) return 'open';
    const toCarry = await read(to);
    const lamports = Number(fromCarry.lamports ?? 0);
    const owed = Number(toCarry?.lamports ?? 0);
    try {
      await transact([
        {
          ConditionCheck: {
            TableName,
            Key: settlementKeys.open(gameId),
            ConditionExpression: 'attribute_not_exists(pk)',
          },
        },
        {
          Delete: {
            TableName,
            Key: settlementKeys.carry(gameId, from),
            ConditionExpression: 'lamports = :c',
            ExpressionAttributeValues: { ':c': lamports },
          },
        },
        {
          Put: {
            TableName,
            Item: {
              ...settlementKeys.carry(gameId, to),
              ...(toCarry ?? {}),
              lamports: owed + lamports,
              gameId,
              arcId: to,
              updatedAt: now,
            },
            ConditionExpression: toCarry ? 'lamports = :o' : 'attribute_not_exists(pk)',
            ...(toCarry ? { ExpressionAttributeValues: { ':o': owed } } : {}),
          },
        },
        // A run that read the carries before this move can no longer commit its intent (persistIntent).
        carriesChanged(gameId, now),
      ]);
      return { lamports };
    } catch (error) {
      if (!isConditionFailure(error)) throw error;
    }
  }
  throw new Error(`The carries of ${gameId} kept changing; run again`);
};
