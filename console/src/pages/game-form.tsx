// Register or edit a game: fields, image upload with progress, the creator split with its live basis-point total,
// the play caps, visibility, and the ownership check of the game's domain.

import type { components } from '@arcadia/sdk';
import { useState } from 'preact/hooks';
import { api, data, type ShownError, shownError } from '../api.js';
import { go, href } from '../router.js';
import { ErrorBox, ProgressBar, Show, useAsync } from '../ui.js';
import { uploadImage } from '../upload.js';

type Game = components['schemas']['Game'];

const PLATFORMS = ['WEB', 'DESKTOP', 'MOBILE', 'CONSOLE'] as const;
const CAPS = [
  ['maxScorePerSession', 'Max score per session'],
  ['maxSessionsPerDay', 'Max sessions per player per day'],
  ['maxCumulativePointsPerDay', 'Max points per player per day'],
  ['maxPointsPerSecond', 'Max points per second (SDK)'],
  ['maxBurstPoints', 'Max burst points (SDK)'],
] as const;
type CapName = (typeof CAPS)[number][0];

interface SplitRow {
  who: string;
  bp: string;
}

interface FormState {
  name: string;
  description: string;
  gameUrl: string;
  platform: (typeof PLATFORMS)[number];
  hidden: boolean;
  caps: Record<CapName, string>;
  split: SplitRow[];
}

const fromGame = (game?: Game): FormState => ({
  name: game?.name ?? '',
  description: game?.description ?? '',
  gameUrl: game?.gameUrl ?? '',
  platform: game?.platform ?? 'WEB',
  hidden: game?.hidden ?? false,
  caps: Object.fromEntries(CAPS.map(([cap]) => [cap, game ? String(game[cap] ?? '') : ''])) as Record<
    CapName,
    string
  >,
  split: Object.entries(game?.requestedOrgRewardsSplit ?? {}).map(([who, bp]) => ({ who, bp: String(bp) })),
});

const splitTotal = (rows: SplitRow[]) => rows.reduce((sum, row) => sum + (Number(row.bp) || 0), 0);

/** The request body: every field for a registration, the changed ones for an update. */
const bodyOf = (form: FormState, before: FormState | undefined) => {
  const body: Record<string, unknown> = {};
  const changed = (key: keyof FormState) =>
    !before || JSON.stringify(form[key]) !== JSON.stringify(before[key]);
  for (const key of ['name', 'description', 'gameUrl', 'platform'] as const)
    if (changed(key)) body[key] = form[key];
  if (before && changed('hidden')) body.hidden = form.hidden;
  for (const [cap] of CAPS) {
    const value = form.caps[cap].trim();
    if (!before) {
      if (value) body[cap] = Number(value);
    } else if (value !== before.caps[cap]) body[cap] = value ? Number(value) : null;
  }
  if (changed('split'))
    body.orgRewardsSplit = Object.fromEntries(
      form.split.filter((r) => r.who.trim()).map((r) => [r.who.trim(), Number(r.bp)]),
    );
  return body;
};

const SplitEditor = ({ rows, onChange }: { rows: SplitRow[]; onChange: (rows: SplitRow[]) => void }) => {
  const total = splitTotal(rows);
  const set = (i: number, patch: Partial<SplitRow>) =>
    onChange(rows.map((r, j) => (j === i ? { ...r, ...patch } : r)));
  return (
    <fieldset>
      <legend>Creator rewards split</legend>
      <p class="hint">
        Identifier (Arc ID, did:…, sol:…, email:…, x:…) → basis points; 10 000 bp = 100 %. Empty means all to
        you.
      </p>
      {rows.map((row, i) => (
        <div class="split-row" key={i}>
          <label>
            Recipient {i + 1}
            <input value={row.who} onInput={(e) => set(i, { who: e.currentTarget.value })} required />
          </label>
          <label>
            Basis points for recipient {i + 1}
            <input
              type="number"
              min={1}
              max={10000}
              step={1}
              value={row.bp}
              onInput={(e) => set(i, { bp: e.currentTarget.value })}
              required
            />
          </label>
          <button
            type="button"
            onClick={() => onChange(rows.filter((_, j) => j !== i))}
            aria-label={`Remove recipient ${i + 1}`}
          >
            Remove
          </button>
        </div>
      ))}
      <button type="button" onClick={() => onChange([...rows, { who: '', bp: '' }])}>
        Add recipient
      </button>
      <p class={rows.length && total !== 10000 ? 'invalid' : ''} aria-live="polite" id="split-total">
        Total: {total.toLocaleString()} bp{rows.length && total !== 10000 ? ' — must be exactly 10 000' : ''}
      </p>
    </fieldset>
  );
};

const Ownership = ({ game }: { game: Game }) => {
  const [me] = useAsync(async () => data(await api().GET('/user/me')), []);
  const [result, setResult] = useState<{ ok: boolean; error?: ShownError } | null>(null);
  const [busy, setBusy] = useState(false);
  const verify = async () => {
    setBusy(true);
    try {
      await api().POST('/games/claim-ownership/{gameId}', { params: { path: { gameId: game.id } } });
      setResult({ ok: true });
    } catch (error) {
      setResult({ ok: false, error: shownError(error) });
    } finally {
      setBusy(false);
    }
  };
  return (
    <section aria-labelledby="ownership-title">
      <h2 id="ownership-title">Domain ownership</h2>
      <p>
        {game.ownershipVerified
          ? 'The domain of this game is verified.'
          : 'The domain of this game is not verified yet.'}
      </p>
      <Show result={me} what="your API key">
        {(profile) => (
          <>
            <p>
              Paste this tag into the <code>&lt;head&gt;</code> of <code>{game.gameUrl}</code>, then verify:
            </p>
            <pre
              class="tag"
              id="meta-tag"
            >{`<meta name="arcadia-verification" content="${profile.apiKey ?? ''}">`}</pre>
            <button type="button" disabled={busy} onClick={() => void verify()}>
              {busy ? 'Verifying…' : 'Verify ownership'}
            </button>
          </>
        )}
      </Show>
      {result?.ok ? <p role="status">Verified: you are the owner of this game.</p> : null}
      {result?.error ? <ErrorBox error={result.error} /> : null}
    </section>
  );
};

const GameForm = ({ game }: { game?: Game }) => {
  const before = game ? fromGame(game) : undefined;
  const [form, setForm] = useState<FormState>(() => fromGame(game));
  const [file, setFile] = useState<File | null>(null);
  const [progress, setProgress] = useState<number | null>(null);
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<ShownError | null>(null);
  const [saved, setSaved] = useState(false);
  const set = (patch: Partial<FormState>) => {
    setSaved(false);
    setForm((f) => ({ ...f, ...patch }));
  };
  const splitInvalid = form.split.length > 0 && splitTotal(form.split) !== 10000;

  const submit = async (event: Event) => {
    event.preventDefault();
    if (splitInvalid) return;
    setBusy(true);
    setError(null);
    try {
      const body = bodyOf(form, before);
      if (file) {
        setProgress(0);
        body.imageKey = await uploadImage(file, setProgress);
      }
      if (game) {
        await api().POST('/games/update/{gameId}', {
          params: { path: { gameId: game.id } },
          body: body as never,
        });
        setSaved(true);
      } else {
        const created = data(await api().POST('/games', { body: body as never }));
        go(`games/${created.game.id}`, { created: '1' });
      }
    } catch (caught) {
      setError(shownError(caught));
    } finally {
      setBusy(false);
    }
  };

  return (
    <form onSubmit={(e) => void submit(e)} aria-describedby={error ? 'form-error' : undefined}>
      <label>
        Name
        <input
          name="name"
          required
          maxLength={100}
          value={form.name}
          onInput={(e) => set({ name: e.currentTarget.value })}
        />
      </label>
      <label>
        Description
        <textarea
          name="description"
          required
          maxLength={5000}
          rows={3}
          value={form.description}
          onInput={(e) => set({ description: e.currentTarget.value })}
        />
      </label>
      <label>
        Game URL
        <input
          name="gameUrl"
          type="url"
          required
          value={form.gameUrl}
          onInput={(e) => set({ gameUrl: e.currentTarget.value })}
        />
      </label>
      <label>
        Platform
        <select
          name="platform"
          value={form.platform}
          onChange={(e) => set({ platform: e.currentTarget.value as FormState['platform'] })}
        >
          {PLATFORMS.map((p) => (
            <option key={p} value={p}>
              {p}
            </option>
          ))}
        </select>
      </label>
      <label>
        {game ? 'Replace the image (optional)' : 'Image (jpeg, png, gif or webp, up to 5 MB)'}
        <input
          name="image"
          type="file"
          accept="image/jpeg,image/png,image/gif,image/webp"
          required={!game}
          onChange={(e) => setFile(e.currentTarget.files?.[0] ?? null)}
        />
      </label>
      {progress !== null ? <ProgressBar value={progress} label="Image upload" /> : null}
      {game ? (
        <label class="inline">
          <input
            type="checkbox"
            checked={form.hidden}
            onChange={(e) => set({ hidden: e.currentTarget.checked })}
          />
          Hidden from the public listing
        </label>
      ) : null}
      <fieldset>
        <legend>Play caps (empty: the platform default)</legend>
        {CAPS.map(([cap, label]) => (
          <label key={cap}>
            {label}
            <input
              name={cap}
              type="number"
              min={1}
              step={1}
              value={form.caps[cap]}
              onInput={(e) => set({ caps: { ...form.caps, [cap]: e.currentTarget.value } })}
            />
          </label>
        ))}
      </fieldset>
      <SplitEditor rows={form.split} onChange={(split) => set({ split })} />
      <button type="submit" disabled={busy || splitInvalid}>
        {busy ? 'Saving…' : game ? 'Save changes' : 'Register the game'}
      </button>
      {saved ? <p role="status">Saved.</p> : null}
      {error ? (
        <div id="form-error">
          <ErrorBox error={error} />
        </div>
      ) : null}
    </form>
  );
};

export const GameFormPage = ({ gameId }: { gameId: string | undefined }) => {
  const [game, reload] = useAsync(
    async () =>
      gameId ? data(await api().GET('/games/id/{id}', { params: { path: { id: gameId } } })) : undefined,
    [gameId],
  );
  return (
    <>
      <p>
        <a href={href('games')}>← All games</a>
      </p>
      <h1 tabIndex={-1}>{gameId ? 'Edit game' : 'Register a game'}</h1>
      <Show result={game} what="the game" retry={reload}>
        {(loaded) => (
          <>
            {loaded && new URLSearchParams(location.hash.split('?')[1]).get('created') ? (
              <p role="status">Registered.</p>
            ) : null}
            <GameForm key={loaded?.id ?? 'new'} {...(loaded ? { game: loaded } : {})} />
            {loaded ? (
              <>
                <nav aria-label="This game" class="game-nav">
                  <a href={href('overview', { game: loaded.id })}>Overview</a>
                  <a href={href('players', { game: loaded.id })}>Players</a>
                  <a href={href('integrity', { game: loaded.id })}>Integrity</a>
                  <a href={href('economy', { game: loaded.id })}>Economy</a>
                  <a href={href('coin', { game: loaded.id })}>Coin</a>
                  <a href={href('clients', { game: loaded.id })}>Game clients</a>
                </nav>
                <Ownership game={loaded} />
              </>
            ) : null}
          </>
        )}
      </Show>
    </>
  );
};
