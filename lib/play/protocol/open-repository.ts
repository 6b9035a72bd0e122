// The opening's write (docs/play-protocol.md §1): the session item put and the player's day counting it, in one
// transaction. Apart from repository.ts because it is the protocol's one Put: a function is granted what the
// modules in its bundle declare (infra/access.ts), and only the opening's function puts sessions.
import { transactNamed } from '../../adapters/dynamodb.js';
import type { GameRecord } from '../../games/index.js';
import { playIndexes, playKeys } from '../keys.js';
import { playTable, updateExpression } from '../repository.js';

/** A session as it opens: who plays which game, its chain seed, and the game's caps as of now. */
export interface Opening {
  gameId: string;
  sessionId: string;
  arcId: string;
  day: string;
  chainSeed: string;
  at: string;
  expiresAt: string;
  /** The game's sessions per player and day (the day's counter stays below it). */
  sessionsCap: GameRecord['maxSessionsPerDay'];
  caps: Pick<
    GameRecord,
    'maxScorePerSession' | 'maxCumulativePointsPerDay' | 'maxPointsPerSecond' | 'maxBurstPoints'
  >;
}

/**
 * Open a session: the day's session counter (below the cap) and the session item (a new id). The names of the
 * writes whose condition failed (`day`: at the cap; `session`: the id exists), if any.
 */
export const writeOpening = (o: Opening) => {
  const TableName = playTable();
  return transactNamed({
    day: {
      Update: {
        TableName,
        Key: playKeys.day(o.gameId, o.arcId, o.day),
        UpdateExpression: updateExpression({
          add: ['sessions :one', 'points :zero'],
          set: ['arcId = :a', 'updatedAt = :now'],
        }),
        ConditionExpression: 'attribute_not_exists(sessions) OR sessions < :cap',
        ExpressionAttributeValues: {
          ':one': 1,
          ':zero': 0,
          ':a': o.arcId,
          ':now': o.at,
          ':cap': o.sessionsCap,
        },
      },
    },
    session: {
      Put: {
        TableName,
        Item: {
          ...playKeys.session(o.gameId, o.sessionId),
          gameId: o.gameId,
          sessionId: o.sessionId,
          arcId: o.arcId,
          day: o.day,
          source: 'sdk',
          status: 'active',
          seq: 0,
          head: o.chainSeed,
          chainSeed: o.chainSeed,
          points: 0,
          pendingPoints: 0,
          claimedTotal: 0,
          saves: 0,
          capHits: 0,
          chainBreaks: 0,
          resyncs: 0,
          flushIntervals: [],
          // The game's caps as of the opening: a change applies to sessions opened after it.
          maxScorePerSession: o.caps.maxScorePerSession,
          maxCumulativePointsPerDay: o.caps.maxCumulativePointsPerDay,
          maxPointsPerSecond: o.caps.maxPointsPerSecond,
          maxBurstPoints: o.caps.maxBurstPoints,
          parallelSessions: 0,
          ...playIndexes.risk(o.gameId, { score: 0, reasons: [] }),
          createdAt: o.at,
          updatedAt: o.at,
          lastFlushAt: o.at,
          expiresAt: o.expiresAt,
          ...playIndexes.session(o.gameId, o.sessionId, o.at),
        },
        ConditionExpression: 'attribute_not_exists(pk)',
      },
    },
  });
};
