// Integrity: the sessions the anti-cheat flagged, with their score and reasons; invalidate with confirmation and
// see what it removed.
import { useState } from 'preact/hooks';
import { api, data, type ShownError, shownError } from '../api.js';
import { Short, Time } from '../format.js';
import { go } from '../router.js';
import {
  CursorPager,
  Empty,
  ErrorBox,
  GamePicker,
  Head,
  Show,
  TableWrap,
  useAsync,
  useCursorPages,
} from '../ui.js';

interface Removal {
  invalidated: Array<{ sessionId: string; arcId: string; pointsRemoved: number }>;
  alreadyInvalidated: string[];
  notFound: string[];
}

const Risky = ({ gameId }: { gameId: string }) => {
  const pages = useCursorPages([gameId]);
  const [confirming, setConfirming] = useState<string | null>(null);
  const [removal, setRemoval] = useState<Removal | null>(null);
  const [error, setError] = useState<ShownError | null>(null);
  const [sessions, reload] = useAsync(async () => {
    const res = await api().GET('/play/dev/risky-sessions/{gameId}', {
      params: { path: { gameId }, query: { limit: 20, ...(pages.cursor ? { cursor: pages.cursor } : {}) } },
    });
    if (!res.data) throw new Error('The API answered without a body');
    return res.data;
  }, [gameId, pages.cursor]);

  const invalidate = async (sessionId: string) => {
    setConfirming(null);
    setError(null);
    try {
      setRemoval(
        data(
          await api().POST('/play/dev/invalidate-sessions', { body: { gameId, sessionIds: [sessionId] } }),
        ),
      );
      reload();
    } catch (caught) {
      setError(shownError(caught));
    }
  };

  return (
    <>
      {removal ? (
        <div role="status" class="notice" id="removal">
          {removal.invalidated.map((r) => (
            <p key={r.sessionId}>
              Invalidated session <code>{r.sessionId}</code> of player <code>{r.arcId}</code>: removed{' '}
              <strong>{r.pointsRemoved.toLocaleString()}</strong> points from the day, all-time totals and
              leaderboards.
            </p>
          ))}
          {removal.alreadyInvalidated.map((id) => (
            <p key={id}>Session {id} was already invalidated: nothing removed.</p>
          ))}
          {removal.notFound.map((id) => (
            <p key={id}>Session {id} was not found.</p>
          ))}
        </div>
      ) : null}
      {error ? <ErrorBox error={error} /> : null}
      <Show result={sessions} what="risky sessions" retry={reload}>
        {(s) =>
          s.data.length === 0 ? (
            <Empty>No flagged sessions{pages.page > 1 ? ' on this page' : ''}.</Empty>
          ) : (
            <>
              <TableWrap label="Flagged sessions">
                <table>
                  <caption>Flagged sessions, highest risk first</caption>
                  <Head
                    columns={[
                      'Session',
                      'Player',
                      'Score',
                      'Reasons',
                      'Points',
                      'Status',
                      'Last save',
                      'Action',
                    ]}
                  />
                  <tbody>
                    {s.data.map((row) => (
                      <tr key={row.sessionId}>
                        <td>
                          <code>{row.sessionId}</code>
                        </td>
                        <td>
                          <a href={`#/players?game=${gameId}&player=${row.arcId}`}>
                            <Short value={row.arcId} />
                          </a>
                        </td>
                        <td>{row.riskScore.toFixed(2)}</td>
                        <td>{row.riskReasons.join(', ') || '–'}</td>
                        <td>
                          {row.status === 'invalidated'
                            ? `0 (removed ${row.invalidatedPoints ?? 0})`
                            : row.points.toLocaleString()}
                        </td>
                        <td>{row.status}</td>
                        <td>
                          <Time iso={row.updatedAt} />
                        </td>
                        <td>
                          {row.status === 'invalidated' ? (
                            '–'
                          ) : confirming === row.sessionId ? (
                            <fieldset class="confirm">
                              <legend class="visually-hidden">Confirm invalidating {row.sessionId}</legend>
                              <button
                                type="button"
                                class="danger"
                                onClick={() => void invalidate(row.sessionId)}
                              >
                                Confirm: remove {row.points.toLocaleString()} points
                              </button>{' '}
                              <button type="button" onClick={() => setConfirming(null)}>
                                Cancel
                              </button>
                            </fieldset>
                          ) : (
                            <button
                              type="button"
                              onClick={() => setConfirming(row.sessionId)}
                              aria-label={`Invalidate session ${row.sessionId}`}
                            >
                              Invalidate…
                            </button>
                          )}
                        </td>
                      </tr>
                    ))}
                  </tbody>
                </table>
              </TableWrap>
              <CursorPager pages={pages} nextCursor={s.meta.nextCursor} label="Risky sessions" />
            </>
          )
        }
      </Show>
    </>
  );
};

export const IntegrityPage = ({ gameId }: { gameId: string | undefined }) => (
  <>
    <h1 tabIndex={-1}>Integrity</h1>
    <GamePicker gameId={gameId} onChange={(id) => go('integrity', { game: id })} />
    {gameId ? <Risky key={gameId} gameId={gameId} /> : null}
  </>
);
