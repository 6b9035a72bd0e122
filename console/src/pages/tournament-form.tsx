// A tournament's definition as a form: title, schedule (a one-off window, or a cron expression / fixed period with
// a duration and an end), scoring and entry rules, retention, and the prize table with its live basis-point total.
// The form refuses what the API would refuse for sure (the same rules, the same field paths), and shows the API's
// own answer, with its field paths, whenever it answers an error.

import type { components, paths } from '@arcadia/sdk';
import { useState } from 'preact/hooks';
import { api, data, type ShownError, shownError } from '../api.js';
import { ErrorBox } from '../ui.js';

export type Tournament = components['schemas']['Tournament'];
type Body = paths['/tournaments/{gameId}']['post']['requestBody']['content']['application/json'];

const MAX_BPS = 10_000;
const MAX_RANK = 100;
const MAX_POOL_BPS = 5_000;
const MAX_BEST_ATTEMPTS = 50;

interface PrizeRow {
  fromRank: string;
  toRank: string;
  bps: string;
}

interface FormState {
  title: string;
  description: string;
  kind: 'once' | 'recurring';
  startsAt: string;
  endsAt: string;
  repeat: 'cron' | 'every';
  cron: string;
  everySeconds: string;
  durationSeconds: string;
  until: string;
  scoring: 'sum' | 'best';
  joinRequired: boolean;
  maxEntrants: string;
  maxAttempts: string;
  retentionDays: string;
  prizes: PrizeRow[];
  /** Basis points of the game's rewards pool each period's prizes take (empty: no prizes). */
  poolBps: string;
  payoutDelaySeconds: string;
}

interface Problem {
  path: string;
  message: string;
}

const pad = (n: number) => String(n).padStart(2, '0');

/** An instant as a `datetime-local` value in the user's zone, to the second. */
export const localInput = (iso: string | null | undefined) => {
  if (!iso) return '';
  const d = new Date(iso);
  if (Number.isNaN(d.getTime())) return '';
  return `${d.getFullYear()}-${pad(d.getMonth() + 1)}-${pad(d.getDate())}T${pad(d.getHours())}:${pad(
    d.getMinutes(),
  )}:${pad(d.getSeconds())}`;
};

/** A `datetime-local` value (the user's zone) as the API's instant: UTC, whole seconds. */
export const utcInstant = (local: string) => {
  const at = new Date(local);
  return Number.isNaN(at.getTime()) ? '' : at.toISOString().replace(/\.\d{3}Z$/, 'Z');
};

const text = (n: number | null | undefined) => (n === null || n === undefined ? '' : String(n));

const formOf = (t?: Tournament): FormState => ({
  title: t?.title ?? '',
  description: t?.description ?? '',
  kind: t?.recurrence ? 'recurring' : 'once',
  startsAt: localInput(t?.startsAt),
  endsAt: localInput(t?.endsAt),
  repeat: t?.recurrence && 'everySeconds' in t.recurrence ? 'every' : 'cron',
  cron: t?.recurrence && 'cron' in t.recurrence ? t.recurrence.cron : '',
  everySeconds: t?.recurrence && 'everySeconds' in t.recurrence ? String(t.recurrence.everySeconds) : '',
  durationSeconds: text(t?.durationSeconds),
  until: localInput(t?.until),
  scoring: t?.scoring ?? 'sum',
  joinRequired: t?.joinRequired ?? false,
  maxEntrants: text(t?.maxEntrants),
  maxAttempts: text(t?.maxAttempts),
  retentionDays: text(t?.retentionDays ?? 90),
  prizes: (t?.prizes ?? []).map((p) => ({
    fromRank: String(p.fromRank),
    toRank: String(p.toRank),
    bps: String(p.bps),
  })),
  poolBps: text(t?.prizePool?.rewardsPoolBps),
  payoutDelaySeconds: text(t?.payoutDelaySeconds ?? 3_600),
});

const optionalNumber = (value: string) => (value.trim() ? Number(value) : null);

const scheduleOf = (form: FormState): Partial<Body> => {
  if (form.kind === 'once') return { endsAt: utcInstant(form.endsAt) };
  return {
    recurrence:
      form.repeat === 'cron' ? { cron: form.cron.trim() } : { everySeconds: Number(form.everySeconds) },
    durationSeconds: Number(form.durationSeconds),
    until: form.until ? utcInstant(form.until) : null,
  };
};

/** The whole definition (a PUT replaces it): the metadata the console does not edit is sent back as it was. */
const bodyOf = (form: FormState, metadata: Tournament['metadata'] | undefined): Body => ({
  title: form.title.trim(),
  description: form.description.trim() || null,
  startsAt: utcInstant(form.startsAt),
  ...scheduleOf(form),
  scoring: form.scoring,
  joinRequired: form.joinRequired,
  maxEntrants: optionalNumber(form.maxEntrants),
  maxAttempts: optionalNumber(form.maxAttempts),
  retentionDays: Number(form.retentionDays),
  prizes: form.prizes.map((p) => ({
    fromRank: Number(p.fromRank),
    toRank: Number(p.toRank),
    bps: Number(p.bps),
  })),
  prizePool: form.poolBps.trim() ? { rewardsPoolBps: Number(form.poolBps) } : null,
  payoutDelaySeconds: Number(form.payoutDelaySeconds),
  ...(metadata ? { metadata } : {}),
});

/** Ranks a row pays (0 while it is incomplete or reversed). */
const ranksOf = (p: PrizeRow) => Math.max(0, Number(p.toRank) - Number(p.fromRank) + 1) || 0;
const paidBy = (p: PrizeRow) => ranksOf(p) * (Number(p.bps) || 0);
export const prizeTotal = (rows: PrizeRow[]) => rows.reduce((sum, p) => sum + paidBy(p), 0);

/** The API's prize-table rules, with its field paths: ranges in order, none overlapping, at most 10,000 bps. */
const prizeProblems = (rows: PrizeRow[]): Problem[] => {
  const problems: Problem[] = [];
  const filled = rows
    .map((p, i) => ({ from: Number(p.fromRank), to: Number(p.toRank), i }))
    .filter((p) => p.from > 0 && p.to > 0)
    .sort((a, b) => a.from - b.from);
  filled.forEach((p, k) => {
    if (p.to < p.from) problems.push({ path: `prizes.${p.i}.toRank`, message: 'must be at least fromRank' });
    const previous = filled[k - 1];
    if (previous && p.from <= previous.to)
      problems.push({ path: `prizes.${p.i}.fromRank`, message: `overlaps prizes.${previous.i}` });
  });
  const total = prizeTotal(rows);
  if (total > MAX_BPS)
    problems.push({ path: 'prizes', message: `pays ${total} bps in all: at most 10,000 (the whole pool)` });
  return problems;
};

/** Seconds from one `datetime-local` value to another (NaN while either is unset). */
const secondsBetween = (from: string, to: string) =>
  (Date.parse(utcInstant(to)) - Date.parse(utcInstant(from))) / 1000;

const scheduleProblems = (form: FormState): Problem[] => {
  if (form.kind === 'once')
    return secondsBetween(form.startsAt, form.endsAt) < 60
      ? [{ path: 'endsAt', message: 'must be at least 60 s after startsAt' }]
      : [];
  if (form.until && secondsBetween(form.startsAt, form.until) <= 0)
    return [{ path: 'until', message: 'must be after startsAt' }];
  if (form.repeat === 'every' && Number(form.durationSeconds) > Number(form.everySeconds))
    return [
      { path: 'durationSeconds', message: 'must be at most recurrence.everySeconds (periods never overlap)' },
    ];
  return [];
};

/** A prize table and its funding come together (the API's rule). */
const fundingProblems = (form: FormState): Problem[] => {
  if (form.prizes.length > 0 && !form.poolBps.trim())
    return [{ path: 'prizePool', message: 'a prize table needs a prizePool that funds it' }];
  if (form.prizes.length === 0 && form.poolBps.trim())
    return [{ path: 'prizes', message: 'a prizePool needs a prize table to pay it' }];
  return [];
};

const problemsOf = (form: FormState): Problem[] => {
  const problems = [...scheduleProblems(form), ...prizeProblems(form.prizes), ...fundingProblems(form)];
  const attempts = optionalNumber(form.maxAttempts);
  if (form.scoring === 'best' && (attempts === null || attempts > MAX_BEST_ATTEMPTS))
    problems.push({
      path: 'maxAttempts',
      message: `a best-session tournament needs maxAttempts of at most ${MAX_BEST_ATTEMPTS}`,
    });
  return problems;
};

/** Seconds in words: `604800` → "7 days", `5400` → "1 hour 30 minutes". */
export const durationWords = (seconds: number) => {
  const units: Array<[number, string]> = [
    [86_400, 'day'],
    [3_600, 'hour'],
    [60, 'minute'],
    [1, 'second'],
  ];
  const parts: string[] = [];
  let left = Math.round(seconds);
  for (const [size, unit] of units) {
    const n = Math.floor(left / size);
    left -= n * size;
    if (n > 0 && parts.length < 2) parts.push(`${n.toLocaleString()} ${unit}${n === 1 ? '' : 's'}`);
  }
  return parts.join(' ') || '0 seconds';
};

const SecondsHint = ({ value }: { value: string }) =>
  Number(value) > 0 ? <p class="hint field-hint">= {durationWords(Number(value))}</p> : null;

const UtcHint = ({ value }: { value: string }) =>
  value && utcInstant(value) ? (
    <p class="hint field-hint">= {utcInstant(value).slice(0, 19).replace('T', ' ')} UTC</p>
  ) : null;

const PrizeEditor = ({ rows, onChange }: { rows: PrizeRow[]; onChange: (rows: PrizeRow[]) => void }) => {
  const total = prizeTotal(rows);
  const set = (i: number, patch: Partial<PrizeRow>) =>
    onChange(rows.map((r, j) => (j === i ? { ...r, ...patch } : r)));
  const field = (i: number, key: keyof PrizeRow, label: string, max: number) => (
    <label>
      {label} (prize {i + 1})
      <input
        type="number"
        min={1}
        max={max}
        step={1}
        required
        value={rows[i]?.[key]}
        onInput={(e) => set(i, { [key]: e.currentTarget.value })}
      />
    </label>
  );
  return (
    <fieldset>
      <legend>Prize table</legend>
      <p class="hint">
        Each row pays every rank from its first to its last rank the same share of the period's prize pool, in
        basis points (10,000 bps = the whole pool). Ranges must not overlap.
      </p>
      {rows.map((row, i) => (
        <div class="prize-row" key={i}>
          {field(i, 'fromRank', 'From rank', MAX_RANK)}
          {field(i, 'toRank', 'To rank', MAX_RANK)}
          {field(i, 'bps', 'Basis points per rank', MAX_BPS)}
          <span class="prize-paid">
            {ranksOf(row)} × {(Number(row.bps) || 0).toLocaleString('en-US')} ={' '}
            {paidBy(row).toLocaleString('en-US')} bps
          </span>
          <button
            type="button"
            onClick={() => onChange(rows.filter((_, j) => j !== i))}
            aria-label={`Remove prize ${i + 1}`}
          >
            Remove
          </button>
        </div>
      ))}
      <button
        type="button"
        onClick={() => {
          const last = Number(rows.at(-1)?.toRank) || 0;
          onChange([...rows, { fromRank: String(last + 1), toRank: String(last + 1), bps: '' }]);
        }}
      >
        Add prize range
      </button>
      <p id="prize-total" class={total > MAX_BPS ? 'invalid' : ''} aria-live="polite">
        Total: {total.toLocaleString('en-US')} of 10,000 bps
        {total > MAX_BPS
          ? ' — over the whole pool'
          : ` (${((total / MAX_BPS) * 100).toFixed(2)} % of the pool)`}
      </p>
    </fieldset>
  );
};

const ScheduleFields = ({ form, set }: { form: FormState; set: (patch: Partial<FormState>) => void }) => (
  <fieldset>
    <legend>Schedule (your time zone; sent in UTC)</legend>
    <label class="inline">
      <input type="radio" name="kind" checked={form.kind === 'once'} onChange={() => set({ kind: 'once' })} />{' '}
      Once (a single window)
    </label>
    <label class="inline">
      <input
        type="radio"
        name="kind"
        checked={form.kind === 'recurring'}
        onChange={() => set({ kind: 'recurring' })}
      />{' '}
      Recurring (a period again and again)
    </label>
    <label>
      Starts at
      <input
        type="datetime-local"
        step={1}
        required
        value={form.startsAt}
        onInput={(e) => set({ startsAt: e.currentTarget.value })}
      />
    </label>
    <UtcHint value={form.startsAt} />
    {form.kind === 'once' ? (
      <>
        <label>
          Ends at
          <input
            type="datetime-local"
            step={1}
            required
            value={form.endsAt}
            onInput={(e) => set({ endsAt: e.currentTarget.value })}
          />
        </label>
        <UtcHint value={form.endsAt} />
      </>
    ) : (
      <RecurrenceFields form={form} set={set} />
    )}
  </fieldset>
);

const RecurrenceFields = ({ form, set }: { form: FormState; set: (patch: Partial<FormState>) => void }) => (
  <>
    <label>
      Repeats
      <select
        value={form.repeat}
        onChange={(e) => set({ repeat: e.currentTarget.value === 'every' ? 'every' : 'cron' })}
      >
        <option value="cron">On a cron schedule (UTC)</option>
        <option value="every">Every N seconds from the start</option>
      </select>
    </label>
    {form.repeat === 'cron' ? (
      <label>
        Cron expression (minute hour day month weekday, UTC)
        <input
          required
          minLength={9}
          maxLength={100}
          value={form.cron}
          placeholder="0 0 * * 1"
          onInput={(e) => set({ cron: e.currentTarget.value })}
        />
      </label>
    ) : (
      <>
        <label>
          Every (seconds)
          <input
            type="number"
            required
            min={60}
            step={1}
            value={form.everySeconds}
            onInput={(e) => set({ everySeconds: e.currentTarget.value })}
          />
        </label>
        <SecondsHint value={form.everySeconds} />
      </>
    )}
    <label>
      Period length (seconds)
      <input
        type="number"
        required
        min={60}
        max={31_622_400}
        step={1}
        value={form.durationSeconds}
        onInput={(e) => set({ durationSeconds: e.currentTarget.value })}
      />
    </label>
    <SecondsHint value={form.durationSeconds} />
    <label>
      Until (optional: no period starts at or after it)
      <input
        type="datetime-local"
        step={1}
        value={form.until}
        onInput={(e) => set({ until: e.currentTarget.value })}
      />
    </label>
    <UtcHint value={form.until} />
  </>
);

const RuleFields = ({ form, set }: { form: FormState; set: (patch: Partial<FormState>) => void }) => (
  <fieldset>
    <legend>Scoring and entry</legend>
    <label>
      Scoring
      <select
        value={form.scoring}
        onChange={(e) => set({ scoring: e.currentTarget.value === 'best' ? 'best' : 'sum' })}
      >
        <option value="sum">Sum: the points a player earns during the period</option>
        <option value="best">Best: the points of the player's best session</option>
      </select>
    </label>
    <label class="inline">
      <input
        type="checkbox"
        checked={form.joinRequired}
        onChange={(e) => set({ joinRequired: e.currentTarget.checked })}
      />{' '}
      Players must join first (else their first points enter them)
    </label>
    <label>
      Max entrants per period (optional)
      <input
        type="number"
        min={1}
        max={10_000_000}
        step={1}
        value={form.maxEntrants}
        onInput={(e) => set({ maxEntrants: e.currentTarget.value })}
      />
    </label>
    <label>
      Max attempts per player and period
      {form.scoring === 'best' ? ` (at most ${MAX_BEST_ATTEMPTS})` : ' (optional)'}
      <input
        type="number"
        min={1}
        max={form.scoring === 'best' ? MAX_BEST_ATTEMPTS : 1_000}
        step={1}
        required={form.scoring === 'best'}
        value={form.maxAttempts}
        onInput={(e) => set({ maxAttempts: e.currentTarget.value })}
      />
    </label>
    <label>
      Retention of ended boards (days)
      <input
        type="number"
        min={30}
        max={3_650}
        step={1}
        required
        value={form.retentionDays}
        onInput={(e) => set({ retentionDays: e.currentTarget.value })}
      />
    </label>
  </fieldset>
);

/** How each period's prizes are funded and when they are paid. */
const FundingFields = ({ form, set }: { form: FormState; set: (patch: Partial<FormState>) => void }) => (
  <fieldset>
    <legend>Prize pool</legend>
    <p class="hint">
      When a period closes, its prizes take this share of the game's rewards pool, plus what you deposited for
      the period, and are paid on chain. 0: your deposits alone fund them.
    </p>
    <label>
      Share of the rewards pool per period (bps, at most {MAX_POOL_BPS.toLocaleString('en-US')})
      <input
        type="number"
        min={0}
        max={MAX_POOL_BPS}
        step={1}
        required={form.prizes.length > 0}
        value={form.poolBps}
        onInput={(e) => set({ poolBps: e.currentTarget.value })}
      />
    </label>
    <label>
      Payout delay after a period ends (seconds)
      <input
        type="number"
        min={60}
        max={604_800}
        step={1}
        required
        value={form.payoutDelaySeconds}
        onInput={(e) => set({ payoutDelaySeconds: e.currentTarget.value })}
      />
    </label>
  </fieldset>
);

export const TournamentForm = ({
  gameId,
  editing,
  onSaved,
  onClose,
}: {
  gameId: string;
  /** The tournament to replace (PUT), or none to schedule a new one. */
  editing?: Tournament;
  onSaved: (saved: Tournament) => void;
  onClose?: () => void;
}) => {
  const [form, setForm] = useState(() => formOf(editing));
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<ShownError | null>(null);
  const set = (patch: Partial<FormState>) => setForm((f) => ({ ...f, ...patch }));
  const problems = problemsOf(form);
  const titleId = editing ? 'edit-title' : 'create-title';
  const submit = async (event: Event) => {
    event.preventDefault();
    if (problems.length > 0) return;
    setBusy(true);
    setError(null);
    try {
      const body = bodyOf(form, editing?.metadata);
      const saved = editing
        ? data(
            await api().PUT('/tournaments/{gameId}/{tournamentId}', {
              params: { path: { gameId, tournamentId: editing.tournamentId } },
              body,
            }),
          )
        : data(await api().POST('/tournaments/{gameId}', { params: { path: { gameId } }, body }));
      onSaved(saved);
    } catch (caught) {
      setError(shownError(caught));
    } finally {
      setBusy(false);
    }
  };
  return (
    <form onSubmit={(e) => void submit(e)} aria-labelledby={titleId} class="tournament-form">
      <h2 id={titleId}>{editing ? `Edit ${editing.title}` : 'Schedule a tournament'}</h2>
      {editing ? <p class="hint">A tournament changes only before its first period starts.</p> : null}
      <label>
        Title
        <input
          required
          maxLength={100}
          value={form.title}
          onInput={(e) => set({ title: e.currentTarget.value })}
        />
      </label>
      <label>
        Description (optional)
        <textarea
          maxLength={1000}
          rows={2}
          value={form.description}
          onInput={(e) => set({ description: e.currentTarget.value })}
        />
      </label>
      <ScheduleFields form={form} set={set} />
      <RuleFields form={form} set={set} />
      <PrizeEditor rows={form.prizes} onChange={(prizes) => set({ prizes })} />
      <FundingFields form={form} set={set} />
      {problems.length > 0 ? (
        <div class="invalid" id="form-problems" aria-live="polite">
          <p>Fix these first:</p>
          <ul>
            {problems.map((p) => (
              <li key={`${p.path}:${p.message}`}>
                <code>{p.path}</code>: {p.message}
              </li>
            ))}
          </ul>
        </div>
      ) : null}
      <div class="actions">
        <button type="submit" disabled={busy || problems.length > 0}>
          {editing ? 'Save changes' : 'Schedule the tournament'}
        </button>
        {onClose ? (
          <button type="button" onClick={onClose}>
            Close without saving
          </button>
        ) : null}
      </div>
      {error ? <ErrorBox error={error} /> : null}
    </form>
  );
};
