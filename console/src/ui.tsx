// Shared pieces: loading, empty and error states, pagers, the game picker, progress bars.
import type { ComponentChildren } from 'preact';
import { useCallback, useEffect, useRef, useState } from 'preact/hooks';
import { api, data, type ShownError, shownError } from './api.js';

export type Async<T> =
  | { state: 'loading' }
  | { state: 'ok'; value: T }
  | { state: 'error'; error: ShownError };

/** Run `load` whenever `deps` change; `reload` runs it again. A stale answer never overwrites a newer one. */
export const useAsync = <T,>(load: () => Promise<T>, deps: unknown[]): [Async<T>, () => void] => {
  const [result, setResult] = useState<Async<T>>({ state: 'loading' });
  const [tick, setTick] = useState(0);
  const run = useRef(0);
  useEffect(() => {
    const mine = ++run.current;
    setResult({ state: 'loading' });
    load().then(
      (value) => mine === run.current && setResult({ state: 'ok', value }),
      (error: unknown) => mine === run.current && setResult({ state: 'error', error: shownError(error) }),
    );
  }, [...deps, tick]);
  return [result, useCallback(() => setTick((t) => t + 1), [])];
};

export const Loading = ({ what }: { what: string }) => (
  <p class="loading" role="status" aria-live="polite">
    Loading {what}…
  </p>
);

/** A table's box that scrolls sideways on a narrow screen; focusable, so keyboard users can scroll it too. */
export const TableWrap = ({ label, children }: { label: string; children: ComponentChildren }) => (
  // biome-ignore lint/a11y/noNoninteractiveTabindex: a scrollable region must be reachable by keyboard.
  <section class="table-wrap" aria-label={label} tabIndex={0}>
    {children}
  </section>
);

export const Empty = ({ children }: { children: ComponentChildren }) => <p class="empty">{children}</p>;

export const ErrorBox = ({ error, retry }: { error: ShownError; retry?: () => void }) => (
  <div class="error" role="alert">
    <p>
      <strong>{error.code ?? 'Error'}</strong>
      {error.status ? ` (HTTP ${error.status})` : ''}: <span class="error-message">{error.message}</span>
    </p>
    {error.details ? (
      <ul class="error-details">
        {error.details.map((d) => (
          <li key={`${d.path}:${d.message}`}>
            {d.path ? <code>{d.path}</code> : null}
            {d.path ? ': ' : ''}
            {d.message}
          </li>
        ))}
      </ul>
    ) : null}
    {error.requestId ? (
      <p class="request-id">
        Request id: <code>{error.requestId}</code>
      </p>
    ) : null}
    {retry ? (
      <button type="button" onClick={retry}>
        Retry
      </button>
    ) : null}
  </div>
);

/** The three states of a load: a spinner line, the error with a retry, or the content. */
export const Show = <T,>({
  result,
  what,
  retry,
  children,
}: {
  result: Async<T>;
  what: string;
  retry?: () => void;
  children: (value: T) => ComponentChildren;
}) => {
  if (result.state === 'loading') return <Loading what={what} />;
  if (result.state === 'error') return <ErrorBox error={result.error} {...(retry ? { retry } : {})} />;
  return <>{children(result.value)}</>;
};

/** Offset pagination (limit/offset/total). */
export const OffsetPager = ({
  offset,
  limit,
  total,
  shown,
  onChange,
  label,
}: {
  offset: number;
  limit: number;
  total?: number;
  shown: number;
  onChange: (offset: number) => void;
  label: string;
}) => (
  <nav class="pager" aria-label={`${label} pages`}>
    <button type="button" disabled={offset === 0} onClick={() => onChange(Math.max(0, offset - limit))}>
      Previous
    </button>
    <span>
      {shown === 0 ? 0 : offset + 1}–{offset + shown}
      {total === undefined ? '' : ` of ${total}`}
    </span>
    <button
      type="button"
      disabled={total === undefined ? shown < limit : offset + limit >= total}
      onClick={() => onChange(offset + limit)}
    >
      Next
    </button>
  </nav>
);

/** Cursor pagination: a stack of the cursors that led to each page. */
export const useCursorPages = (reset: unknown[]) => {
  const [cursors, setCursors] = useState<string[]>([]);
  useEffect(() => setCursors([]), reset);
  return {
    cursor: cursors.at(-1),
    page: cursors.length + 1,
    next: (cursor: string) => setCursors((c) => [...c, cursor]),
    previous: () => setCursors((c) => c.slice(0, -1)),
  };
};

/** Previous / Next over a cursor list's pages (`useCursorPages`), Next while the API gives a cursor. */
export const CursorPager = ({
  pages,
  nextCursor,
  label,
}: {
  pages: Pick<ReturnType<typeof useCursorPages>, 'page' | 'next' | 'previous'>;
  nextCursor: string | null;
  label: string;
}) => (
  <nav class="pager" aria-label={`${label} pages`}>
    <button type="button" disabled={pages.page === 1} onClick={pages.previous}>
      Previous
    </button>
    <span>Page {pages.page}</span>
    <button type="button" disabled={!nextCursor} onClick={() => nextCursor && pages.next(nextCursor)}>
      Next
    </button>
  </nav>
);

/** A table's header row: one column header per name. */
export const Head = ({ columns }: { columns: string[] }) => (
  <thead>
    <tr>
      {columns.map((name) => (
        <th scope="col" key={name}>
          {name}
        </th>
      ))}
    </tr>
  </thead>
);

/** Client-side pages of a list the API answers whole (a short, bounded list). */
export const usePage = <T,>(items: T[], size = 10) => {
  const [offset, setOffset] = useState(0);
  const safe = offset >= items.length ? 0 : offset;
  return {
    rows: items.slice(safe, safe + size),
    pager: (label: string) => (
      <OffsetPager
        offset={safe}
        limit={size}
        total={items.length}
        shown={Math.min(size, items.length - safe)}
        onChange={setOffset}
        label={label}
      />
    ),
  };
};

export const ProgressBar = ({ value, label }: { value: number; label: string }) => (
  <div class="progress">
    <progress max={100} value={value} aria-label={label} />
    <span aria-hidden="true">{Math.round(value)} %</span>
  </div>
);

export interface MyGame {
  id: string;
  name: string;
}

/** The signed-in user's games (all pages), for the pages that work on one game. */
export const useMyGames = () =>
  useAsync(async () => {
    const games: MyGame[] = [];
    for (let offset = 0; ; offset += 100) {
      const page = await api().GET('/games/me', { params: { query: { limit: 100, offset } } });
      const body = page.data;
      if (!body) break;
      games.push(...body.data.map((g) => ({ id: g.id, name: g.name })));
      if (offset + 100 >= body.meta.total) break;
    }
    return games;
  }, []);

export const GamePicker = ({
  gameId,
  onChange,
}: {
  gameId: string | undefined;
  onChange: (id: string) => void;
}) => {
  const [games, reload] = useMyGames();
  return (
    <Show result={games} what="your games" retry={reload}>
      {(list) =>
        list.length === 0 ? (
          <Empty>
            No games yet: <a href="#/games/new">register one</a>.
          </Empty>
        ) : (
          <label class="picker">
            Game
            <select value={gameId ?? ''} onChange={(e) => onChange(e.currentTarget.value)}>
              <option value="" disabled>
                Choose a game
              </option>
              {list.map((g) => (
                <option key={g.id} value={g.id}>
                  {g.name}
                </option>
              ))}
            </select>
          </label>
        )
      }
    </Show>
  );
};

export { data };
