// Webhooks: a game's endpoints (register, disable / enable, delete, rotate the signing secret, send a test event)
// and an endpoint's delivery log (paginated) with a redeliver per event. Signing secrets are shown once.

import type { paths } from '@arcadia/sdk';
import { useEffect, useState } from 'preact/hooks';
import { api, data, type ShownError, shownError } from '../api.js';
import { Short, Time } from '../format.js';
import { go, href } from '../router.js';
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

type Subscribable =
  paths['/webhooks/{gameId}/endpoints']['post']['requestBody']['content']['application/json']['eventTypes'][number];

/** The types an endpoint can subscribe to, in the order docs/webhooks.md lists them. */
const EVENT_TYPES = [
  'settlement.completed',
  'payout.sent',
  'payout.carried',
  'claim.landed',
  'session.flagged',
  'session.invalidated',
  'launch.completed',
  'launch.failed',
  'multiplier.purchased',
  'ownership.verified',
  'tournament.period.ended',
  'tournament.period.paid',
] as const satisfies readonly Subscribable[];
// A type the API adds and this list misses fails the build here.
const everyType: Exclude<Subscribable, (typeof EVENT_TYPES)[number]> extends never ? true : never = true;
void everyType;

/** Reloads the delivery log a little after an event was queued, when its first attempt has likely been made. */
const SETTLE_MS = [1_500, 4_000];

const SigningSecret = ({ url, secret, onDone }: { url: string; secret: string; onDone: () => void }) => {
  const [copied, setCopied] = useState<string | null>(null);
  const copy = async () => {
    try {
      await navigator.clipboard.writeText(secret);
      setCopied('Copied to the clipboard.');
    } catch {
      setCopied('Copy failed: select the secret and copy it by hand.');
    }
  };
  return (
    <section class="secret" aria-labelledby="signing-secret-title">
      <h2 id="signing-secret-title">Signing secret</h2>
      <p>
        For <code>{url}</code>. Shown this once: give it to your receiver now (it verifies each delivery with
        it). The console does not keep it.
      </p>
      <p>
        <code id="signing-secret-value">{secret}</code>
      </p>
      <button type="button" onClick={() => void copy()}>
        Copy signing secret
      </button>{' '}
      <button type="button" onClick={onDone}>
        I stored it
      </button>
      <p role="status">{copied}</p>
    </section>
  );
};

const Register = ({
  gameId,
  onCreated,
}: {
  gameId: string;
  onCreated: (created: { url: string; secret: string }) => void;
}) => {
  const [url, setUrl] = useState('');
  const [description, setDescription] = useState('');
  const [types, setTypes] = useState<Subscribable[]>([]);
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<ShownError | null>(null);
  const submit = async (event: Event) => {
    event.preventDefault();
    setBusy(true);
    setError(null);
    try {
      const created = data(
        await api().POST('/webhooks/{gameId}/endpoints', {
          params: { path: { gameId } },
          body: { url, eventTypes: types, ...(description ? { description } : {}) },
        }),
      );
      setUrl('');
      setDescription('');
      setTypes([]);
      onCreated({ url: created.url, secret: created.secret });
    } catch (caught) {
      setError(shownError(caught));
    } finally {
      setBusy(false);
    }
  };
  const toggle = (type: Subscribable, on: boolean) =>
    setTypes((current) => (on ? [...current, type] : current.filter((t) => t !== type)));
  return (
    <form onSubmit={(e) => void submit(e)} aria-labelledby="register-title">
      <h2 id="register-title">Register an endpoint</h2>
      <label>
        Endpoint URL
        <input
          type="url"
          required
          value={url}
          placeholder="https://example.com/arcadia-webhooks"
          onInput={(e) => setUrl(e.currentTarget.value)}
        />
      </label>
      <label>
        Description (optional)
        <input
          type="text"
          maxLength={200}
          value={description}
          onInput={(e) => setDescription(e.currentTarget.value)}
        />
      </label>
      <fieldset>
        <legend>Event types</legend>
        {EVENT_TYPES.map((type) => (
          <label class="inline" key={type}>
            <input
              type="checkbox"
              checked={types.includes(type)}
              onChange={(e) => toggle(type, e.currentTarget.checked)}
            />{' '}
            <code>{type}</code>
          </label>
        ))}
      </fieldset>
      <button type="submit" disabled={busy || types.length === 0}>
        Register endpoint
      </button>
      {types.length === 0 ? <p class="hint">Choose at least one event type.</p> : null}
      {error ? <ErrorBox error={error} /> : null}
    </form>
  );
};

type Endpoint = {
  id: string;
  url: string;
  description: string | null;
  eventTypes: string[];
  enabled: boolean;
  disabledReason: string | null;
  consecutiveFailures: number;
  createdAt: string;
};

const status = (e: Endpoint) =>
  e.enabled ? 'Enabled' : e.disabledReason === 'failing' ? 'Disabled: failing' : 'Disabled';

const EndpointActions = ({
  gameId,
  endpoint,
  run,
}: {
  gameId: string;
  endpoint: Endpoint;
  run: (what: 'toggle' | 'test' | 'rotate' | 'delete', endpoint: Endpoint) => Promise<void>;
}) => {
  const [confirming, setConfirming] = useState(false);
  const label = endpoint.description ?? endpoint.url;
  if (confirming)
    return (
      <fieldset class="confirm">
        <legend>Delete {label}? Its deliveries stop.</legend>
        <button type="button" class="danger" onClick={() => void run('delete', endpoint)}>
          Delete endpoint
        </button>{' '}
        <button type="button" onClick={() => setConfirming(false)}>
          Cancel
        </button>
      </fieldset>
    );
  return (
    <div class="actions">
      <a href={href('webhooks', { game: gameId, endpoint: endpoint.id })} class="log-link">
        Delivery log
      </a>
      <button
        type="button"
        onClick={() => void run('toggle', endpoint)}
        aria-label={`${endpoint.enabled ? 'Disable' : 'Enable'} ${label}`}
      >
        {endpoint.enabled ? 'Disable' : 'Enable'}
      </button>
      <button
        type="button"
        disabled={!endpoint.enabled}
        onClick={() => void run('test', endpoint)}
        aria-label={`Send test to ${label}`}
      >
        Send test
      </button>
      <button
        type="button"
        onClick={() => void run('rotate', endpoint)}
        aria-label={`Rotate secret of ${label}`}
      >
        Rotate secret
      </button>
      <button
        type="button"
        class="danger"
        onClick={() => setConfirming(true)}
        aria-label={`Delete ${label}…`}
      >
        Delete…
      </button>
    </div>
  );
};

const Endpoints = ({ gameId, selected }: { gameId: string; selected: string | undefined }) => {
  const [endpoints, reload] = useAsync(
    async () => data(await api().GET('/webhooks/{gameId}/endpoints', { params: { path: { gameId } } })),
    [gameId],
  );
  const [secret, setSecret] = useState<{ url: string; secret: string } | null>(null);
  const [notice, setNotice] = useState<string | null>(null);
  const [error, setError] = useState<ShownError | null>(null);
  const [logTick, setLogTick] = useState(0);

  const run = async (what: 'toggle' | 'test' | 'rotate' | 'delete', endpoint: Endpoint) => {
    setError(null);
    setNotice(null);
    const path = { gameId, endpointId: endpoint.id };
    try {
      if (what === 'toggle') {
        await api().PATCH('/webhooks/{gameId}/endpoints/{endpointId}', {
          params: { path },
          body: { enabled: !endpoint.enabled },
        });
        setNotice(`${endpoint.url}: ${endpoint.enabled ? 'disabled' : 'enabled'}.`);
      } else if (what === 'test') {
        const sent = data(
          await api().POST('/webhooks/{gameId}/endpoints/{endpointId}/test', { params: { path } }),
        );
        setNotice(`Test event ${sent.eventId} queued for ${endpoint.url}.`);
        go('webhooks', { game: gameId, endpoint: endpoint.id });
        for (const ms of SETTLE_MS) setTimeout(() => setLogTick((t) => t + 1), ms);
      } else if (what === 'rotate') {
        const rotated = data(
          await api().POST('/webhooks/{gameId}/endpoints/{endpointId}/rotate-secret', { params: { path } }),
        );
        setSecret({ url: rotated.url, secret: rotated.secret });
        setNotice(
          'New signing secret: for 24 hours each delivery is signed with both the old and the new one.',
        );
      } else {
        await api().DELETE('/webhooks/{gameId}/endpoints/{endpointId}', { params: { path } });
        setNotice(`${endpoint.url}: deleted.`);
        if (selected === endpoint.id) go('webhooks', { game: gameId });
      }
      reload();
    } catch (caught) {
      setError(shownError(caught));
    }
  };

  return (
    <>
      {secret ? <SigningSecret {...secret} onDone={() => setSecret(null)} /> : null}
      {notice ? (
        <p role="status" class="notice">
          {notice}
        </p>
      ) : null}
      {error ? <ErrorBox error={error} /> : null}
      <section aria-labelledby="endpoints-title">
        <h2 id="endpoints-title">Endpoints</h2>
        <Show result={endpoints} what="the endpoints" retry={reload}>
          {(list) =>
            list.length === 0 ? (
              <Empty>No endpoints yet: register one below to receive this game's events.</Empty>
            ) : (
              <TableWrap label="Webhook endpoints">
                <table>
                  <caption>Endpoints of this game (at most 10)</caption>
                  <Head columns={['URL', 'Events', 'Status', 'Failures in a row', 'Registered', 'Actions']} />
                  <tbody>
                    {list.map((endpoint) => (
                      <tr key={endpoint.id} aria-current={endpoint.id === selected ? 'true' : undefined}>
                        <td>
                          <code class="url">{endpoint.url}</code>
                          {endpoint.description ? <div>{endpoint.description}</div> : null}
                        </td>
                        <td>{endpoint.eventTypes.join(', ')}</td>
                        <td class="endpoint-status">{status(endpoint)}</td>
                        <td>{endpoint.consecutiveFailures}</td>
                        <td>
                          <Time iso={endpoint.createdAt} />
                        </td>
                        <td>
                          <EndpointActions gameId={gameId} endpoint={endpoint} run={run} />
                        </td>
                      </tr>
                    ))}
                  </tbody>
                </table>
              </TableWrap>
            )
          }
        </Show>
      </section>
      {selected ? <DeliveryLog key={selected} gameId={gameId} endpointId={selected} tick={logTick} /> : null}
      <Register
        gameId={gameId}
        onCreated={(created) => {
          setSecret(created);
          setNotice(`Registered ${created.url}.`);
          reload();
        }}
      />
    </>
  );
};

const attemptResult = (a: { ok: boolean; statusCode: number | null; error: string | null }) =>
  a.ok ? `Delivered (HTTP ${a.statusCode})` : (a.error ?? `HTTP ${a.statusCode}`);

const DeliveryLog = ({ gameId, endpointId, tick }: { gameId: string; endpointId: string; tick: number }) => {
  const pages = useCursorPages([endpointId]);
  const [notice, setNotice] = useState<string | null>(null);
  const [error, setError] = useState<ShownError | null>(null);
  const [log, reload] = useAsync(async () => {
    const res = await api().GET('/webhooks/{gameId}/endpoints/{endpointId}/attempts', {
      params: {
        path: { gameId, endpointId },
        query: { limit: 20, ...(pages.cursor ? { cursor: pages.cursor } : {}) },
      },
    });
    if (!res.data) throw new Error('The API answered without a body');
    return res.data;
  }, [gameId, endpointId, pages.cursor]);
  useEffect(() => {
    if (tick > 0) reload();
  }, [tick]);

  const redeliver = async (eventId: string) => {
    setError(null);
    setNotice(null);
    try {
      const sent = data(
        await api().POST('/webhooks/{gameId}/endpoints/{endpointId}/events/{eventId}/redeliver', {
          params: { path: { gameId, endpointId, eventId } },
        }),
      );
      setNotice(`Event ${eventId} queued again (attempt ${sent.attempt}).`);
      for (const ms of SETTLE_MS) setTimeout(reload, ms);
    } catch (caught) {
      setError(shownError(caught));
    }
  };

  return (
    <section aria-labelledby="log-title">
      <h2 id="log-title">Delivery log</h2>
      <p>
        Every attempt to <Short value={endpointId} />, newest event first. Deliveries are retried for about a
        day; the same event keeps its id (<code>webhook-id</code>).{' '}
        <button type="button" onClick={reload}>
          Refresh
        </button>
      </p>
      {notice ? (
        <p role="status" class="notice">
          {notice}
        </p>
      ) : null}
      {error ? <ErrorBox error={error} /> : null}
      <Show result={log} what="the delivery log" retry={reload}>
        {(page) =>
          page.data.length === 0 ? (
            <Empty>No attempts yet{pages.page > 1 ? ' on this page' : ''}: send a test event.</Empty>
          ) : (
            <>
              <TableWrap label="Delivery attempts">
                <table>
                  <caption>Delivery attempts</caption>
                  <Head columns={['Time', 'Event', 'Attempt', 'Result', 'Latency', 'Next retry', 'Action']} />
                  <tbody>
                    {page.data.map((a, i) => (
                      <tr key={`${a.eventId}-${a.attempt}`}>
                        <td>
                          <Time iso={a.at} />
                        </td>
                        <td>
                          <code>{a.eventType}</code> <Short value={a.eventId} />
                        </td>
                        <td>{a.attempt}</td>
                        <td class={a.ok ? 'ok' : 'failed'}>{attemptResult(a)}</td>
                        <td>{a.latencyMs} ms</td>
                        <td>
                          <Time iso={a.nextRetryAt} />
                        </td>
                        <td>
                          {page.data.findIndex((b) => b.eventId === a.eventId) === i ? (
                            <button
                              type="button"
                              onClick={() => void redeliver(a.eventId)}
                              aria-label={`Redeliver ${a.eventType} ${a.eventId}`}
                            >
                              Redeliver
                            </button>
                          ) : null}
                        </td>
                      </tr>
                    ))}
                  </tbody>
                </table>
              </TableWrap>
              <CursorPager pages={pages} nextCursor={page.meta.nextCursor} label="Delivery log" />
            </>
          )
        }
      </Show>
    </section>
  );
};

export const WebhooksPage = ({
  gameId,
  endpointId,
}: {
  gameId: string | undefined;
  endpointId: string | undefined;
}) => (
  <>
    <h1 tabIndex={-1}>Webhooks</h1>
    <p>
      Your backend receives the game's events as signed POSTs (Standard Webhooks): verify them with the SDK's{' '}
      <code>verifyWebhook</code> or any Standard Webhooks library.
    </p>
    <GamePicker gameId={gameId} onChange={(id) => go('webhooks', { game: id })} />
    {gameId ? <Endpoints key={gameId} gameId={gameId} selected={endpointId} /> : null}
  </>
);
