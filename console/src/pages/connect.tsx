// The connect page (#/connect?client_id=…&redirect_uri=…): where a player lets a game act for them. The API's
// authorization endpoint sends the browser here with the request's parameters; the page shows what the request
// asks (GET /oauth/requests), signs the player in with the console's email sign-in, and answers the game with a
// code (POST /oauth/consent) or a refusal. It goes back to the redirect URI only once the API has said the URI is
// registered for the client: a request it refuses is shown here and sends the browser nowhere (no open redirect).
// A focused page: no console navigation; one column on a phone.
import type { paths } from '@arcadia/sdk';
import { useState } from 'preact/hooks';
import { api, consoleConfig, currentToken, data, type ShownError, setToken, shownError } from '../api.js';
import type { Route } from '../router.js';
import { ErrorBox, Loading, useAsync } from '../ui.js';
import { SignInForm } from './sign-in.js';
import './connect.css';

type ConnectRequest =
  paths['/oauth/requests']['get']['responses'][200]['content']['application/json']['data'];

const LAMPORTS_PER_SOL = 1_000_000_000n;
/** The API's bound on a daily spending limit (1,000 SOL). */
const MAX_LIMIT_LAMPORTS = 1_000n * LAMPORTS_PER_SOL;

/**
 * The daily limit the player typed in SOL, as lamports (exact decimal arithmetic, no float): null when empty (no
 * spending), undefined when it is not an amount the API takes.
 */
export const lamportsOfSol = (text: string): string | null | undefined => {
  const typed = text.trim().replace(',', '.');
  if (typed === '') return null;
  const match = /^(\d*)(?:\.(\d{0,9}))?$/.exec(typed);
  if (!match || typed === '.') return undefined;
  const lamports = BigInt(match[1] || '0') * LAMPORTS_PER_SOL + BigInt((match[2] ?? '').padEnd(9, '0'));
  return lamports > MAX_LIMIT_LAMPORTS ? undefined : lamports.toString();
};

interface Params {
  clientId: string;
  redirectUri: string;
  scope: string;
  state: string | undefined;
  codeChallenge: string;
  popup: boolean;
}

/** The request's parameters, or why the page can't go on with them (checked before anything is asked). */
const paramsOf = (query: URLSearchParams): Params | { problem: string } => {
  const get = (name: string) => query.get(name) ?? undefined;
  const missing = ['client_id', 'redirect_uri', 'scope', 'code_challenge'].filter((name) => !get(name));
  if (missing.length > 0) return { problem: `The request lacks ${missing.join(', ')}` };
  if (get('response_type') !== undefined && get('response_type') !== 'code')
    return { problem: 'Only response_type=code is supported' };
  if (get('code_challenge_method') !== 'S256')
    return { problem: 'The request must use PKCE with code_challenge_method=S256' };
  return {
    clientId: get('client_id') ?? '',
    redirectUri: get('redirect_uri') ?? '',
    scope: get('scope') ?? '',
    state: get('state'),
    codeChallenge: get('code_challenge') ?? '',
    popup: get('response_mode') === 'web_message',
  };
};

const hostOf = (url: string) => {
  try {
    return new URL(url).host;
  } catch {
    return url;
  }
};

type Answer = { code: string; state: string | null } | { error: 'access_denied'; state: string | null };

/**
 * Sends the answer to the game: to the opener at the client's registered origins only (the popup variant, when
 * the page has an opener), else by going to the redirect URI.
 */
const deliver = (
  params: Params,
  answer: Answer,
  origins: string[],
  redirectTo: string,
): 'posted' | 'left' => {
  const opener = window.opener as Window | null;
  if (params.popup && opener) {
    for (const origin of origins)
      opener.postMessage({ type: 'authorization_response', response: answer }, origin);
    window.close();
    return 'posted';
  }
  location.assign(redirectTo);
  return 'left';
};

const deniedUrl = (redirectUri: string, state: string | undefined) => {
  const url = new URL(redirectUri);
  url.searchParams.set('error', 'access_denied');
  if (state !== undefined) url.searchParams.set('state', state);
  return url.href;
};

const GameCard = ({ request }: { request: ConnectRequest }) => {
  const host = hostOf(request.game.gameUrl);
  return (
    <section class="connect-game" aria-label="The game">
      {request.game.imageUrl ? <img src={request.game.imageUrl} alt="" width={64} height={64} /> : null}
      <div>
        <p class="connect-game-name">{request.game.name}</p>
        <p class="connect-host">{host}</p>
        {request.game.domainVerified ? (
          <p class="verified">✓ Domain verified: its studio proved it runs {host}</p>
        ) : (
          <p class="unverified">Domain not verified: no one has proved that this game runs at {host}</p>
        )}
      </div>
    </section>
  );
};

const SpendingLimit = ({ value, onInput }: { value: string; onInput: (value: string) => void }) => {
  const lamports = lamportsOfSol(value);
  return (
    <fieldset class="limit">
      <legend>Daily spending limit</legend>
      <label>
        SOL a day the game may spend on multipliers for you
        <input
          name="limit"
          type="text"
          inputMode="decimal"
          autoComplete="off"
          placeholder="None"
          value={value}
          aria-describedby="limit-hint"
          aria-invalid={lamports === undefined ? 'true' : undefined}
          onInput={(e) => onInput(e.currentTarget.value)}
        />
      </label>
      <p id="limit-hint" class={lamports === undefined ? 'invalid' : 'hint'}>
        {lamports === undefined
          ? 'An amount in SOL, at most 1,000, with up to 9 decimals.'
          : lamports === null
            ? 'None: the game can buy nothing with your SOL until you set a limit.'
            : `Up to ${value.trim()} SOL (${BigInt(lamports).toLocaleString()} lamports) each UTC day.`}
      </p>
    </fieldset>
  );
};

const Decide = ({ params, request }: { params: Params; request: ConnectRequest }) => {
  const [signedIn, setSignedIn] = useState(() => currentToken() !== null);
  const [email, setEmail] = useState<string | null>(null);
  const [limit, setLimit] = useState('');
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<ShownError | null>(null);
  const [outcome, setOutcome] = useState<string | null>(null);
  const buys = request.scopes.some((s) => s.scope === 'multipliers:buy');
  const lamports = buys ? lamportsOfSol(limit) : null;

  const signOut = () => {
    setToken(null);
    setSignedIn(false);
    setEmail(null);
    if (Object.keys(sessionStorage).some((key) => key.startsWith('privy.')))
      void import('../privy.js')
        .then(({ signOut }) => signOut(consoleConfig().identityProvider))
        .catch(() => {});
  };

  const approve = async () => {
    if (lamports === undefined) return;
    setBusy(true);
    setError(null);
    try {
      const answer = data(
        await api().POST('/oauth/consent', {
          body: {
            clientId: params.clientId,
            redirectUri: request.redirectUri,
            scope: params.scope,
            ...(params.state !== undefined ? { state: params.state } : {}),
            codeChallenge: params.codeChallenge,
            codeChallengeMethod: 'S256',
            spendingLimitLamportsPerDay: lamports,
          },
        }),
      );
      const sent = deliver(
        params,
        { code: answer.code, state: answer.state },
        answer.origins,
        answer.redirectTo,
      );
      setOutcome(
        sent === 'posted'
          ? `${request.game.name} is connected. You can close this window.`
          : `${request.game.name} is connected. Returning you to the game…`,
      );
    } catch (caught) {
      const shown = shownError(caught);
      // A sign-in that no longer holds (an expired session in a reused tab): sign in again on the page.
      if (shown.status === 401) signOut();
      setError(shown);
    } finally {
      setBusy(false);
    }
  };

  const deny = () => {
    const sent = deliver(
      params,
      { error: 'access_denied', state: params.state ?? null },
      request.client.origins,
      deniedUrl(request.redirectUri, params.state),
    );
    setOutcome(
      sent === 'posted'
        ? 'You said no: nothing was shared. You can close this window.'
        : 'You said no: nothing was shared. Returning you to the game…',
    );
  };

  if (outcome)
    return (
      <p role="status" class="notice">
        {outcome}
      </p>
    );
  return (
    <>
      {buys ? <SpendingLimit value={limit} onInput={setLimit} /> : null}
      {signedIn ? (
        <section aria-labelledby="answer-title">
          <h2 id="answer-title">Your answer</h2>
          <p>
            Signed in
            {email ? (
              <>
                {' '}
                as <strong>{email}</strong>
              </>
            ) : null}
            .{' '}
            <button type="button" class="link inline-link" onClick={signOut}>
              Use another account
            </button>
          </p>
          <div class="connect-actions">
            <button type="button" disabled={busy || lamports === undefined} onClick={() => void approve()}>
              {busy ? 'Connecting…' : 'Approve'}
            </button>
            <button type="button" class="secondary" disabled={busy} onClick={deny}>
              Deny
            </button>
          </div>
        </section>
      ) : (
        <section aria-labelledby="sign-in-title">
          <h2 id="sign-in-title">Sign in to Arcadia to answer</h2>
          <SignInForm
            onSignedIn={(address) => {
              setEmail(address);
              setSignedIn(true);
            }}
          />
          <div class="connect-actions">
            <button type="button" class="secondary" onClick={deny}>
              Deny
            </button>
          </div>
        </section>
      )}
      {error ? <ErrorBox error={error} /> : null}
    </>
  );
};

const Request = ({ params }: { params: Params }) => {
  const [request, retry] = useAsync(
    async () =>
      data(
        await api().GET('/oauth/requests', {
          params: {
            query: { clientId: params.clientId, redirectUri: params.redirectUri, scope: params.scope },
          },
        }),
      ),
    [params.clientId, params.redirectUri, params.scope],
  );
  if (request.state === 'loading') return <Loading what="the request" />;
  if (request.state === 'error')
    return (
      <>
        <Refused />
        <ErrorBox error={request.error} {...(request.error.status === 400 ? {} : { retry })} />
      </>
    );
  const asked = request.value;
  return (
    <>
      <GameCard request={asked} />
      <p>
        Asked through its client <strong>{asked.client.name}</strong>
        {params.popup ? '' : `; you return to ${hostOf(asked.redirectUri)} after you answer`}.
      </p>
      <h2 id="scopes-title">It asks to</h2>
      <ul class="scopes" aria-labelledby="scopes-title">
        {asked.scopes.map((s) => (
          <li key={s.scope}>{s.description}</li>
        ))}
      </ul>
      <p class="hint">
        The game gets a key for this game only, never your Arcadia account. You can disconnect it at any time
        in the console's Connected games.
      </p>
      <Decide params={params} request={asked} />
    </>
  );
};

const Refused = () => (
  <p>
    This connect request can't go on. Nothing was shared with the game: go back to it and let its studio know.
  </p>
);

export const ConnectPage = ({ route }: { route: Route }) => {
  const params = paramsOf(route.query);
  return (
    <main id="main" class="connect">
      <p class="connect-brand">Arcadia</p>
      <h1 tabIndex={-1}>Connect a game to your Arcadia account</h1>
      {'problem' in params ? (
        <>
          <Refused />
          <ErrorBox error={{ message: params.problem, code: 'INVALID_REQUEST' }} />
        </>
      ) : (
        <Request params={params} />
      )}
    </main>
  );
};
