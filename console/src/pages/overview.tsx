// Overview: a game's landing page. Today against yesterday and the last 7 days, then charts over the last 30 or
// 90 days (players, sessions, points, revenue and payouts, integrity, tournaments and webhooks, retention) and the
// retention cohorts, all from one read of the game's insights (90 days, so switching the range costs no request).
// Loaded on its first visit (its own chunk): the console's first load does not carry it.

import type { components } from '@arcadia/sdk';
import { useMemo, useState } from 'preact/hooks';
import { api, data } from '../api.js';
import { LineChart, type Series } from '../chart.js';
import { Sol, sol, usd } from '../format.js';
import { go, href } from '../router.js';
import { Empty, GamePicker, Head, Show, TableWrap, useAsync, usePage } from '../ui.js';
import styles from './overview.css?inline';

// The page's styles travel in its chunk as text, added once when it loads: a stylesheet of its own would be listed
// in the first load's script (its preload map), which has almost no room left (docs/console.md, Size).
document.head.append(Object.assign(document.createElement('style'), { textContent: styles }));

type Insights = components['schemas']['GameInsights'];
type Day = components['schemas']['InsightsDay'];
type Cohort = components['schemas']['RetentionCohort'];

/** The days one read covers: the longer chart range (the shorter one is its tail). */
const READ_DAYS = 90;
const RANGES = [30, 90] as const;
type Range = (typeof RANGES)[number];
const DAY_MS = 86_400_000;

const utcDay = (at: number) => new Date(at).toISOString().slice(0, 10);
const dayStart = (day: string) => Date.parse(`${day}T00:00:00.000Z`) / 1000;

const count = (n: number) => n.toLocaleString();
const cents = (n: number) => usd(n / 100);
const solFigure = (v: number) => `${v.toLocaleString(undefined, { maximumFractionDigits: 6 })} SOL`;
const percent = (v: number) => `${v.toLocaleString(undefined, { maximumFractionDigits: 1 })} %`;

/** A figure of one day, as a number (charts, sums) and as shown. */
interface Figure {
  label: string;
  of: (d: Day) => number;
  show: (v: number) => string;
  /** The 7-day column sums days, except for a figure whose days overlap (a player active on two days). */
  perDay?: boolean;
}

const FIGURES: Figure[] = [
  { label: 'Active players', of: (d) => d.activePlayers, show: count, perDay: true },
  { label: 'New players', of: (d) => d.newPlayers, show: count },
  { label: 'Sessions (backend)', of: (d) => d.sessions.backend, show: count },
  { label: 'Sessions (SDK)', of: (d) => d.sessions.sdk, show: count },
  { label: 'Points counted', of: (d) => d.points, show: count },
  { label: 'Flagged sessions', of: (d) => d.flaggedSessions, show: count },
  { label: 'Invalidated sessions', of: (d) => d.invalidatedSessions, show: count },
  { label: 'Multiplier sales', of: (d) => d.sales.count, show: count },
  { label: 'Sales (SOL)', of: (d) => sol(d.sales.lamports), show: solFigure },
  { label: 'Sales (USD)', of: (d) => d.sales.usdCents, show: cents },
  { label: 'Payouts (SOL)', of: (d) => sol(d.payouts.lamports), show: solFigure },
  { label: 'Payouts (USD)', of: (d) => d.payouts.usdCents, show: cents },
  { label: 'Players paid', of: (d) => d.payouts.players, show: count },
  { label: 'Tournament entrants', of: (d) => d.tournamentEntrants, show: count },
  { label: 'Webhook deliveries failed', of: (d) => d.webhookFailures, show: count },
];
const figure = (label: string): Figure => {
  const found = FIGURES.find((f) => f.label === label);
  if (!found) throw new Error(`no figure ${label}`);
  return found;
};

/** Lamports summed exactly (a float sum of SOL drifts), then shown in SOL. */
const lamportsOf = (days: Day[], pick: (d: Day) => string) =>
  days.reduce((sum, d) => sum + BigInt(pick(d)), 0n);

const sevenDayCell = (f: Figure, week: Day[]) => {
  if (f.perDay) {
    const average = week.reduce((sum, d) => sum + f.of(d), 0) / Math.max(1, week.length);
    return `${average.toLocaleString(undefined, { maximumFractionDigits: 1 })} a day`;
  }
  if (f.label === 'Sales (SOL)')
    return <Sol lamports={lamportsOf(week, (d) => d.sales.lamports).toString()} />;
  if (f.label === 'Payouts (SOL)')
    return <Sol lamports={lamportsOf(week, (d) => d.payouts.lamports).toString()} />;
  return f.show(week.reduce((sum, d) => sum + f.of(d), 0));
};

const dayCell = (f: Figure, d: Day | undefined) => {
  if (!d) return '–';
  if (f.label === 'Sales (SOL)') return <Sol lamports={d.sales.lamports} />;
  if (f.label === 'Payouts (SOL)') return <Sol lamports={d.payouts.lamports} />;
  return f.show(f.of(d));
};

const AtAGlance = ({ days, today }: { days: Day[]; today: string }) => {
  const yesterday = utcDay(Date.parse(`${today}T00:00:00.000Z`) - DAY_MS);
  const byDay = new Map(days.map((d) => [d.day, d]));
  const week = days.filter((d) => d.day > utcDay(Date.parse(`${today}T00:00:00.000Z`) - 7 * DAY_MS));
  return (
    <section aria-labelledby="glance-title">
      <h2 id="glance-title">Today at a glance</h2>
      <TableWrap label="Today, yesterday and the last 7 days">
        <table class="glance">
          <caption>
            Today ({today}, UTC, so far) against yesterday and the last 7 days (today included)
          </caption>
          <Head columns={['Figure', 'Today', 'Yesterday', 'Last 7 days']} />
          <tbody>
            {FIGURES.map((f) => (
              <tr key={f.label}>
                <th scope="row">{f.label}</th>
                <td>{dayCell(f, byDay.get(today))}</td>
                <td>{dayCell(f, byDay.get(yesterday))}</td>
                <td>{sevenDayCell(f, week)}</td>
              </tr>
            ))}
          </tbody>
        </table>
      </TableWrap>
      <p class="hint">
        Active players over 7 days is their daily average: a player active on several days counts once a day.
        USD at the SOL price of each sale or payout.
      </p>
    </section>
  );
};

const COLORS = ['#1f4e9c', '#1d6f42', '#a13b00', '#6b2fa0'];

interface ChartSpec {
  title: string;
  labels: string[];
  format: (v: number) => string;
  /** Charted values when they differ from the figure's (USD cents charted as dollars). */
  scale?: (v: number) => number;
}

const CHARTS: ChartSpec[] = [
  { title: 'Players', labels: ['Active players', 'New players'], format: count },
  { title: 'Sessions', labels: ['Sessions (backend)', 'Sessions (SDK)'], format: count },
  { title: 'Points counted', labels: ['Points counted'], format: count },
  { title: 'Revenue and payouts (SOL)', labels: ['Sales (SOL)', 'Payouts (SOL)'], format: solFigure },
  {
    title: 'Revenue and payouts (USD)',
    labels: ['Sales (USD)', 'Payouts (USD)'],
    format: usd,
    scale: (v) => v / 100,
  },
  { title: 'Players paid', labels: ['Players paid'], format: count },
  { title: 'Integrity', labels: ['Flagged sessions', 'Invalidated sessions'], format: count },
  {
    title: 'Tournaments and webhooks',
    labels: ['Tournament entrants', 'Webhook deliveries failed'],
    format: count,
  },
];

const xLabel = (t: number) => new Date(t * 1000).toISOString().slice(0, 10);

const DayChart = ({ spec, days }: { spec: ChartSpec; days: Day[] }) => {
  const x = useMemo(() => days.map((d) => dayStart(d.day)), [days]);
  const series = useMemo<Series[]>(
    () =>
      spec.labels.map((label, i) => {
        const f = figure(label);
        return {
          label,
          values: days.map((d) => (spec.scale ?? ((v: number) => v))(f.of(d))),
          color: COLORS[i] ?? '#1b1f24',
        };
      }),
    [spec, days],
  );
  return <LineChart title={spec.title} x={x} series={series} xLabel={xLabel} format={spec.format} />;
};

const rate = (kept: number | null, players: number) =>
  kept === null || players === 0 ? null : (100 * kept) / players;

/** Retention over several cohorts: the players kept over the players of the cohorts whose day has come. */
const pooled = (cohorts: Cohort[], pick: (c: Cohort) => number | null) => {
  const known = cohorts.filter((c) => pick(c) !== null);
  const players = known.reduce((sum, c) => sum + c.players, 0);
  return players === 0 ? null : (100 * known.reduce((sum, c) => sum + (pick(c) ?? 0), 0)) / players;
};

const RETAINED = [
  ['D+1', (c: Cohort) => c.day1],
  ['D+7', (c: Cohort) => c.day7],
  ['D+30', (c: Cohort) => c.day30],
] as const;

const keptCell = (kept: number | null, players: number) => {
  const r = rate(kept, players);
  return kept === null || r === null ? '–' : `${count(kept)} (${percent(r)})`;
};

/**
 * The retention chart's points: every day of the range (as the other charts, so its axis reads in days), a gap on a
 * day with no cohort or whose day has not come.
 */
const Retention = ({ days, cohorts, range }: { days: Day[]; cohorts: Cohort[]; range: Range }) => {
  const newestFirst = useMemo(() => [...cohorts].reverse(), [cohorts]);
  const { rows, pager } = usePage(newestFirst, 10);
  const x = useMemo(() => days.map((d) => dayStart(d.day)), [days]);
  const series = useMemo<Series[]>(() => {
    const byDay = new Map(cohorts.map((c) => [c.cohort, c]));
    return RETAINED.map(([label, pick], i) => ({
      label,
      values: days.map((d) => {
        const c = byDay.get(d.day);
        return c ? rate(pick(c), c.players) : null;
      }),
      color: COLORS[i] ?? '#1b1f24',
    }));
  }, [days, cohorts]);
  return (
    <section aria-labelledby="retention-title">
      <h2 id="retention-title">Retention</h2>
      {cohorts.length === 0 ? (
        <Empty>No new players in the last {range} days: no cohort to follow.</Empty>
      ) : (
        <>
          <dl class="figures" id="retention-summary">
            {RETAINED.map(([label, pick]) => {
              const r = pooled(cohorts, pick);
              return [
                <dt key={`${label}-t`}>{label}</dt>,
                <dd key={`${label}-d`}>{r === null ? 'not reached yet' : percent(r)}</dd>,
              ];
            })}
          </dl>
          <p class="hint">
            Of the players first seen in the last {range} days, the share who played again 1, 7 and 30 days
            later (over the cohorts whose day has come; today counts so far).
          </p>
          <LineChart title="Retention by cohort (%)" x={x} series={series} xLabel={xLabel} format={percent} />
          <TableWrap label="Retention cohorts">
            <table id="cohorts">
              <caption>Cohorts by the day their players were first seen (UTC), newest first</caption>
              <Head columns={['Cohort', 'Players', 'D+1', 'D+7', 'D+30']} />
              <tbody>
                {rows.map((c) => (
                  <tr key={c.cohort}>
                    <td>{c.cohort}</td>
                    <td>{count(c.players)}</td>
                    {RETAINED.map(([label, pick]) => (
                      <td key={label}>{keptCell(pick(c), c.players)}</td>
                    ))}
                  </tr>
                ))}
              </tbody>
            </table>
          </TableWrap>
          {pager('Retention cohorts')}
        </>
      )}
    </section>
  );
};

/** Whether nothing at all happened over the days read (a game nobody has played yet). */
const quiet = (insights: Insights) =>
  insights.retention.length === 0 && insights.days.every((d) => FIGURES.every((f) => f.of(d) === 0));

const Figures = ({ insights, today }: { insights: Insights; today: string }) => {
  const [range, setRange] = useState<Range>(30);
  const first = utcDay(Date.parse(`${today}T00:00:00.000Z`) - (range - 1) * DAY_MS);
  const days = useMemo(() => insights.days.filter((d) => d.day >= first), [insights, first]);
  const cohorts = useMemo(() => insights.retention.filter((c) => c.cohort >= first), [insights, first]);
  if (quiet(insights))
    return (
      <Empty>
        Nothing has happened in this game in the last {READ_DAYS} days: no player, session, sale or payout.
        The figures show here once players play (points saved by your backend or sessions committed from the
        SDK).
      </Empty>
    );
  return (
    <>
      <AtAGlance days={insights.days} today={today} />
      <section aria-labelledby="charts-title">
        <h2 id="charts-title">Day by day</h2>
        <fieldset class="range">
          <legend>Days shown</legend>
          {RANGES.map((r) => (
            <label class="inline" key={r}>
              <input type="radio" name="range" checked={range === r} onChange={() => setRange(r)} />
              Last {r} days
            </label>
          ))}
        </fieldset>
        <p class="hint">
          From {first} to {today} (UTC days; today so far). Each chart's figures are also in a table for
          screen readers.
        </p>
        <div class="charts">
          {CHARTS.map((spec) => (
            <DayChart key={`${spec.title}-${range}`} spec={spec} days={days} />
          ))}
        </div>
      </section>
      <Retention key={range} days={days} cohorts={cohorts} range={range} />
    </>
  );
};

const GameLinks = ({ gameId }: { gameId: string }) => (
  <nav aria-label="This game" class="game-nav">
    {(
      [
        ['players', 'Players'],
        ['integrity', 'Integrity'],
        ['economy', 'Economy'],
        ['coin', 'Coin'],
        ['webhooks', 'Webhooks'],
        ['tournaments', 'Tournaments'],
        ['clients', 'Game clients'],
      ] as const
    ).map(([path, label]) => (
      <a key={path} href={href(path, { game: gameId })}>
        {label}
      </a>
    ))}
    <a href={href(`games/${gameId}`)}>Edit the game</a>
  </nav>
);

export const OverviewPage = ({ gameId }: { gameId: string | undefined }) => {
  // Today as of the load: the range read and the "today" column stay one consistent day until the next load.
  const [insights, reload] = useAsync(async () => {
    if (!gameId) return undefined;
    const now = Date.now();
    const today = utcDay(now);
    const from = utcDay(now - (READ_DAYS - 1) * DAY_MS);
    const answer = data(
      await api().GET('/games/insights/{gameId}', {
        params: { path: { gameId }, query: { from, to: today } },
      }),
    );
    return { answer, today };
  }, [gameId]);
  return (
    <div class="overview">
      <GamePicker gameId={gameId} onChange={(id) => go('overview', { game: id })} />
      {gameId ? (
        <>
          <GameLinks gameId={gameId} />
          <Show result={insights} what="the game's figures" retry={reload}>
            {(loaded) => (loaded ? <Figures insights={loaded.answer} today={loaded.answer.to} /> : null)}
          </Show>
        </>
      ) : (
        <p class="hint">Choose a game to see how it is doing.</p>
      )}
    </div>
  );
};
