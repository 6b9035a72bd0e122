// The economy page's body (console/src/pages/economy.tsx loads it): a game's rewards pool over time (balance,
// inflows, payouts: a chart of its books day by day, from the pool's history), its settlements with recipients,
// amounts and chain signatures (each verified on demand against its published statement and the chain), and its
// multiplier sales. The pool endpoint answers the last 20 inflows and the last 10 settlements: those lists are
// paged here.

import type { components, paths } from '@arcadia/sdk';
import { useMemo } from 'preact/hooks';
import { addressUrl, api, txUrl } from '../api.js';
import { LineChart } from '../chart.js';
import { Short, Sol, sol, Time } from '../format.js';
import { Empty, ErrorBox, Head, Loading, TableWrap, useAsync, usePage } from '../ui.js';
import { VerifyButton } from '../verify-button.js';

export type Pool =
  paths['/rewards/game-rewards-pool/{gameId}']['get']['responses'][200]['content']['application/json']['data'];
type PoolDay = components['schemas']['PoolDay'];

/** How far back the chart goes, and the pages (of 100 days each) it may read to get there. */
const HISTORY_DAYS = 180;
const HISTORY_PAGES = 3;
const DAY_SECONDS = 86_400;

const dayStart = (day: string) => Date.parse(`${day}T00:00:00.000Z`) / 1000;
const utcToday = () => new Date().toISOString().slice(0, 10);

/** The pool's days within the window (newest first), and the books at the window's start if older days exist. */
const loadHistory = async (gameId: string) => {
  const from = dayStart(utcToday()) - (HISTORY_DAYS - 1) * DAY_SECONDS;
  const days: PoolDay[] = [];
  let before: PoolDay | undefined;
  let cursor: string | undefined;
  for (let page = 0; page < HISTORY_PAGES && !before; page++) {
    const answer = await api().GET('/rewards/game-rewards-pool/{gameId}/history', {
      params: { path: { gameId }, query: { limit: 100, ...(cursor ? { cursor } : {}) } },
    });
    if (!answer.data) throw new Error('The API answered without a body');
    for (const d of answer.data.data) {
      if (dayStart(d.day) >= from) days.push(d);
      else before ??= d;
    }
    cursor = answer.data.meta.nextCursor ?? undefined;
    if (!cursor) break;
  }
  return { from, days, before };
};

type History = Awaited<ReturnType<typeof loadHistory>>;

/**
 * One point per day on which the books moved (at the day's start, with the books at its end), a first point at the
 * window's start when older days carry books into it, and a last one today so the line reaches now.
 */
const timeline = ({ from, days, before }: History) => {
  const points = [...days].reverse().map((d) => ({ at: dayStart(d.day), books: d.endOfDay }));
  if (before) points.unshift({ at: from, books: before.endOfDay });
  const last = points.at(-1);
  const today = dayStart(utcToday());
  if (last && last.at < today) points.push({ at: today, books: last.books });
  return {
    x: points.map((p) => p.at),
    inflows: points.map((p) => sol(p.books.totalInflowLamports)),
    payouts: points.map((p) => sol(p.books.totalPaidLamports) + sol(p.books.totalFeesLamports)),
    balance: points.map((p) => sol(p.books.balanceLamports)),
  };
};

const PoolChart = ({ gameId }: { gameId: string }) => {
  const [history, reload] = useAsync(() => loadHistory(gameId), [gameId]);
  const value = history.state === 'ok' ? history.value : undefined;
  const line = useMemo(() => (value ? timeline(value) : undefined), [value]);
  const series = useMemo(
    () =>
      line
        ? [
            { label: 'Inflows (cumulative)', values: line.inflows, color: '#1d6f42' },
            { label: 'Payouts and fees (cumulative)', values: line.payouts, color: '#a13b00' },
            { label: 'Balance (by the books)', values: line.balance, color: '#1f4e9c' },
          ]
        : [],
    [line],
  );
  if (history.state === 'loading') return <Loading what="the pool's history" />;
  if (history.state === 'error') return <ErrorBox error={history.error} retry={reload} />;
  if (!line || line.x.length === 0)
    return <Empty>No multiplier sold yet: the pool's books have not moved.</Empty>;
  return (
    <>
      <LineChart
        title="Rewards pool (SOL)"
        x={line.x}
        series={series}
        xLabel={(t) => new Date(t * 1000).toISOString().slice(0, 10)}
        format={(v) => `${v.toLocaleString(undefined, { maximumFractionDigits: 4 })} SOL`}
      />
      <p class="hint">
        The last {HISTORY_DAYS} days (UTC): a point per day on which the pool's books moved, with the books at
        the end of that day{value?.before ? '; the first point carries the books of the days before' : ''}.
      </p>
    </>
  );
};

const Settlement = ({
  s,
  solUsd,
  gameId,
  vault,
}: {
  s: components['schemas']['SettlementSummary'];
  solUsd: number | null;
  gameId: string;
  vault: string | null;
}) => {
  const { rows, pager } = usePage(s.recipients, 10);
  return (
    <details>
      <summary>
        {s.day}: <Sol lamports={s.allocatedLamports} solUsd={solUsd} /> to {s.recipients.length} recipients (
        {s.status})
      </summary>
      <TableWrap label="Recipients">
        <table>
          <caption>Recipients of {s.day}</caption>
          <Head columns={['Wallet', 'Role', 'Sent', 'Fee', 'Carried out', 'Status', 'Transaction']} />
          <tbody>
            {rows.map((r, i) => (
              <tr key={`${r.wallet}-${i}`}>
                <td>
                  {r.wallet ? (
                    <a href={addressUrl(r.wallet)}>
                      <Short value={r.wallet} />
                    </a>
                  ) : (
                    'no wallet'
                  )}
                </td>
                <td>
                  {r.roles.join(', ')}
                  {r.rank ? ` #${r.rank}` : ''}
                </td>
                <td>
                  <Sol lamports={r.sentLamports} solUsd={solUsd} />
                </td>
                <td>
                  <Sol lamports={r.feeLamports} />
                </td>
                <td>
                  <Sol lamports={r.carriedOutLamports} />
                </td>
                <td>{r.status}</td>
                <td>
                  {r.signature ? (
                    <a href={txUrl(r.signature)}>
                      <Short value={r.signature} />
                    </a>
                  ) : (
                    '–'
                  )}
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      </TableWrap>
      {pager(`Recipients of ${s.day}`)}
      <VerifyButton gameId={gameId} run={{ day: s.day }} vault={vault} label={`Verify the run of ${s.day}`} />
    </details>
  );
};

export const PoolView = ({ pool }: { pool: Pool }) => {
  const sales = usePage(pool.recentInflows, 10);
  const settlements = usePage(pool.recentSettlements, 5);
  const solUsd = pool.solUsdPrice;
  return (
    <>
      <dl class="figures">
        <dt>Balance</dt>
        <dd>
          <Sol lamports={pool.balanceLamports} solUsd={solUsd} />
        </dd>
        <dt>Paid in</dt>
        <dd>
          <Sol lamports={pool.totalInflowLamports} solUsd={solUsd} />
        </dd>
        <dt>Paid out</dt>
        <dd>
          <Sol lamports={pool.totalPaidLamports} solUsd={solUsd} />
        </dd>
        <dt>Next daily payout</dt>
        <dd>
          <Sol lamports={pool.nextDailyPayoutLamports} solUsd={solUsd} />
        </dd>
        <dt>Vault</dt>
        <dd>
          {pool.vaultAddress ? (
            <a href={addressUrl(pool.vaultAddress)}>
              <Short value={pool.vaultAddress} />
            </a>
          ) : (
            'not created yet'
          )}
        </dd>
      </dl>
      <PoolChart gameId={pool.gameId} />
      <section aria-labelledby="settlements-title">
        <h2 id="settlements-title">Settlements</h2>
        {pool.recentSettlements.length === 0 ? (
          <Empty>No settlement yet.</Empty>
        ) : (
          <>
            {settlements.rows.map((s) => (
              <Settlement key={s.day} s={s} solUsd={solUsd} gameId={pool.gameId} vault={pool.vaultAddress} />
            ))}
            {settlements.pager('Settlements')}
          </>
        )}
      </section>
      <section aria-labelledby="sales-title">
        <h2 id="sales-title">Multiplier sales</h2>
        {pool.recentInflows.length === 0 ? (
          <Empty>No multiplier sold yet.</Empty>
        ) : (
          <>
            <TableWrap label="Multiplier sales">
              <table id="sales">
                <Head columns={['When', 'Multiplier', 'Paid', 'Buyer', 'Transaction']} />
                <tbody>
                  {sales.rows.map((i) => (
                    <tr key={i.purchaseId}>
                      <td>
                        <Time iso={i.at} />
                      </td>
                      <td>
                        ×{i.multiplier} for {Math.round(i.durationSeconds / 3600)} h
                      </td>
                      <td>
                        <Sol lamports={i.lamports} solUsd={solUsd} />
                      </td>
                      <td>
                        <a href={addressUrl(i.fromWallet)}>
                          <Short value={i.fromWallet} />
                        </a>
                      </td>
                      <td>
                        <a href={txUrl(i.signature)}>
                          <Short value={i.signature} />
                        </a>
                      </td>
                    </tr>
                  ))}
                </tbody>
              </table>
            </TableWrap>
            {sales.pager('Multiplier sales')}
          </>
        )}
      </section>
    </>
  );
};
