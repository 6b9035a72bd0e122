// Coin: launch a game coin with a live progress bar through the job's stages, the coin's status and emission
// schedule, its airdrop snapshot (version, holders, root) and a wallet's claims.

import type { components } from '@arcadia/sdk';
import { useEffect, useMemo, useState } from 'preact/hooks';
import { addressUrl, api, data, type ShownError, shownError, txUrl } from '../api.js';
import { LineChart, type Series } from '../chart.js';
import { Short, Time } from '../format.js';
import { go } from '../router.js';
import { Empty, ErrorBox, GamePicker, Head, OffsetPager, ProgressBar, Show, useAsync } from '../ui.js';

type Job = components['schemas']['LaunchJob'];

/** The launch job's stages, by the progress each one reaches (GET /token-launcher/launch/{jobId}). */
const STAGES = [
  [0, 'Queued'],
  [10, 'Coin address reserved, balance checked'],
  [50, 'Mint created, supply minted, authorities revoked'],
  [80, 'Initial buy done (or skipped)'],
  [100, 'Launched'],
] as const;

/** Tokens emitted to players over the emission days (docs/game-coin.md): 106 900 000, evenly per day. */
const EMISSION_POOL = 106_900_000;
const DAY = 86_400;

const Launch = ({
  gameId,
  onStarted,
  onLaunched,
}: {
  gameId: string;
  onStarted: () => void;
  onLaunched: () => void;
}) => {
  const [days, setDays] = useState<7 | 30>(7);
  const [buySol, setBuySol] = useState('');
  const [symbol, setSymbol] = useState('');
  const [job, setJob] = useState<Job | null>(null);
  const [error, setError] = useState<ShownError | null>(null);
  const [busy, setBusy] = useState(false);

  useEffect(() => {
    if (!job || job.status === 'completed' || job.status === 'failed') {
      if (job?.status === 'completed') onLaunched();
      return;
    }
    const timer = setTimeout(async () => {
      try {
        setJob(
          data(await api().GET('/token-launcher/launch/{jobId}', { params: { path: { jobId: job.jobId } } })),
        );
      } catch (caught) {
        setError(shownError(caught));
      }
    }, 1000);
    return () => clearTimeout(timer);
  }, [job]);

  const submit = async (event: Event) => {
    event.preventDefault();
    setBusy(true);
    setError(null);
    try {
      const lamports = buySol.trim() ? String(Math.round(Number(buySol) * 1e9)) : undefined;
      const started = data(
        await api().POST('/token-launcher/launch', {
          body: {
            gameId,
            emissionDays: days,
            ...(lamports ? { buyAmount: lamports } : {}),
            ...(symbol.trim() ? { gameCoinSymbol: symbol.trim() } : {}),
          },
        }),
      );
      onStarted();
      setJob({
        jobId: started.jobId,
        gameId,
        status: started.status,
        progress: started.progress,
        message: started.message,
      } as Job);
    } catch (caught) {
      setError(shownError(caught));
    } finally {
      setBusy(false);
    }
  };

  const running = job !== null && job.status !== 'failed' && job.status !== 'completed';
  return (
    <section aria-labelledby="launch-title">
      <h2 id="launch-title">Launch the game coin</h2>
      <form onSubmit={(e) => void submit(e)}>
        <label>
          Emission period
          <select value={String(days)} onChange={(e) => setDays(e.currentTarget.value === '30' ? 30 : 7)}>
            <option value="7">7 days</option>
            <option value="30">30 days</option>
          </select>
        </label>
        <label>
          Initial buy in SOL (optional)
          <input
            type="number"
            min={0}
            step="any"
            value={buySol}
            onInput={(e) => setBuySol(e.currentTarget.value)}
          />
        </label>
        <label>
          Symbol (optional, 2–10 of A–Z 0–9)
          <input
            value={symbol}
            maxLength={10}
            onInput={(e) => setSymbol(e.currentTarget.value.toUpperCase())}
          />
        </label>
        <button type="submit" disabled={busy || running}>
          {running ? 'Launching…' : 'Launch'}
        </button>
      </form>
      {job ? (
        <div class="job" aria-live="polite">
          <ProgressBar value={job.progress} label="Launch progress" />
          <ol class="stages">
            {STAGES.map(([at, label]) => (
              <li key={at} class={job.progress >= at ? 'done' : ''}>
                {label}
                {job.progress >= at ? ' ✓' : ''}
              </li>
            ))}
          </ol>
          <p id="job-message">{job.message}</p>
          {job.status === 'failed' ? (
            <ErrorBox error={{ code: 'LAUNCH_FAILED', message: job.error }} />
          ) : null}
          {job.status === 'completed' ? (
            <p role="status">
              Launched: mint{' '}
              <a href={addressUrl(job.gtokenAddress)}>
                <Short value={job.gtokenAddress} />
              </a>
              , transaction{' '}
              <a href={txUrl(job.bundleTx)}>
                <Short value={job.bundleTx} />
              </a>
              .
            </p>
          ) : null}
        </div>
      ) : null}
      {error ? <ErrorBox error={error} /> : null}
    </section>
  );
};

const Emission = ({
  mint,
  days,
  startAt,
}: {
  mint: string;
  days: number;
  startAt: string | null | undefined;
}) => {
  const start = startAt ? Math.floor(Date.parse(startAt) / 1000) : null;
  const [emission] = useAsync(
    async () =>
      data(await api().GET('/token-launcher/emission/{coinMint}', { params: { path: { coinMint: mint } } })),
    [mint],
  );
  const settled = emission.state === 'ok' ? emission.value : undefined;
  const chart = useMemo(() => {
    const x = Array.from({ length: days + 1 }, (_, k) => (start ?? 0) + k * DAY);
    const planned = x.map((_, k) => Math.floor((EMISSION_POOL * k) / days));
    const series: Series[] = [{ label: 'Planned emission (cumulative)', values: planned, color: '#1f4e9c' }];
    if (settled) {
      // Base units to tokens: the pool is EMISSION_POOL tokens.
      const perToken = Number(settled.poolAmount) / EMISSION_POOL;
      const byIndex = new Map(settled.days.map((d) => [d.index, Number(d.amount) / perToken]));
      const last = Math.max(-1, ...settled.days.map((d) => d.index));
      let sum = 0;
      const emitted = x.map((_, k) => {
        if (k > last + 1) return null;
        const value = sum;
        sum += byIndex.get(k) ?? 0;
        return Math.floor(value);
      });
      series.push({ label: 'Emitted (cumulative)', values: emitted, color: '#b8560b' });
    }
    return { x, series };
  }, [days, start, settled]);
  if (start === null) return null;
  return (
    <>
      <LineChart
        title="Emission schedule (tokens)"
        x={chart.x}
        series={chart.series}
        xLabel={(t) => new Date(t * 1000).toLocaleDateString()}
        format={(v) => Math.round(v).toLocaleString()}
      />
      {emission.state === 'error' ? <ErrorBox error={emission.error} /> : null}
      {settled ? (
        <p class="hint">
          Emitted so far:{' '}
          {Math.round(
            Number(settled.emittedAmount) / (Number(settled.poolAmount) / EMISSION_POOL),
          ).toLocaleString()}{' '}
          of {EMISSION_POOL.toLocaleString()} tokens, over {settled.days.length} settled{' '}
          {settled.days.length === 1 ? 'day' : 'days'}.
        </p>
      ) : null}
    </>
  );
};

const Snapshot = ({ mint }: { mint: string }) => {
  const [offset, setOffset] = useState(0);
  const [snapshot, reload] = useAsync(async () => {
    try {
      return data(
        await api().GET('/token-launcher/snapshot/{tokenMint}', { params: { path: { tokenMint: mint } } }),
      );
    } catch (error) {
      if (shownError(error).status === 404) return null;
      throw error;
    }
  }, [mint]);
  const [holders, reloadHolders] = useAsync(async () => {
    const res = await api().GET('/token-launcher/snapshot/{tokenMint}/holders', {
      params: { path: { tokenMint: mint }, query: { limit: 20, offset } },
    });
    if (!res.data) throw new Error('The API answered without a body');
    return res.data;
  }, [mint, offset]);
  return (
    <section aria-labelledby="snapshot-title">
      <h2 id="snapshot-title">Airdrop snapshot</h2>
      <Show result={snapshot} what="the snapshot" retry={reload}>
        {(s) =>
          s ? (
            <>
              <dl class="figures">
                <dt>Version</dt>
                <dd>{s.version}</dd>
                <dt>Holders</dt>
                <dd>{s.holderCount}</dd>
                <dt>Merkle root</dt>
                <dd>
                  <Short value={s.merkleRoot} />
                </dd>
                <dt>Taken</dt>
                <dd>
                  <Time iso={s.createdAt} />
                </dd>
              </dl>
              <Show result={holders} what="holders" retry={reloadHolders}>
                {(h) => (
                  <>
                    <table>
                      <Head columns={['Leaf', 'Wallet', 'Allocation (base units)']} />
                      <tbody>
                        {h.data.map((row) => (
                          <tr key={row.index}>
                            <td>{row.index}</td>
                            <td>
                              <a href={addressUrl(row.address)}>
                                <Short value={row.address} />
                              </a>
                            </td>
                            <td>{BigInt(row.amount).toLocaleString()}</td>
                          </tr>
                        ))}
                      </tbody>
                    </table>
                    <OffsetPager
                      offset={offset}
                      limit={20}
                      total={h.meta.total}
                      shown={h.data.length}
                      onChange={setOffset}
                      label="Holders"
                    />
                  </>
                )}
              </Show>
            </>
          ) : (
            <Empty>No snapshot yet: the game has no airdrop token, or the first snapshot is not taken.</Empty>
          )
        }
      </Show>
    </section>
  );
};

const Claims = ({ mint }: { mint: string }) => {
  const [wallet, setWallet] = useState('');
  const [asked, setAsked] = useState<string | null>(null);
  const [status, reload] = useAsync(
    async () =>
      asked
        ? data(
            await api().GET('/token-launcher/exercise-claim/{gtokenAddress}/status/{wallet}', {
              params: { path: { gtokenAddress: mint, wallet: asked } },
            }),
          )
        : null,
    [mint, asked],
  );
  return (
    <section aria-labelledby="claims-title">
      <h2 id="claims-title">Claims</h2>
      <p class="hint">The API reports claims per wallet (no list of every claim of a coin exists).</p>
      <form
        class="search"
        onSubmit={(e) => {
          e.preventDefault();
          setAsked(wallet.trim());
        }}
      >
        <label>
          Wallet address
          <input required value={wallet} onInput={(e) => setWallet(e.currentTarget.value)} />
        </label>
        <button type="submit">Look up</button>
      </form>
      {asked ? (
        <Show result={status} what="the claim status" retry={reload}>
          {(s) =>
            s ? (
              <p>
                State <strong>{s.state}</strong>
                {s.amount ? `, amount ${BigInt(s.amount).toLocaleString()} base units` : ''}.
              </p>
            ) : null
          }
        </Show>
      ) : null}
    </section>
  );
};

const Coin = ({ gameId }: { gameId: string }) => {
  const [game, reload] = useAsync(
    async () =>
      data(
        await api().GET('/games/id/{id}', {
          params: { path: { id: gameId }, query: { include_tokens: true } },
        }),
      ),
    [gameId],
  );
  // Once a launch starts here its progress stays on screen, also while the game is read again.
  const [launching, setLaunching] = useState(false);
  const launchable = launching || (game.state === 'ok' && game.value.tokens?.gameCoin?.status !== 'active');
  return (
    <>
      <Show result={game} what="the game" retry={reload}>
        {(g) => {
          const coin = g.tokens?.gameCoin;
          return coin ? (
            <section aria-labelledby="coin-title">
              <h2 id="coin-title">
                {coin.gameCoinSymbol} ({coin.status})
              </h2>
              <dl class="figures">
                <dt>Mint</dt>
                <dd>
                  <a href={addressUrl(coin.gtokenAddress)}>
                    <Short value={coin.gtokenAddress} />
                  </a>
                </dd>
                <dt>Emission</dt>
                <dd>
                  {coin.emissionDays} days, <Time iso={coin.emissionStartAt} /> to{' '}
                  <Time iso={coin.emissionEndAt} />
                </dd>
              </dl>
              <Emission mint={coin.gtokenAddress} days={coin.emissionDays} startAt={coin.emissionStartAt} />
              <Snapshot mint={coin.gtokenAddress} />
              <Claims mint={coin.gtokenAddress} />
            </section>
          ) : (
            <Empty>This game has no coin yet.</Empty>
          );
        }}
      </Show>
      {launchable ? (
        <Launch gameId={gameId} onStarted={() => setLaunching(true)} onLaunched={reload} />
      ) : null}
    </>
  );
};

export const CoinPage = ({ gameId }: { gameId: string | undefined }) => (
  <>
    <h1 tabIndex={-1}>Coin</h1>
    <GamePicker gameId={gameId} onChange={(id) => go('coin', { game: id })} />
    {gameId ? <Coin key={gameId} gameId={gameId} /> : null}
  </>
);
