// Sign-in with the identity provider through its official client: an email, then the one-time code it sends (the
// local provider's inbox shows it under `npm run dev`). The first call with the provider's token creates the user
// and its API key.
import { useRef, useState } from 'preact/hooks';
import { api, consoleConfig, data, type ShownError, setToken, shownError } from '../api.js';
import { SecretOnce } from '../secret.js';
import { ErrorBox } from '../ui.js';

/** The code the local provider "sent", read from its inbox through the console server (local only). */
const localCode = async (url: string, email: string): Promise<string | null> => {
  const response = await fetch(`${new URL(url, document.baseURI).href}?email=${encodeURIComponent(email)}`);
  if (!response.ok) return null;
  const body = (await response.json().catch(() => ({}))) as { code?: unknown };
  return typeof body.code === 'string' ? body.code : null;
};

/** The provider's refusal (`{error, code, status}` on its client's errors) as an error box shows it. */
const providerRefusal = (error: unknown): ShownError | undefined => {
  if (!error || typeof error !== 'object' || !('error' in error) || typeof error.error !== 'string')
    return undefined;
  const code = 'code' in error && typeof error.code === 'string' ? error.code : undefined;
  const status = 'status' in error && typeof error.status === 'number' ? error.status : undefined;
  return { message: error.error, ...(code ? { code } : {}), ...(status ? { status } : {}) };
};

/**
 * The two-step email sign-in (an address, then the one-time code), storing the provider's token for the tab.
 * `check` runs with the token before it counts (the console's page reads `/user/me` there); a failure drops it.
 */
export const SignInForm = ({
  onSignedIn,
  check,
}: {
  onSignedIn: (email: string) => void;
  check?: () => Promise<void>;
}) => {
  const { identityProvider: provider, localInboxUrl } = consoleConfig();
  const [email, setEmail] = useState('');
  const [code, setCode] = useState('');
  const [sentTo, setSentTo] = useState<string | null>(null);
  const [inbox, setInbox] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<ShownError | null>(null);

  const attempt = async (step: () => Promise<void>) => {
    setBusy(true);
    setError(null);
    try {
      await step();
    } catch (caught) {
      setError(providerRefusal(caught) ?? shownError(caught));
    } finally {
      setBusy(false);
    }
  };

  const send = (event: Event) => {
    event.preventDefault();
    void attempt(async () => {
      const address = email.trim();
      const { sendCode } = await import('../privy.js');
      await sendCode(provider, address);
      setSentTo(address);
      setCode('');
      setInbox(localInboxUrl ? await localCode(localInboxUrl, address) : null);
    });
  };

  const verify = (event: Event) => {
    event.preventDefault();
    void attempt(async () => {
      const { signInWithCode } = await import('../privy.js');
      setToken(await signInWithCode(provider, sentTo ?? '', code.trim()));
      try {
        await check?.();
      } catch (caught) {
        setToken(null);
        throw caught;
      }
      onSignedIn(sentTo ?? '');
    });
  };

  return (
    <>
      {sentTo === null ? (
        <form onSubmit={send}>
          <label>
            Email
            <input
              type="email"
              name="email"
              required
              maxLength={254}
              autoComplete="email"
              value={email}
              onInput={(e) => setEmail(e.currentTarget.value)}
            />
          </label>
          <button type="submit" disabled={busy}>
            {busy ? 'Sending…' : 'Send a sign-in code'}
          </button>
        </form>
      ) : (
        <form onSubmit={verify}>
          <p>
            A code was sent to <strong>{sentTo}</strong>.
          </p>
          {inbox ? (
            <p class="note" id="local-code">
              Local identity provider: the code is <code>{inbox}</code>
            </p>
          ) : null}
          <label>
            Code
            <input
              name="code"
              required
              inputMode="numeric"
              autoComplete="one-time-code"
              pattern="[0-9]{6}"
              maxLength={6}
              value={code}
              onInput={(e) => setCode(e.currentTarget.value)}
            />
          </label>
          <button type="submit" disabled={busy}>
            {busy ? 'Signing in…' : 'Sign in'}
          </button>
          <button type="button" class="link" onClick={() => setSentTo(null)}>
            Use another email
          </button>
        </form>
      )}
      {error ? <ErrorBox error={error} /> : null}
    </>
  );
};

export const SignInPage = ({ onSignedIn }: { onSignedIn: () => void }) => {
  const [firstKey, setFirstKey] = useState<{ apiKey: string; secretKey: string } | null>(null);
  const keyShown = useRef(false);
  // The first `/user/me` creates the user's API key and carries its secret, shown once.
  const readKey = async () => {
    const me = data(await api().GET('/user/me'));
    if (me.secretKey && me.apiKey) {
      keyShown.current = true;
      setFirstKey({ apiKey: me.apiKey, secretKey: me.secretKey });
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
      <SignInForm check={readKey} onSignedIn={() => keyShown.current || onSignedIn()} />
    </main>
  );
};
