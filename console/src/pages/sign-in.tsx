// Sign-in with the identity provider: locally the stack's own provider (a name is enough), elsewhere a token
// from the provider pasted in. The first call with the token creates the user and its API key.
import { useState } from 'preact/hooks';
import { api, consoleConfig, data, type ShownError, setToken, shownError } from '../api.js';
import { SecretOnce } from '../secret.js';
import { ErrorBox } from '../ui.js';

const localToken = async (url: string, name: string): Promise<string> => {
  const response = await fetch(url, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ name }),
  });
  const body = (await response.json().catch(() => ({}))) as { token?: string; error?: { message?: string } };
  if (!response.ok || !body.token)
    throw new Error(body.error?.message ?? `Sign-in answered HTTP ${response.status}`);
  return body.token;
};

export const SignInPage = ({ onSignedIn }: { onSignedIn: () => void }) => {
  const local = consoleConfig().localSignInUrl;
  const [value, setValue] = useState('');
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<ShownError | null>(null);
  const [firstKey, setFirstKey] = useState<{ apiKey: string; secretKey: string } | null>(null);

  const submit = async (event: Event) => {
    event.preventDefault();
    setBusy(true);
    setError(null);
    try {
      setToken(local ? await localToken(new URL(local, document.baseURI).href, value.trim()) : value.trim());
      const me = data(await api().GET('/user/me'));
      if (me.secretKey && me.apiKey) setFirstKey({ apiKey: me.apiKey, secretKey: me.secretKey });
      else onSignedIn();
    } catch (caught) {
      setToken(null);
      setError(shownError(caught));
    } finally {
      setBusy(false);
    }
  };

  if (firstKey)
    return (
      <main id="main" class="narrow">
        <SecretOnce {...firstKey} onDone={onSignedIn} />
      </main>
    );
  return (
    <main id="main" class="narrow">
      <h1>Sign in to the Arcadia console</h1>
      <form onSubmit={(e) => void submit(e)}>
        {local ? (
          <label>
            User name (local identity provider)
            <input
              name="name"
              required
              pattern="[a-z0-9_\-]{1,64}"
              autoComplete="username"
              value={value}
              onInput={(e) => setValue(e.currentTarget.value)}
            />
          </label>
        ) : (
          <label>
            Identity-provider token
            <textarea
              name="token"
              required
              rows={4}
              value={value}
              onInput={(e) => setValue(e.currentTarget.value)}
            />
          </label>
        )}
        <button type="submit" disabled={busy}>
          {busy ? 'Signing in…' : 'Sign in'}
        </button>
      </form>
      {error ? <ErrorBox error={error} /> : null}
    </main>
  );
};
