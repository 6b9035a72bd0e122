import type { SQSBatchResponse, SQSEvent } from 'aws-lambda';
import { chainFromConfig } from '../../lib/chain/index.js';
import { settings } from '../../lib/core/config.js';
import { observed } from '../../lib/core/observed.js';
import { now } from '../../lib/core/time.js';
import { dayStandings } from '../../lib/play/index.js';
import {
  parkPayout,
  priceFromConfig,
  processSettlementBatch,
  type SettlementDeps,
  settleGameDay,
} from '../../lib/rewards/index.js';
import { coinEmissionDeps, settleCoinEmission } from '../../lib/snapshots/index.js';
import { closePeriod } from '../../lib/tournaments/index.js';

settings(); // parsed at cold start: a misconfigured container fails here, naming the setting

export const sideEffects: SettlementDeps = {
  chain: chainFromConfig(),
  price: priceFromConfig(),
  standings: dayStandings,
  now,
  park: (record) => parkPayout(record),
};
const emissionDeps = coinEmissionDeps();
// The day's game coin emission, to the same frozen players (idempotent per game and day on its side).
// Players without a wallet cannot receive coins: the day's emission is shared among those who can.
sideEffects.settleCoinEmission = ({ gameId, day, players }) =>
  settleCoinEmission(
    { gameId, day, players: players.flatMap((p) => (p.wallet ? [{ ...p, wallet: p.wallet }] : [])) },
    emissionDeps,
  );

/**
 * SettlementQueue consumer: one (game, day), or one tournament period to close, per message; failures reported per
 * item (ReportBatchItemFailures).
 */
export const handler = observed(
  (event: SQSEvent): Promise<SQSBatchResponse> =>
    processSettlementBatch(
      event.Records,
      (gameId, day) => settleGameDay(gameId, day, sideEffects),
      (message) => closePeriod(message, sideEffects),
    ),
);
