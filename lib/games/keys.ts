/**
 * GamesTable keys and index attributes. Access patterns:
 * - game by id:                   pk=GAME#<id>           sk=GAME
 * - visible games sorted by X:    GSI by<X> on listPk='VISIBLE' (sparse: hidden games carry no listPk), sort keys
 *                                 below; ties broken by createdAt then id, so offsets are stable
 * - a user's games:               GSI byCreator (creatorId, sortCreated) and byOwner (ownerKey, sortCreated)
 * - visible game count:           pk=META                sk=VISIBLE_COUNT  (kept in the same transactions)
 * - game of a coin:               pk=TOKEN#<coinMint>    sk=COIN           (one coin, one game: BatchGet-able)
 * - games of an airdrop token:    pk=TOKEN#<airdropMint> sk=AIRDROP#<id>   (Query)
 * - games whose coin is emitting: GSI byEmittingCoin on coinEmitting='EMITTING' (sparse, KEYS_ONLY: set with an
 *                                 active coin, removed when the coin ends; the settlement schedule reads it)
 * A token's partition (TOKEN#<tokenAddress>) holds both kinds: GET /games/token-id/{tokenId}/full reads it whole.
 */
export const gameKeys = {
  game: (id: string) => ({ pk: `GAME#${id}`, sk: 'GAME' }),
  visibleCount: () => ({ pk: 'META', sk: 'VISIBLE_COUNT' }),
  coinLink: (coinMint: string) => ({ pk: `TOKEN#${coinMint}`, sk: 'COIN' }),
  airdropLink: (airdropMint: string, gameId: string) => ({
    pk: `TOKEN#${airdropMint}`,
    sk: `AIRDROP#${gameId}`,
  }),
  tokenPartition: (tokenAddress: string) => `TOKEN#${tokenAddress}`,
};

export const VISIBLE = 'VISIBLE';

/** The sparse index of games whose coin is still emitting: its name and its one partition key's value. */
export const EMITTING_INDEX = {
  index: 'byEmittingCoin',
  attribute: 'coinEmitting',
  value: 'EMITTING',
} as const;

/** GSI name and sort attribute per public sortBy value. */
export const SORT_INDEX = {
  createdAt: { index: 'byCreatedAt', attribute: 'sortCreated' },
  name: { index: 'byName', attribute: 'sortName' },
  totalRewardsPoolValueUsd: { index: 'byPoolValue', attribute: 'sortPool' },
  totalRewardsAllocatedUsd: { index: 'byAllocated', attribute: 'sortAllocated' },
  estimatedDailyRewardsUsd: { index: 'byDailyRewards', attribute: 'sortDaily' },
} as const;

const money = (usd: number) => String(Math.max(0, Math.round(usd * 100))).padStart(15, '0');

interface Sortable {
  id: string;
  name: string;
  createdAt: string;
  hidden: boolean;
  creatorId: string;
  ownerId: string | null;
  totalRewardsPoolValueUsd: number;
  totalRewardsAllocatedUsd: number;
  estimatedDailyRewardsUsd: number;
  description: string;
  coin?: { status: string } | null;
}

/** Every derived index attribute of a game; written with the game on every change. */
export const indexAttributes = (game: Sortable) => {
  const tail = `${game.createdAt}#${game.id}`;
  return {
    ...(game.hidden ? {} : { listPk: VISIBLE }),
    sortCreated: tail,
    sortName: `${game.name.toLowerCase().slice(0, 200)}#${tail}`,
    sortPool: `${money(game.totalRewardsPoolValueUsd)}#${tail}`,
    sortAllocated: `${money(game.totalRewardsAllocatedUsd)}#${tail}`,
    sortDaily: `${money(game.estimatedDailyRewardsUsd)}#${tail}`,
    ...(game.ownerId && game.ownerId !== game.creatorId ? { ownerKey: game.ownerId } : {}),
    searchText: `${game.name}\n${game.description}`.toLowerCase(),
    ...(game.coin?.status === 'active' ? { [EMITTING_INDEX.attribute]: EMITTING_INDEX.value } : {}),
  };
};
