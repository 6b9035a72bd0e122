// Economy: a game's rewards pool over time (balance, inflows, payouts), its settlements with recipients, amounts
// and chain signatures, and its multiplier sales. The pool endpoint answers the last 20 inflows and the last 10
// settlements: the chart covers that window, no longer history (no endpoint gives it).

import type { components, paths } from '@arcadia/sdk';
import { useMemo } from 'preact/hooks';
import { addressUrl, api, data, txUrl } from '../api.js';
import { LineChart } from '../chart.js';
import { Short, Sol, sol, Time } from '../format.js';
import { go } from '../router.js';
import { Empty, GamePicker, Show, TableWrap, useAsync, usePage } from '../ui.js';

type PoolView =
  paths['/rewards/game-rewards-pool/{gameId}']['get']['responses'][200]['content']['application/json']['data'];

/** Cumulative inflows and payouts at each event of the window, ending at today's totals. */
const timeline = (pool: PoolView) => {
  const events = [
    ...pool.recentInflows.map((i) => ({ at: Date.parse(i.at), inflow: Number(i.lamports), paid: 0 })),
    ...pool.recentSettlements
      .filter((s) => s.settledAt)
      .map((s) => ({
        at: Date.parse(s.settledAt ?? ''),
        inflow: 0,
        paid: s.recipients.reduce((sum, r) => sum + Number(r.sentLamports) + Number(r.feeLamports), 0),
      })),
  ].sort((a, b) => a.at - b.at);
  // Work back from the totals, so the window's first point carries what came before it.
  let inflow = Number(pool.totalInflowLamports) - events.reduce((s, e) => s + e.inflow, 0);
  let paid =
    Number(pool.totalPaidLamports) + Number(pool.totalFeesLamports) - events.reduce((s, e) => s + e.paid, 0);
  const x: number[] = [];
  const inflows: number[] = [];
  const payouts: number[] = [];
  const balance: number[] = [];
  for (const e of events) {
    inflow += e.inflow;
    paid += e.paid;
    x.push(Math.floor(e.at / 1000));
    inflows.push(sol(inflow));
    payouts.push(sol(paid));
    balance.push(sol(inflow - paid));
  }
  x.push(Math.floor(Date.now() / 1000));
  inflows.push(sol(inflow));
  payouts.push(sol(paid));
  balance.push(sol(pool.balanceLamports));
  return { x, inflows, payouts, balance };
};

const Settlement = ({
  s,
  solUsd,
}: {
  s: components['schemas']['SettlementSummary'];
  solUsd: number | null;
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
          <thead>
            <tr>
              <th scope="col">Wallet</th>
              <th scope="col">Role</th>
              <th scope="col">Sent</th>
              <th scope="col">Fee</th>
              <th scope="col">Carried out</th>
              <th scope="col">Status</th>
              <th scope="col">Transaction</th>
            </tr>
          </thead>
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
    </details>
  );
};

const PoolView = ({ pool }: { pool: PoolView }) => {
  const line = useMemo(() => timeline(pool), [pool]);
  const series = useMemo(
    () => [
      { label: 'Inflows (cumulative)', values: line.inflows, color: '#1d6f42' },
      { label: 'Payouts and fees (cumulative)', values: line.payouts, color: '#a13b00' },
      { label: 'Balance', values: line.balance, color: '#1f4e9c' },
    ],
    [line],
  );
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
      {pool.purchases === 0 && pool.recentSettlements.length === 0 ? (
        <Empty>No multiplier sold yet: the pool is empty.</Empty>
      ) : (
        <LineChart
          title="Rewards pool (SOL)"
          x={line.x}
          series={series}
          xLabel={(t) => new Date(t * 1000).toLocaleString()}
          format={(v) => `${v.toLocaleString(undefined, { maximumFractionDigits: 4 })} SOL`}
        />
      )}
      <section aria-labelledby="settlements-title">
        <h2 id="settlements-title">Settlements</h2>
        {pool.recentSettlements.length === 0 ? (
          <Empty>No settlement yet.</Empty>
        ) : (
          <>
            {settlements.rows.map((s) => (
              <Settlement key={s.day} s={s} solUsd={solUsd} />
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
                <thead>
                  <tr>
                    <th scope="col">When</th>
                    <th scope="col">Multiplier</th>
                    <th scope="col">Paid</th>
                    <th scope="col">Buyer</th>
                    <th scope="col">Transaction</th>
                  </tr>
                </thead>
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

export const EconomyPage = ({ gameId }: { gameId: string | undefined }) => {
  const [pool, reload] = useAsync(
    async () =>
      gameId
        ? data(await api().GET('/rewards/game-rewards-pool/{gameId}', { params: { path: { gameId } } }))
        : undefined,
    [gameId],
  );
  return (
    <>
      <h1 tabIndex={-1}>Economy</h1>
      <GamePicker gameId={gameId} onChange={(id) => go('economy', { game: id })} />
      {gameId ? (
        <Show result={pool} what="the rewards pool" retry={reload}>
          {(p) => (p ? <PoolView pool={p} /> : null)}
        </Show>
      ) : null}
    </>
  );
};
