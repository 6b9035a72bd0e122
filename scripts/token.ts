// `npm run token -- <name> [--expires <seconds>] [--no-delegation | --delegation] [--no-wallet]` prints a bearer
// token for the local user <name> (subject did:local:<name>), issued by the running local identity provider
// (IDP_URL, default http://127.0.0.1:8090). Signing in gives the user an embedded wallet held by the provider
// (not with --no-wallet, for a new user), with delegated signing enabled; --no-delegation revokes it (launches,
// purchases and claims then answer 403 WALLET_DELEGATION_REQUIRED) and --delegation grants it again. The wallet
// address goes to stderr (fund it: `npm run fund -- <address> 1`); only the token goes to stdout, so
// `TOKEN=$(npm run -s token -- alice)` works.
import { pathToFileURL } from 'node:url';
import { parseArgs } from 'node:util';

export const DEFAULT_IDP_URL = 'http://127.0.0.1:8090';

export interface LocalToken {
  token: string;
  subject: string;
  expiresAt?: string;
  /** The embedded wallet the provider holds for the user; null without one. */
  walletAddress?: string | null;
  delegated?: boolean;
}

export interface LocalTokenOptions {
  /** true grants, false revokes the app's delegated signing; absent leaves it as it is. */
  delegation?: boolean;
  /** false: a user signing in for the first time gets no embedded wallet. */
  embeddedWallet?: boolean;
}

interface ErrorBody {
  error?: { message?: string; details?: { path: string; message: string }[] };
}

/** Ask the local identity provider for a token; the error says what to do when it is not running. */
export const fetchLocalToken = async (
  name: string,
  idpUrl: string = DEFAULT_IDP_URL,
  expiresInSeconds?: number,
  options: LocalTokenOptions = {},
): Promise<LocalToken> => {
  let response: Response;
  try {
    response = await fetch(new URL('/token', idpUrl), {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ name, ...(expiresInSeconds ? { expiresInSeconds } : {}), ...options }),
      signal: AbortSignal.timeout(5000),
    });
  } catch {
    throw new Error(
      `The local identity provider is not reachable at ${idpUrl}: start \`npm run dev\` first.`,
    );
  }
  const body = (await response.json().catch(() => ({}))) as LocalToken & ErrorBody;
  if (!response.ok) {
    const details = (body.error?.details ?? []).map((d) => `${d.path}: ${d.message}`).join('; ');
    const message = body.error?.message ?? `HTTP ${response.status}`;
    throw new Error(`The local identity provider refused: ${message}${details ? ` (${details})` : ''}`);
  }
  if (typeof body.token !== 'string') throw new Error(`Unexpected answer from ${idpUrl}/token`);
  return body;
};

const main = async () => {
  const { values, positionals } = parseArgs({
    allowPositionals: true,
    allowNegative: true,
    options: { expires: { type: 'string' }, delegation: { type: 'boolean' }, wallet: { type: 'boolean' } },
  });
  const [name] = positionals;
  if (!name || positionals.length > 1) {
    throw new Error(
      'Usage: npm run token -- <name> [--expires <seconds>] [--no-delegation | --delegation] [--no-wallet]' +
        '   (name: a-z, 0-9, _ and -)',
    );
  }
  const expires = values.expires === undefined ? undefined : Number(values.expires);
  if (expires !== undefined && !(Number.isInteger(expires) && expires > 0)) {
    throw new Error('--expires must be a positive number of seconds');
  }
  const { token, subject, expiresAt, walletAddress, delegated } = await fetchLocalToken(
    name,
    process.env.IDP_URL ?? DEFAULT_IDP_URL,
    expires,
    {
      ...(values.delegation === undefined ? {} : { delegation: values.delegation }),
      ...(values.wallet === false ? { embeddedWallet: false } : {}),
    },
  );
  console.error(`token for ${subject}${expiresAt ? `, expires ${expiresAt}` : ''}`);
  console.error(
    walletAddress
      ? `embedded wallet ${walletAddress}, delegated signing ${delegated ? 'enabled' : 'revoked'}`
      : 'no embedded wallet',
  );
  console.log(token);
};

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  main().catch((error: unknown) => {
    console.error(error instanceof Error ? error.message : error);
    process.exit(1);
  });
}
