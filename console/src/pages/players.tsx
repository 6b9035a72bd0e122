// Players: the leaderboards of a game, and one player found by any identifier: points, rank and neighbours on
// each board, sessions. Players are shown as the studio knows them (display name, its identifier), the Arc ID one
// click away.
import { useState } from 'preact/hooks';
import { api, data } from '../api.js';
import { PlayerName, Short, Time } from '../format.js';
import { go, href } from '../router.js';
import {
  CursorPager,
  Empty,
  GamePicker,
  Head,
  OffsetPager,
  Show,
  TableWrap,
  useAsync,
  useCursorPages,
} from '../ui.js';

const LIMIT = 20;
type Period = 'daily' | 'alltime';

const Board = ({ gameId, period }: { gameId: string; period: Period }) => {
  const [offset, setOffset] = useState(0);
  const [board, reload] = useAsync(
    async () =>
      data(
        await api().GET('/play/dev/leaderboard/{gameId}', {
          params: { path: { gameId }, query: { period, limit: LIMIT, offset } },
        }),
      ),
    [gameId, period, offset],
  );
  const title = period === 'daily' ? 'Today (UTC)' : 'All time';
  return (
    <section aria-labelledby={`board-${period}`}>
      <h3 id={`board-${period}`}>{title}</h3>
      <Show result={board} what={`the ${title.toLowerCase()} leaderboard`} retry={reload}>
        {(b) =>
          b.entries.length === 0 && offset === 0 ? (
            <Empty>Nobody has points on this board yet.</Empty>
          ) : (
            <>
              <table>
                <caption class="visually-hidden">{title} leaderboard</caption>
                <Head columns={['Rank', 'Player', 'Points']} />
                <tbody>
                  {b.entries.map((e) => (
                    <tr key={e.arcId}>
                      <td>{e.rank}</td>
                      <td>
                        <PlayerName
                          {...e}
                          href={href('players', { game: gameId, player: e.playerId ?? e.arcId })}
                        />
                      </td>
                      <td>{e.points.toLocaleString()}</td>
                    </tr>
                  ))}
                </tbody>
              </table>
              <OffsetPager
                offset={offset}
                limit={LIMIT}
                shown={b.entries.length}
                onChange={setOffset}
                label={`${title} leaderboard`}
              />
            </>
          )
        }
      </Show>
    </section>
  );
};

const PlayerRank = ({ gameId, player, period }: { gameId: string; player: string; period: Period }) => {
  const [board, reload] = useAsync(
    async () =>
      data(
        await api().GET('/play/dev/leaderboard/{gameId}', {
          params: { path: { gameId }, query: { period, player, limit: 1 } },
        }),
      ),
    [gameId, player, period],
  );
  const title = period === 'daily' ? 'Today (UTC)' : 'All time';
  return (
    <div>
      <h4>{title}</h4>
      <Show result={board} what="the player's rank" retry={reload}>
        {(b) =>
          b.player?.rank ? (
            <>
              <p>
                Rank <strong>{b.player.rank}</strong> with {b.player.points.toLocaleString()} points.
              </p>
              <ol class="neighbours" aria-label={`Neighbours ${title.toLowerCase()}`}>
                {b.player.neighbours.map((n) => (
                  <li
                    key={n.arcId}
                    value={n.rank}
                    aria-current={n.arcId === b.player?.arcId ? 'true' : undefined}
                  >
                    <PlayerName {...n} /> — {n.points.toLocaleString()}
                  </li>
                ))}
              </ol>
            </>
          ) : (
            <Empty>Not ranked on this board.</Empty>
          )
        }
      </Show>
    </div>
  );
};

const Sessions = ({ gameId, player }: { gameId: string; player: string }) => {
  const pages = useCursorPages([gameId, player]);
  const [sessions, reload] = useAsync(async () => {
    const res = await api().GET('/play/dev/sessions/{gameId}', {
      params: {
        path: { gameId },
        query: { player, limit: 10, ...(pages.cursor ? { cursor: pages.cursor } : {}) },
      },
    });
    if (!res.data) throw new Error('The API answered without a body');
    return res.data;
  }, [gameId, player, pages.cursor]);
  return (
    <section aria-labelledby="sessions-title">
      <h3 id="sessions-title">Sessions</h3>
      <Show result={sessions} what="sessions" retry={reload}>
        {(s) =>
          s.data.length === 0 ? (
            <Empty>No sessions for this player.</Empty>
          ) : (
            <>
              <TableWrap label="Sessions">
                <table>
                  <Head columns={['Session', 'Status', 'Day', 'Points', 'Risk', 'Started']} />
                  <tbody>
                    {s.data.map((row) => (
                      <tr key={row.sessionId}>
                        <td>
                          <Short value={row.sessionId} />
                        </td>
                        <td>{row.status}</td>
                        <td>{row.day}</td>
                        <td>{row.points.toLocaleString()}</td>
                        <td>{row.riskScore.toFixed(2)}</td>
                        <td>
                          <Time iso={row.createdAt} />
                        </td>
                      </tr>
                    ))}
                  </tbody>
                </table>
              </TableWrap>
              <CursorPager pages={pages} nextCursor={s.meta.nextCursor} label="Sessions" />
            </>
          )
        }
      </Show>
    </section>
  );
};

const Player = ({ gameId, player }: { gameId: string; player: string }) => {
  const [points, reload] = useAsync(
    async () =>
      data(await api().GET('/play/dev/points', { params: { query: { gameId, playerIds: player } } })),
    [gameId, player],
  );
  return (
    <section aria-labelledby="player-title" class="player">
      <h2 id="player-title">
        Player <span class="mono">{player}</span>
      </h2>
      <Show result={points} what="the player's points" retry={reload}>
        {(p) => {
          const row = p.points[0];
          return row?.arcId ? (
            <p>
              Arc ID <code>{row.arcId}</code>: <strong>{row.today.toLocaleString()}</strong> points today (
              {p.day}), <strong>{row.allTime.toLocaleString()}</strong> all time.
            </p>
          ) : (
            <Empty>No player with this identifier has played this game.</Empty>
          );
        }}
      </Show>
      <div class="columns">
        <PlayerRank gameId={gameId} player={player} period="daily" />
        <PlayerRank gameId={gameId} player={player} period="alltime" />
      </div>
      <Sessions gameId={gameId} player={player} />
    </section>
  );
};

export const PlayersPage = ({
  gameId,
  player,
}: {
  gameId: string | undefined;
  player: string | undefined;
}) => {
  const [query, setQuery] = useState(player ?? '');
  return (
    <>
      <h1 tabIndex={-1}>Players</h1>
      <GamePicker gameId={gameId} onChange={(id) => go('players', { game: id })} />
      {gameId ? (
        <>
          <form
            class="search"
            onSubmit={(e) => {
              e.preventDefault();
              go('players', { game: gameId, player: query.trim() });
            }}
          >
            <label>
              Find a player (Arc ID, did:…, sol:…, email:…, x:…)
              <input name="player" required value={query} onInput={(e) => setQuery(e.currentTarget.value)} />
            </label>
            <button type="submit">Find</button>
          </form>
          {player ? <Player key={`${gameId}:${player}`} gameId={gameId} player={player} /> : null}
          <section aria-labelledby="boards-title">
            <h2 id="boards-title">Leaderboards</h2>
            <div class="columns">
              <Board gameId={gameId} period="daily" />
              <Board gameId={gameId} period="alltime" />
            </div>
          </section>
        </>
      ) : null}
    </>
  );
};
