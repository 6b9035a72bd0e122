import type { SORT_INDEX } from './keys.js';
import { listByMember, listVisible } from './listings.js';
import type { GameRecord } from './model.js';
import { toView } from './read.js';
import * as repo from './repository.js';

interface ListQuery {
  limit: number;
  offset: number;
  sort: 'asc' | 'desc';
  sortBy: keyof typeof SORT_INDEX;
  query?: string | undefined;
  include_extra: boolean;
}

/** GET /games: visible games from the sort field's index. */
export const listGames = async (q: ListQuery) => {
  const { games, total } = await listVisible(q);
  return {
    data: games.map((g) => toView(g, q.include_extra)),
    meta: { limit: q.limit, offset: q.offset, total },
  };
};

/** GET /games/me: the caller's games, hidden included. */
export const listMyGames = async (arcId: string, q: Omit<ListQuery, 'sortBy' | 'query'>) => {
  const { games, total } = await listByMember(arcId, q);
  return {
    data: games.map((g) => toView(g, q.include_extra)),
    meta: { limit: q.limit, offset: q.offset, total },
  };
};

/** POST /games/batch/ids: one BatchGetItem; hidden games included (they are reachable by id). */
export const gamesByIds = async (ids: string[]) => {
  const games = await repo.getGames(ids);
  const found = new Set(games.map((g) => g.id));
  return {
    games: games.map((g) => toView(g, true)),
    missing: [...new Set(ids)].filter((id) => !found.has(id)),
  };
};

/** POST /games/batch/token-ids: coin → game links, then the games (two BatchGetItems). */
export const gamesByCoinMints = async (coinMints: string[]) => {
  const links = await repo.getCoinGameIds(coinMints);
  const games = await repo.getGames([...new Set(links.values())]);
  return {
    games: games.map((g) => toView(g, true)),
    missing: [...new Set(coinMints)].filter((m) => !links.has(m)),
  };
};

/** GET /games/token-id/{tokenId}/full: games whose coin or airdrop token `tokenAddress` is. */
export const gamesByToken = async (tokenAddress: string) => {
  const ids = await repo.getTokenGameIds(tokenAddress);
  return (await repo.getGames(ids)).map((g) => toView(g, true));
};

/** The games whose `airdropTokenAddress` is this mint (the snapshot endpoints' lookup by airdrop token). */
export const gamesByAirdropMint = async (airdropMint: string): Promise<GameRecord[]> =>
  (await repo.getGames(await repo.getAirdropGameIds(airdropMint))).filter(
    (game) => game.airdropTokenAddress === airdropMint,
  );
