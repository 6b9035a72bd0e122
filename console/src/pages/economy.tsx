// Economy: a game's rewards pool, its settlements (each verified on demand) and its multiplier sales. The page's
// body (console/src/pages/economy-pool.tsx) is a chunk of its own, loaded with the pool on the first visit: the
// first load's script has no room left for it (docs/console.md, Size). The heading and the game picker are here,
// so that focus lands on the heading while it loads.

import { api, data } from '../api.js';
import { go } from '../router.js';
import { GamePicker, Show, useAsync } from '../ui.js';

const loadPool = async (gameId: string) => {
  const [{ PoolView }, pool] = await Promise.all([
    import('./economy-pool.js'),
    api().GET('/rewards/game-rewards-pool/{gameId}', { params: { path: { gameId } } }),
  ]);
  return { PoolView, pool: data(pool) };
};

export const EconomyPage = ({ gameId }: { gameId: string | undefined }) => {
  const [pool, reload] = useAsync(async () => (gameId ? loadPool(gameId) : undefined), [gameId]);
  return (
    <>
      <h1 tabIndex={-1}>Economy</h1>
      <GamePicker gameId={gameId} onChange={(id) => go('economy', { game: id })} />
      {gameId ? (
        <Show result={pool} what="the rewards pool" retry={reload}>
          {(loaded) => (loaded ? <loaded.PoolView pool={loaded.pool} /> : null)}
        </Show>
      ) : null}
    </>
  );
};
