// The coin's lifecycle (docs/game-coin.md, "Lifecycle"): `active` from its launch until its last emission day
// settles, then `ended`; the 48-hour creator grace period and the opening to any launcher follow from the end
// (rules.ts).
import { isConditionFailure, transact } from '../adapters/dynamodb.js';
import { endCoinWrite } from '../games/index.js';
import { endCoinRecord } from './coin-repository.js';

/**
 * End a coin: its coin record, then the game's coin summary (what the launch rules and every game response
 * read), each conditionally, so a repeated or concurrent call changes nothing. A crash between the two is
 * finished by the next call (the emission settlement calls this again for a settled last day).
 */
export const endCoin = async (args: { gameId: string; coinMint: string; endedAt: Date }): Promise<void> => {
  const at = args.endedAt.toISOString();
  await endCoinRecord(args.coinMint, at);
  try {
    await transact([endCoinWrite(args.gameId, args.coinMint, at)]);
  } catch (error) {
    if (!isConditionFailure(error)) throw error;
  }
};
