// Tournaments of a game: the list (schedule in words, status, the running or next period with a live countdown),
// scheduling one, editing it before it starts, cancelling it, its periods (newest first) and a period's board with a
// rank lookup. Loaded on the first visit (a chunk of its own): the console's first load does not carry it.

import type { components } from '@arcadia/sdk';
import { useEffect, useRef, useState } from 'preact/hooks';
import { api, data, type ShownError, shownError, txUrl } from '../api.js';
import { PlayerName, Short, Sol, Time } from '../format.js';
import { go, href } from '../router.js';
import {
  type Async,
  CursorPager,
  Empty,
  ErrorBox,
  GamePicker,
  Head,
  Loading,
  OffsetPager,
  Show,
  TableWrap,
  useAsync,
  useCursorPages,
} from '../ui.js';
import { VerifyButton } from '../verify-button.js';
import { durationWords, type Tournament, TournamentForm } from './tournament-form.js';

const WEEKDAYS = ['Sunday', 'Monday', 'Tuesday', 'Wednesday', 'Thursday', 'Friday', 'Saturday', 'Sunday'];

/** Common cron shapes in words (UTC); anything else is shown as the expression alone. */
export const cronWords = (expression: string): string | null => {
  const [minute, hour, day, month, weekday] = expression.trim().split(/\s+/);
  const at = `${hour?.padStart(2, '0')}:${minute?.padStart(2, '0')} UTC`;
  const fixed = (v: string | undefined) => v !== undefined && /^\d{1,2}$/.test(v);
  const every = /^\*\/(\d+)$/.exec(minute ?? '');
  if (every && hour === '*' && day === '*' && month === '*' && weekday === '*')
    return `Every ${every[1]} minutes`;
  if (!fixed(minute) || month !== '*') return null;
  if (hour === '*' && day === '*' && weekday === '*') return `Hourly at minute ${minute}`;
  if (!fixed(hour)) return null;
  if (day === '*' && weekday === '*') return `Daily at ${at}`;
  if (day === '*' && fixed(weekday)) return `Weekly on ${WEEKDAYS[Number(weekday)] ?? weekday} at ${at}`;
  if (fixed(day) && weekday === '*') return `Monthly on day ${day} at ${at}`;
  return null;
};

export const ScheduleWords = ({ t }: { t: Tournament }) => {
  if (!t.recurrence)
    return (
      <span>
        Once: <Time iso={t.startsAt} /> to <Time iso={t.endsAt} />
      </span>
    );
  const length = t.durationSeconds ? `, each period ${durationWords(t.durationSeconds)}` : '';
  const repeat =
    'cron' in t.recurrence ? (
      <>
        {cronWords(t.recurrence.cron) ?? 'On a cron schedule'} (<code>{t.recurrence.cron}</code>)
      </>
    ) : (
      <>Every {durationWords(t.recurrence.everySeconds)}</>
    );
  return (
    <span>
      {repeat}
      {length}, from <Time iso={t.startsAt} />
      {t.until ? (
        <>
          {' '}
          until <Time iso={t.until} />
        </>
      ) : null}
    </span>
  );
};

/** A second-by-second clock shared by the countdowns of a page. */
const useNow = () => {
  const [now, setNow] = useState(() => Date.now());
  useEffect(() => {
    const timer = setInterval(() => setNow(Date.now()), 1_000);
    return () => clearInterval(timer);
  }, []);
  return now;
};

const clock = (ms: number) => {
  const s = Math.max(0, Math.ceil(ms / 1000));
  const d = Math.floor(s / 86_400);
  const h = Math.floor((s % 86_400) / 3_600);
  const m = Math.floor((s % 3_600) / 60);
  const parts = [d ? `${d} d` : '', d || h ? `${h} h` : '', d || h || m ? `${m} min` : '', `${s % 60} s`];
  return parts.filter(Boolean).join(' ');
};

/**
 * Time left until `iso`. When it passes (the period changed), `onElapsed` runs once, a second later so that the
 * API's clock has passed it too; a countdown that starts at zero (this clock ahead of the API's) never fires.
 */
const Countdown = ({ iso, onElapsed }: { iso: string; onElapsed?: () => void }) => {
  const now = useNow();
  const left = Date.parse(iso) - now;
  const ahead = useRef(left > 0);
  useEffect(() => {
    if (left > 0 || !ahead.current || !onElapsed) return;
    ahead.current = false;
    const timer = setTimeout(onElapsed, 1_000);
    return () => clearTimeout(timer);
  }, [left <= 0]);
  return (
    <span
      role="timer"
      class="countdown"
      title={`${new Date(iso).toISOString().slice(0, 19).replace('T', ' ')} UTC`}
    >
      {clock(left)}
    </span>
  );
};

const statusOf = (t: Tournament) => {
  if (t.status === 'cancelled') return 'Cancelled';
  if (t.current) return 'Running';
  return t.next ? 'Scheduled' : 'Over';
};

const PeriodNow = ({ t, onElapsed }: { t: Tournament; onElapsed?: () => void }) => {
  if (t.current)
    return (
      <span>
        Running since <Time iso={t.current.startsAt} />, ends in{' '}
        <Countdown iso={t.current.endsAt} {...(onElapsed ? { onElapsed } : {})} /> ({t.current.entrants}{' '}
        entrants)
      </span>
    );
  if (t.next)
    return (
      <span>
        Next at <Time iso={t.next.startsAt} />, starts in{' '}
        <Countdown iso={t.next.startsAt} {...(onElapsed ? { onElapsed } : {})} />
      </span>
    );
  return <span>No period to come</span>;
};

const scoringWords = (t: Tournament) =>
  t.scoring === 'best' ? `Best session (${t.maxAttempts} attempts)` : 'Sum of the period’s points';

const TournamentList = ({
  gameId,
  selected,
  version,
}: {
  gameId: string;
  selected: string | undefined;
  version: number;
}) => {
  const pages = useCursorPages([gameId]);
  const [list, reload] = useAsync(async () => {
    const res = await api().GET('/tournaments/{gameId}', {
      params: { path: { gameId }, query: { limit: 10, ...(pages.cursor ? { cursor: pages.cursor } : {}) } },
    });
    if (!res.data) throw new Error('The API answered without a body');
    return res.data;
  }, [gameId, pages.cursor, version]);
  return (
    <section aria-labelledby="tournaments-title">
      <h2 id="tournaments-title">The game’s tournaments</h2>
      <Show result={list} what="the tournaments" retry={reload}>
        {(page) =>
          page.data.length === 0 && pages.page === 1 ? (
            <Empty>No tournaments yet: schedule one below.</Empty>
          ) : (
            <>
              <TableWrap label="Tournaments table">
                <table class="tournaments">
                  <caption>Tournaments of this game (at most 10 live at a time)</caption>
                  <Head columns={['Title', 'Schedule', 'Scoring', 'Status', 'Now']} />
                  <tbody>
                    {page.data.map((t) => (
                      <tr
                        key={t.tournamentId}
                        aria-current={t.tournamentId === selected ? 'true' : undefined}
                      >
                        <td>
                          <a href={href('tournaments', { game: gameId, tournament: t.tournamentId })}>
                            {t.title}
                          </a>
                        </td>
                        <td>
                          <ScheduleWords t={t} />
                        </td>
                        <td>{scoringWords(t)}</td>
                        <td class="tournament-status">{statusOf(t)}</td>
                        <td>{t.status === 'cancelled' ? '–' : <PeriodNow t={t} onElapsed={reload} />}</td>
                      </tr>
                    ))}
                  </tbody>
                </table>
              </TableWrap>
              <CursorPager pages={pages} nextCursor={page.meta.nextCursor} label="Tournaments" />
            </>
          )
        }
      </Show>
    </section>
  );
};

const Facts = ({ t }: { t: Tournament }) => (
  <dl class="figures">
    <dt>Schedule</dt>
    <dd>
      <ScheduleWords t={t} />
    </dd>
    <dt>Status</dt>
    <dd>{statusOf(t)}</dd>
    {t.status === 'scheduled' ? (
      <>
        <dt>Now</dt>
        <dd>
          <PeriodNow t={t} />
        </dd>
      </>
    ) : null}
    <dt>Scoring</dt>
    <dd>{scoringWords(t)}</dd>
    <dt>Entry</dt>
    <dd>{t.joinRequired ? 'Players join first' : 'A player’s first points enter them'}</dd>
    <dt>Max entrants</dt>
    <dd>{t.maxEntrants?.toLocaleString() ?? 'No limit'}</dd>
    <dt>Max attempts</dt>
    <dd>{t.maxAttempts?.toLocaleString() ?? 'No limit'}</dd>
    <dt>Prizes</dt>
    <dd>
      {t.prizes.length === 0 ? (
        'None'
      ) : (
        <ul class="prizes">
          {t.prizes.map((p) => (
            <li key={p.fromRank}>
              {p.fromRank === p.toRank ? `Rank ${p.fromRank}` : `Ranks ${p.fromRank}–${p.toRank}`}:{' '}
              {p.bps.toLocaleString('en-US')} bps each
            </li>
          ))}
        </ul>
      )}
    </dd>
    <dt>Prize pool</dt>
    <dd>
      {t.prizePool
        ? `${t.prizePool.rewardsPoolBps.toLocaleString('en-US')} bps of the rewards pool per period, paid ${durationWords(
            t.payoutDelaySeconds,
          )} after it ends`
        : 'None'}
    </dd>
    <dt>Ended boards kept</dt>
    <dd>{t.retentionDays} days</dd>
    <dt>Updated</dt>
    <dd>
      <Time iso={t.updatedAt} />
    </dd>
  </dl>
);

const CancelButton = ({ t, onCancel }: { t: Tournament; onCancel: () => Promise<void> }) => {
  const [confirming, setConfirming] = useState(false);
  if (!confirming)
    return (
      <button type="button" class="danger" onClick={() => setConfirming(true)}>
        Cancel tournament…
      </button>
    );
  return (
    <fieldset class="confirm">
      <legend>
        Cancel {t.title}? No period runs and no points count from now on; ended boards stay readable.
      </legend>
      <button type="button" class="danger" onClick={() => void onCancel()}>
        Yes, cancel it
      </button>{' '}
      <button type="button" onClick={() => setConfirming(false)}>
        Keep it
      </button>
    </fieldset>
  );
};

/** SOL written with up to 9 decimals, as lamports (a decimal string: no float rounding); null when it is not. */
export const lamportsOf = (sol: string): string | null => {
  const m = /^(\d{1,7})(?:\.(\d{1,9}))?$/.exec(sol.trim());
  if (!m) return null;
  const lamports = BigInt(m[1] ?? '0') * 1_000_000_000n + BigInt((m[2] ?? '').padEnd(9, '0') || '0');
  return lamports > 0n ? lamports.toString() : null;
};

type Deposit = components['schemas']['TournamentDeposit'];

/**
 * A deposit from the signed-in user's embedded wallet into the prizes of the period running now (else the next).
 * One idempotency key per attempt: a retry after an error sends the same deposit, never a second one.
 */
const FundForm = ({ t, onDeposited }: { t: Tournament; onDeposited: (d: Deposit) => void }) => {
  const [amount, setAmount] = useState('');
  const [problem, setProblem] = useState<string | null>(null);
  const [error, setError] = useState<ShownError | null>(null);
  const [busy, setBusy] = useState(false);
  const key = useRef(crypto.randomUUID());
  const submit = async (event: Event) => {
    event.preventDefault();
    setError(null);
    const lamports = lamportsOf(amount);
    if (!lamports) {
      setProblem('Enter an amount of SOL above 0, with at most 9 decimals (at least 0.01).');
      return;
    }
    setProblem(null);
    setBusy(true);
    try {
      const deposit = data(
        await api().POST('/tournaments/{gameId}/{tournamentId}/deposits', {
          params: { path: { gameId: t.gameId, tournamentId: t.tournamentId } },
          body: { lamports, idempotencyKey: key.current },
        }),
      );
      key.current = crypto.randomUUID();
      setAmount('');
      onDeposited(deposit);
    } catch (caught) {
      setError(shownError(caught));
    } finally {
      setBusy(false);
    }
  };
  return (
    <form class="fund" onSubmit={(e) => void submit(e)} aria-labelledby="fund-title">
      <h3 id="fund-title">Fund the prizes</h3>
      <p class="hint">
        From your embedded wallet to the game’s vault, for the period running now (else the next). What the
        prizes do not pay goes to the game’s rewards pool.
      </p>
      <label for="fund-amount">Deposit (SOL)</label>
      <input
        id="fund-amount"
        inputMode="decimal"
        value={amount}
        aria-invalid={problem ? 'true' : undefined}
        aria-describedby={problem ? 'fund-problem' : undefined}
        onInput={(e) => {
          setAmount((e.target as HTMLInputElement).value);
          // A changed amount is a new deposit: a new key.
          key.current = crypto.randomUUID();
        }}
      />
      {problem ? (
        <p id="fund-problem" class="invalid">
          {problem}
        </p>
      ) : null}
      <button type="submit" disabled={busy}>
        {busy ? 'Depositing…' : 'Deposit'}
      </button>
      {error ? <ErrorBox error={error} /> : null}
    </form>
  );
};

/** A cursor list that grows: "More" appends the next page. */
const useGrowingList = <T,>(
  load: (cursor: string | undefined) => Promise<{ data: T[]; meta: { nextCursor: string | null } }>,
  deps: unknown[],
) => {
  const [rows, setRows] = useState<T[]>([]);
  const [next, setNext] = useState<string | null>(null);
  const [state, setState] = useState<Async<null>>({ state: 'loading' });
  const run = useRef(0);
  const fetchPage = (cursor: string | undefined) => {
    const mine = ++run.current;
    setState({ state: 'loading' });
    load(cursor).then(
      (page) => {
        if (mine !== run.current) return;
        setRows((before) => (cursor ? [...before, ...page.data] : page.data));
        setNext(page.meta.nextCursor);
        setState({ state: 'ok', value: null });
      },
      (error: unknown) => mine === run.current && setState({ state: 'error', error: shownError(error) }),
    );
  };
  useEffect(() => {
    setRows([]);
    fetchPage(undefined);
  }, deps);
  return { rows, next, state, more: () => next && fetchPage(next), reload: () => fetchPage(undefined) };
};

const Periods = ({ t, selected }: { t: Tournament; selected: string | undefined }) => {
  const { gameId, tournamentId } = t;
  const list = useGrowingList(
    async (cursor) => {
      const res = await api().GET('/tournaments/{gameId}/{tournamentId}/periods', {
        params: { path: { gameId, tournamentId }, query: { limit: 10, ...(cursor ? { cursor } : {}) } },
      });
      if (!res.data) throw new Error('The API answered without a body');
      return res.data;
    },
    [gameId, tournamentId],
  );
  const link = (id: string) => href('tournaments', { game: gameId, tournament: tournamentId, period: id });
  const running = t.current && !list.rows.some((p) => p.id === t.current?.id) ? t.current : null;
  return (
    <section aria-labelledby="periods-title">
      <h2 id="periods-title">Periods</h2>
      <p class="hint">
        The periods that had entrants, newest first, kept {t.retentionDays} days after they end.
      </p>
      {running ? (
        <p>
          Running now:{' '}
          <a href={link(running.id)}>
            the board of the period from <Time iso={running.startsAt} />
          </a>
        </p>
      ) : null}
      {list.rows.length > 0 ? (
        <TableWrap label="Periods table">
          <table>
            <caption>Periods of {t.title}</caption>
            <Head columns={['Period', 'Ends', 'Status', 'Entrants', 'Board']} />
            <tbody>
              {list.rows.map((p) => (
                <tr key={p.id} aria-current={p.id === selected ? 'true' : undefined}>
                  <td>
                    <Time iso={p.startsAt} />
                  </td>
                  <td>
                    <Time iso={p.endsAt} />
                  </td>
                  <td>{p.status}</td>
                  <td>{p.entrants.toLocaleString()}</td>
                  <td>
                    <a href={link(p.id)} aria-label={`Board of the period from ${p.id}`}>
                      Board
                    </a>
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        </TableWrap>
      ) : null}
      {list.state.state === 'loading' ? <Loading what="the periods" /> : null}
      {list.state.state === 'error' ? <ErrorBox error={list.state.error} retry={list.reload} /> : null}
      {list.state.state === 'ok' && list.rows.length === 0 ? (
        <Empty>No period has had an entrant yet.</Empty>
      ) : null}
      {list.next ? (
        <button type="button" onClick={list.more} disabled={list.state.state === 'loading'}>
          More periods
        </button>
      ) : null}
    </section>
  );
};

type Standing = {
  rank: number | null;
  arcId: string;
  points: number;
  playerId: string | null;
  displayName: string | null;
};

/** The name the API gives a player (display name, else the studio's identifier), the Arc ID one click away. */
const Player = ({ s }: { s: Standing }) => (
  <PlayerName arcId={s.arcId} playerId={s.playerId} displayName={s.displayName} />
);

const BOARD_LIMIT = 20;

const RankLookup = ({
  t,
  periodId,
  arcId,
}: {
  t: Tournament;
  periodId: string;
  arcId: string | undefined;
}) => {
  const [value, setValue] = useState(arcId ?? '');
  return (
    <form
      class="search"
      onSubmit={(e) => {
        e.preventDefault();
        go('tournaments', {
          game: t.gameId,
          tournament: t.tournamentId,
          period: periodId,
          arcId: value.trim() || undefined,
        });
      }}
    >
      <label>
        Find a player's rank by Arc ID
        <input
          value={value}
          placeholder="00000000-0000-0000-0000-000000000000"
          onInput={(e) => setValue(e.currentTarget.value)}
        />
      </label>
      <button type="submit">Find rank</button>
    </form>
  );
};

const Board = ({ t, periodId, arcId }: { t: Tournament; periodId: string; arcId: string | undefined }) => {
  const [offset, setOffset] = useState(0);
  const [board, reload] = useAsync(
    async () =>
      data(
        await api().GET('/tournaments/{gameId}/{tournamentId}/periods/{periodId}/board', {
          params: {
            path: { gameId: t.gameId, tournamentId: t.tournamentId, periodId },
            query: { limit: BOARD_LIMIT, offset, ...(arcId ? { arcId } : {}) },
          },
        }),
      ),
    [t.tournamentId, periodId, offset, arcId],
  );
  return (
    <section aria-labelledby="board-title">
      <h2 id="board-title">
        Board of the period from <Time iso={periodId} />
      </h2>
      <RankLookup t={t} periodId={periodId} arcId={arcId} />
      <Show result={board} what="the board" retry={reload}>
        {(b) => (
          <>
            <p>
              {b.period.status === 'running' ? 'Running' : b.period.status === 'ended' ? 'Ended' : 'Upcoming'}
              : <Time iso={b.period.startsAt} /> to <Time iso={b.period.endsAt} />, {b.period.entrants}{' '}
              entrants.
            </p>
            {b.player ? <PlayerRank player={b.player} /> : null}
            {b.entries.length === 0 && offset === 0 ? (
              <Empty>Nobody has points in this period yet.</Empty>
            ) : (
              <>
                <TableWrap label="Standings table">
                  <table>
                    <caption>Standings (equal points rank by who reached them first)</caption>
                    <Head columns={['Rank', 'Player', 'Points']} />
                    <tbody>
                      {b.entries.map((e) => (
                        <tr key={e.arcId} aria-current={e.arcId === arcId ? 'true' : undefined}>
                          <td>{e.rank}</td>
                          <td>
                            <Player s={e} />
                          </td>
                          <td>{e.points.toLocaleString()}</td>
                        </tr>
                      ))}
                    </tbody>
                  </table>
                </TableWrap>
                <OffsetPager
                  offset={offset}
                  limit={BOARD_LIMIT}
                  total={b.period.entrants}
                  shown={b.entries.length}
                  onChange={setOffset}
                  label="Board"
                />
              </>
            )}
          </>
        )}
      </Show>
    </section>
  );
};

/** A paid period's prize run, verified on demand (a cancelled one paid nothing: it has no run). */
const VerifyPrizes = ({ t, periodId, paid }: { t: Tournament; periodId: string; paid: boolean }) =>
  paid ? (
    <VerifyButton
      gameId={t.gameId}
      run={{ tournamentId: t.tournamentId, periodId }}
      label={`Verify the prizes of the period from ${periodId}`}
    />
  ) : null;

/**
 * A closed period's results: each paid rank's prize and its transfer on chain (or carried), and, once paid, the
 * prize run verified on demand against its published statement and the chain.
 */
const Results = ({ t, periodId }: { t: Tournament; periodId: string }) => {
  const [results, reload] = useAsync(
    async () =>
      data(
        await api().GET('/tournaments/{gameId}/{tournamentId}/periods/{periodId}/results', {
          params: { path: { gameId: t.gameId, tournamentId: t.tournamentId, periodId } },
        }),
      ),
    [t.tournamentId, periodId],
  );
  return (
    <section aria-labelledby="results-title">
      <h2 id="results-title">Prizes of the period</h2>
      <Show result={results} what="the results" retry={reload}>
        {(r) =>
          r.status === 'open' ? (
            <Empty>
              Not closed yet: its board is frozen and its prizes paid at <Time iso={r.closesAt} />.
              {r.fund.deposits > 0 ? (
                <>
                  {' '}
                  Deposited for its prizes so far: <Sol lamports={r.fund.depositedLamports} />.
                </>
              ) : null}
            </Empty>
          ) : (
            <>
              <p>
                {r.voided ? 'Cancelled before it ended: nothing paid. ' : null}
                Prize pool <Sol lamports={r.potLamports ?? '0'} />,{' '}
                {r.status === 'paid' ? 'paid' : 'being paid'}.
                {r.fund.deposits > 0 ? (
                  <>
                    {' '}
                    Your deposits: <Sol lamports={r.fund.depositedLamports} />, of which{' '}
                    <Sol lamports={r.fund.releasedLamports} /> went back to the rewards pool.
                  </>
                ) : null}
              </p>
              <VerifyPrizes t={t} periodId={periodId} paid={r.status === 'paid' && !r.voided} />
              {r.results.length === 0 ? (
                <Empty>No paid rank had a player.</Empty>
              ) : (
                <TableWrap label="Prizes table">
                  <table>
                    <caption>Frozen results and prizes</caption>
                    <Head columns={['Rank', 'Player', 'Points', 'Prize', 'Transfer']} />
                    <tbody>
                      {r.results.map((e) => (
                        <tr key={e.arcId}>
                          <td>{e.rank}</td>
                          <td>
                            <Player s={e} />
                          </td>
                          <td>{e.points.toLocaleString()}</td>
                          <td>
                            <Sol lamports={e.prizeLamports} />
                          </td>
                          <td>
                            {e.payout?.signature ? (
                              <a href={txUrl(e.payout.signature)}>
                                <Short value={e.payout.signature} />
                              </a>
                            ) : (
                              (e.payout?.status ?? 'pending')
                            )}
                          </td>
                        </tr>
                      ))}
                    </tbody>
                  </table>
                </TableWrap>
              )}
            </>
          )
        }
      </Show>
    </section>
  );
};

/** The player among their neighbours (the API lists those above and below), in rank order. */
const around = (player: Standing & { neighbours: Standing[] }) =>
  [...player.neighbours.filter((n) => n.arcId !== player.arcId), player].sort(
    (a, b) => (a.rank ?? 0) - (b.rank ?? 0),
  );

const PlayerRank = ({ player }: { player: Standing & { neighbours: Standing[] } }) => (
  <div class="player-rank" aria-live="polite">
    {/* Paragraph-like divs: the player's name carries a disclosure (<details>), which a <p> may not hold. */}
    {player.rank === null ? (
      <div class="para">
        <Player s={player} /> is not on this board.
      </div>
    ) : (
      <>
        <div class="para">
          <Player s={player} />: rank <strong>{player.rank}</strong> with {player.points.toLocaleString()}{' '}
          points.
        </div>
        <ol class="neighbours" aria-label="Neighbours on the board">
          {around(player).map((n) => (
            <li
              key={n.arcId}
              value={n.rank ?? undefined}
              aria-current={n.arcId === player.arcId ? 'true' : undefined}
            >
              <Player s={n} /> — {n.points.toLocaleString()}
            </li>
          ))}
        </ol>
      </>
    )}
  </div>
);

/** A tournament's periods, and the chosen period's board and prizes. */
const PeriodViews = ({
  t,
  periodId,
  arcId,
}: {
  t: Tournament;
  periodId: string | undefined;
  arcId: string | undefined;
}) => (
  <>
    <Periods t={t} selected={periodId} />
    {periodId ? <Board key={periodId} t={t} periodId={periodId} arcId={arcId} /> : null}
    {periodId && t.prizes.length > 0 ? <Results key={`r${periodId}`} t={t} periodId={periodId} /> : null}
  </>
);

const Detail = ({
  gameId,
  tournamentId,
  periodId,
  arcId,
  onChanged,
}: {
  gameId: string;
  tournamentId: string;
  periodId: string | undefined;
  arcId: string | undefined;
  onChanged: () => void;
}) => {
  const [one, reload] = useAsync(
    async () =>
      data(
        await api().GET('/tournaments/{gameId}/{tournamentId}', {
          params: { path: { gameId, tournamentId } },
        }),
      ),
    [gameId, tournamentId],
  );
  const [editing, setEditing] = useState(false);
  const [notice, setNotice] = useState<string | null>(null);
  const [error, setError] = useState<ShownError | null>(null);
  const changed = (message: string) => {
    setNotice(message);
    setEditing(false);
    reload();
    onChanged();
  };
  const cancel = async (t: Tournament) => {
    setError(null);
    try {
      await api().POST('/tournaments/{gameId}/{tournamentId}/cancel', {
        params: { path: { gameId, tournamentId } },
      });
      changed(`${t.title}: cancelled.`);
    } catch (caught) {
      setError(shownError(caught));
    }
  };
  return (
    <Show result={one} what="the tournament" retry={reload}>
      {(t) => (
        <>
          <section aria-labelledby="detail-title">
            <h2 id="detail-title">{t.title}</h2>
            {t.description ? <p>{t.description}</p> : null}
            {notice ? (
              <p role="status" class="notice">
                {notice}
              </p>
            ) : null}
            {error ? <ErrorBox error={error} /> : null}
            <Facts t={t} />
            {t.status === 'scheduled' && !editing ? (
              <div class="actions">
                {t.current ? null : (
                  <button type="button" onClick={() => setEditing(true)}>
                    Edit…
                  </button>
                )}
                <CancelButton t={t} onCancel={() => cancel(t)} />
              </div>
            ) : null}
            {t.current && t.status === 'scheduled' ? (
              <p class="hint">Started: a tournament changes only before its first period starts.</p>
            ) : null}
            {t.status === 'scheduled' && t.prizes.length > 0 ? (
              <FundForm
                t={t}
                onDeposited={(d) => {
                  setNotice(
                    `Deposited ${Number(d.lamports) / 1e9} SOL for the period of ${d.periodId}: ${d.status}.`,
                  );
                  reload();
                }}
              />
            ) : null}
          </section>
          {editing ? (
            <TournamentForm
              key={t.updatedAt}
              gameId={gameId}
              editing={t}
              onSaved={(saved) => changed(`${saved.title}: saved.`)}
              onClose={() => setEditing(false)}
            />
          ) : null}
          <PeriodViews t={t} periodId={periodId} arcId={arcId} />
        </>
      )}
    </Show>
  );
};

export const TournamentsPage = ({
  gameId,
  tournamentId,
  periodId,
  arcId,
}: {
  gameId: string | undefined;
  tournamentId: string | undefined;
  periodId: string | undefined;
  arcId: string | undefined;
}) => {
  const [version, setVersion] = useState(0);
  const bump = () => setVersion((v) => v + 1);
  return (
    <>
      <p>
        Boards of their own on a schedule: a one-off window or a recurring period. Points your game saves
        count into every running period a player is entered in. Times are in your zone (UTC on hover).
      </p>
      <GamePicker gameId={gameId} onChange={(id) => go('tournaments', { game: id })} />
      {gameId ? (
        <>
          <TournamentList key={gameId} gameId={gameId} selected={tournamentId} version={version} />
          {tournamentId ? (
            <>
              <p>
                <a href={href('tournaments', { game: gameId })}>Schedule another tournament</a>
              </p>
              <Detail
                key={tournamentId}
                gameId={gameId}
                tournamentId={tournamentId}
                periodId={periodId}
                arcId={arcId}
                onChanged={bump}
              />
            </>
          ) : (
            <TournamentForm
              gameId={gameId}
              onSaved={(saved) => {
                bump();
                go('tournaments', { game: gameId, tournament: saved.tournamentId });
              }}
            />
          )}
        </>
      ) : null}
    </>
  );
};
