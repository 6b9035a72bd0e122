// Configuration: every setting a function reads from its environment, declared once with its one default.
// serverless.yml passes each of them (provider.environment, `${env:NAME, '<the same default>'}`; a test keeps the
// two in step), and every handler parses them all at cold start, so a missing or malformed setting fails the
// container's init with its name instead of a request with a 500.
//
// Plain parsing functions rather than a zod object: building and running the zod/mini schema cost ~4.2 ms of CPU
// at every cold start against ~0.1 ms for these (docs/decisions.md, "Settings without zod").

/** Reads one raw environment value (undefined when absent); throws a SettingProblem to refuse it. */
export type SettingParser<T> = (raw: string | undefined) => T;

class SettingProblem extends Error {}
const refuse = (message: string): never => {
  throw new SettingProblem(message);
};

const name = (): SettingParser<string> => (raw) =>
  raw === undefined || raw.length === 0 ? refuse('required') : raw;
const trimmed = (): SettingParser<string> => (raw) => {
  const value = raw?.trim() ?? '';
  return value.length === 0 ? refuse('required') : value;
};
const url =
  (protocols?: readonly string[]): SettingParser<string> =>
  (raw) => {
    if (raw === undefined || raw.length === 0) return refuse('required');
    let parsed: URL;
    try {
      parsed = new URL(raw);
    } catch {
      return refuse('must be a URL');
    }
    if (protocols && !protocols.includes(parsed.protocol))
      return refuse(`must be an ${protocols.map((p) => p.slice(0, -1)).join(' or ')} URL`);
    return raw;
  };
const httpUrl = () => url(['http:', 'https:']);
const oneOf =
  <const T extends string>(values: readonly T[]): SettingParser<T> =>
  (raw) =>
    values.includes(raw as T) ? (raw as T) : refuse(`must be one of ${values.join(', ')}`);
const positiveNumber =
  (integer: boolean): SettingParser<number> =>
  (raw) => {
    const value = raw === undefined || raw.trim() === '' ? Number.NaN : Number(raw);
    if (!Number.isFinite(value) || value <= 0 || (integer && !Number.isInteger(value)))
      return refuse(`must be a positive ${integer ? 'integer' : 'number'}`);
    return value;
  };
const numberBetween =
  (min: number, max: number): SettingParser<number> =>
  (raw) => {
    const value = raw === undefined || raw.trim() === '' ? Number.NaN : Number(raw);
    return Number.isFinite(value) && value >= min && value <= max
      ? value
      : refuse(`must be a number from ${min} to ${max}`);
  };
const integerBetween =
  (min: number, max: number): SettingParser<number> =>
  (raw) => {
    const value = raw === undefined || raw.trim() === '' ? Number.NaN : Number(raw);
    return Number.isInteger(value) && value >= min && value <= max
      ? value
      : refuse(`must be an integer from ${min} to ${max}`);
  };
/** The SOL/USD feeds the price can come from (lib/rewards/price.ts reads each one's answer). */
export const PRICE_FEEDS = ['pyth', 'coinbase', 'coingecko'] as const;
export type PriceFeedName = (typeof PRICE_FEEDS)[number];
/** `fixed`, or feeds in the order they are asked: comma-separated, each once. */
const priceSources = (): SettingParser<'fixed' | readonly PriceFeedName[]> => (raw) => {
  const value = raw?.trim() ?? '';
  if (value === 'fixed') return 'fixed';
  const names = value.split(',').map((n) => n.trim());
  const known = names.every((n) => (PRICE_FEEDS as readonly string[]).includes(n));
  return known && new Set(names).size === names.length && value !== ''
    ? (names as PriceFeedName[])
    : refuse(`must be fixed, or feeds from ${PRICE_FEEDS.join(', ')} in order, comma-separated, each once`);
};
/** Seconds between delivery attempts, comma-separated: each retry waits the next one (jittered). */
const secondsList = (): SettingParser<readonly number[]> => (raw) => {
  const values = (raw ?? '').split(',').map((v) => Number(v.trim()));
  return raw && values.length <= 20 && values.every((v) => Number.isInteger(v) && v >= 0 && v <= 86_400)
    ? values
    : refuse('must be 1 to 20 comma-separated whole seconds, each at most 86400');
};
/** Absent → the default, parsed like a given value. */
const withDefault =
  <T>(parse: SettingParser<T>, fallback: string): SettingParser<T> =>
  (raw) =>
    parse(raw === undefined ? fallback : raw);
/** serverless.yml passes unset optional settings as '': an empty value means "not configured". */
const optional =
  <T>(parse: SettingParser<T>): SettingParser<T | undefined> =>
  (raw) =>
    raw === undefined || raw === '' ? undefined : parse(raw);
const flag = (fallback: 'true' | 'false') => withDefault(oneOf(['true', 'false']), fallback);

/** Every setting, with its one default (no default = required). */
export const settingsSpec = {
  // Tables and buckets (names from serverless.yml's resources).
  USERS_TABLE: name(),
  GAMES_TABLE: name(),
  EPHEMERAL_TABLE: name(),
  LAUNCHER_TABLE: name(),
  PLAY_TABLE: name(),
  REWARDS_TABLE: name(),
  SNAPSHOTS_TABLE: name(),
  SETTLEMENT_TABLE: name(),
  WEBHOOKS_TABLE: name(),
  IMAGES_BUCKET: name(),
  SNAPSHOTS_BUCKET: name(),
  // Resources only some functions are given (function-level environment in serverless.yml).
  LAUNCH_STATE_MACHINE_ARN: optional(name()),
  // A URL or nothing: an unresolved CloudFormation reference ("[object Object]") fails here, not as a missing queue.
  SNAPSHOT_QUEUE_URL: optional(httpUrl()),
  SNAPSHOT_QUEUE_NAME: withDefault((raw) => raw ?? '', 'arcadia-dev-snapshots'),
  SETTLEMENT_QUEUE_URL: optional(httpUrl()),
  PAYOUT_DLQ_URL: optional(httpUrl()),
  // Users created by a save before the identity provider has them (lib/user/importer.ts).
  USER_IMPORT_QUEUE_URL: optional(httpUrl()),
  USER_IMPORT_QUEUE_NAME: withDefault((raw) => raw ?? '', 'arcadia-dev-user-imports'),
  // Webhook deliveries (lib/webhooks): their queue, the retry schedule and the per-request deadline
  // (docs/webhooks.md). The local stack shortens the schedule so that retries take seconds.
  WEBHOOK_QUEUE_URL: optional(httpUrl()),
  WEBHOOK_QUEUE_NAME: withDefault((raw) => raw ?? '', 'arcadia-dev-webhooks'),
  WEBHOOK_RETRY_SCHEDULE: withDefault(secondsList(), '5,300,1800,7200,18000,36000,36000'),
  WEBHOOK_TIMEOUT_MS: withDefault(integerBetween(100, 15_000), '10000'),
  // The secrets key below also seals webhook signing secrets.
  // The Secrets Manager secret that seals custodial keys (lib/adapters/vault-keys.ts): only the functions that
  // create or sign for vaults are given it.
  VAULT_KEY_SECRET_ID: optional(name()),
  // The Secrets Manager secret holding the secrets key, which seals API and webhook secrets and derives the
  // session-token key (lib/adapters/secrets.ts): only the functions that use it are given it.
  SECRETS_KEY_SECRET_ID: optional(name()),
  // The identity provider.
  IDP_ISSUER: trimmed(),
  IDP_AUDIENCE: trimmed(),
  IDP_JWKS_URL: httpUrl(),
  // The provider's user directory and delegated-signing API (users' embedded wallets), the local IdP's locally.
  IDP_API_URL: url(),
  IDP_APP_ID: name(),
  IDP_WALLET_API_URL: url(),
  // The provider's batch import of users, which it serves on its auth host only (the local IdP's under /api).
  IDP_IMPORT_API_URL: withDefault(httpUrl(), 'https://auth.privy.io/api'),
  // User creations the provider allows the app in a window (240 a minute, as it publishes): the import worker's
  // shared pace (lib/user/import-pace.ts). Tests shorten the window.
  IDP_USER_CREATIONS_PER_MINUTE: withDefault(positiveNumber(true), '240'),
  IDP_USER_CREATION_WINDOW_SECONDS: withDefault(positiveNumber(true), '60'),
  // The app's signer (a key quorum holding the authorization key's public half) that users add to their wallet.
  IDP_SIGNER_ID: name(),
  // The Secrets Manager secret holding the app secret and the authorization key (JSON), which the deployer puts
  // there: only the functions that call the provider may read it (infra/access.ts).
  IDP_CREDENTIALS_SECRET_ID: name(),
  // A 429 from the provider: attempts in all, and the first back-off step (doubled each time, jittered).
  IDP_RETRY_ATTEMPTS: withDefault(positiveNumber(true), '4'),
  IDP_RETRY_BASE_MS: withDefault(positiveNumber(true), '1000'),
  // The public API and outbound fetches.
  PUBLIC_API_URL: httpUrl(),
  IMAGES_BASE_URL: optional((raw) => raw ?? ''),
  SAFE_FETCH_ALLOW_LOOPBACK: flag('false'),
  // Connect with Arcadia (docs/connect.md): the platform's connect page (beside the console), and whether games
  // may register plain-http loopback redirect URIs (the local stack only).
  CONNECT_PAGE_URL: optional(httpUrl()),
  CONNECT_LOOPBACK_REDIRECTS: flag('false'),
  // AWS (the runtime sets AWS_REGION; endpoints only locally).
  AWS_REGION: withDefault(name(), 'us-east-1'),
  AWS_ENDPOINT_URL: optional((raw) => raw ?? ''),
  AWS_ENDPOINT_URL_S3: optional((raw) => raw ?? ''),
  // `count`: every DynamoDB call asks for its consumed capacity and adds it to a counter in the container
  // (lib/adapters/capacity.ts), which the cost bench reads. `off` in deployments: nothing there reads it.
  DYNAMODB_CAPACITY: withDefault(oneOf(['off', 'count']), 'off'),
  S3_FORCE_PATH_STYLE: flag('false'),
  // The chain and the SOL price.
  SOLANA_RPC_URL: httpUrl(),
  SOLANA_RPC_TIMEOUT_MS: withDefault(positiveNumber(true), '10000'),
  // How the snapshot builder reads a mint's holders (lib/chain/holders.ts): `rpc`, partitioned getProgramAccounts
  // any node serves, or `helius`, the provider's paginated getProgramAccountsV2 on SOLANA_RPC_URL; and the
  // accounts per page (V2's `limit`, or the answer size above which an RPC partition is split).
  HOLDERS_SOURCE: withDefault(oneOf(['rpc', 'helius']), 'rpc'),
  HOLDERS_PAGE_SIZE: withDefault(integerBetween(1, 10_000), '5000'),
  // The most the platform bids per compute unit (micro-lamports): bounds what one transaction's priority fee
  // costs its payer, the platform's vaults included (1 000 000 = 1 lamport a unit; 0 turns priority fees off).
  PRIORITY_FEE_MAX_MICROLAMPORTS: withDefault(integerBetween(0, 100_000_000), '1000000'),
  // Where the priority-fee bid comes from (lib/chain/budget.ts): `recent`, a high percentile of the node's recent
  // per-slot fees, or `helius`, the provider's getPriorityFeeEstimate on SOLANA_RPC_URL.
  PRIORITY_FEE_SOURCE: withDefault(oneOf(['recent', 'helius']), 'recent'),
  // The RPC plan's request budget per method family, requests a second, shared by a container's calls
  // (lib/chain/rpc-budget.ts): sendTransaction (re-broadcasts included), the holder read's getProgramAccounts(V2),
  // and every other method. 0: not spaced here (a 429 is still retried after the provider's Retry-After).
  SOLANA_RPC_SEND_PER_SECOND: withDefault(numberBetween(0, 10_000), '5'),
  SOLANA_RPC_SCAN_PER_SECOND: withDefault(numberBetween(0, 10_000), '0'),
  SOLANA_RPC_READ_PER_SECOND: withDefault(numberBetween(0, 10_000), '0'),
  // Where USD figures come from: the public feeds to ask, in order (docs/rewards.md, "SOL → USD"), or `fixed`,
  // which then needs SOL_USD_PRICE. The feeds' base URLs are settings so that the local stack's stand-in serves them.
  SOL_USD_PRICE_SOURCE: withDefault(priceSources(), 'coinbase,coingecko'),
  SOL_USD_PRICE: optional(positiveNumber(false)),
  SOL_USD_PYTH_URL: withDefault(httpUrl(), 'https://hermes.pyth.network'),
  SOL_USD_COINBASE_URL: withDefault(httpUrl(), 'https://api.coinbase.com'),
  SOL_USD_COINGECKO_URL: withDefault(httpUrl(), 'https://api.coingecko.com/api/v3'),
  // A feed's answer older than this (by the feed's own timestamp) is refused; an answer is reused this long.
  SOL_USD_MAX_AGE_SECONDS: withDefault(positiveNumber(true), '120'),
  SOL_USD_CACHE_SECONDS: withDefault(numberBetween(0, 300), '30'),
  // Sanity bounds: a feed answering outside them is refused like a feed that is down.
  SOL_USD_PRICE_MIN: withDefault(positiveNumber(false), '1'),
  SOL_USD_PRICE_MAX: withDefault(positiveNumber(false), '10000'),
  // The daily settlement: hours after a UTC day ends before it settles (developers invalidate fraud meanwhile).
  SETTLEMENT_DELAY_HOURS: withDefault(numberBetween(0, 72), '6'),
  // Rate limits (docs/decisions.md, "Rate limits").
  RATE_LIMIT_IP_PER_MINUTE: withDefault(positiveNumber(true), '60'),
  RATE_LIMIT_USER_PER_MINUTE: withDefault(positiveNumber(true), '600'),
} satisfies Record<string, SettingParser<unknown>>;

type Parsed = { [K in keyof typeof settingsSpec]: ReturnType<(typeof settingsSpec)[K]> };
type OptionalKey = { [K in keyof Parsed]: undefined extends Parsed[K] ? K : never }[keyof Parsed];
/** The parsed settings; an optional one may be absent. */
export type Settings = { [K in Exclude<keyof Parsed, OptionalKey>]: Parsed[K] } & {
  [K in OptionalKey]?: Parsed[K];
};
type Key = keyof Parsed;

/** What a chosen adapter needs besides its own setting. */
const dependentRules = (s: Partial<Settings>): Array<[string, Key[]]> => [
  ...(s.SOL_USD_PRICE_SOURCE === 'fixed'
    ? [['SOL_USD_PRICE_SOURCE=fixed', ['SOL_USD_PRICE']] as [string, Key[]]]
    : []),
];

/** One setting parsed, or the problem with it. */
export const parseSetting = <K extends Key>(
  key: K,
  raw: string | undefined,
): { ok: true; value: Parsed[K] } | { ok: false; problem: string } => {
  try {
    return { ok: true, value: settingsSpec[key](raw) as Parsed[K] };
  } catch (error) {
    if (error instanceof SettingProblem) return { ok: false, problem: error.message };
    throw error;
  }
};

/** Every setting parsed from `env`, or every problem as "NAME: problem". */
export const parseSettings = (
  env: Record<string, string | undefined>,
): { ok: true; settings: Settings } | { ok: false; problems: string[] } => {
  const values: Record<string, unknown> = {};
  const problems: string[] = [];
  for (const key of Object.keys(settingsSpec) as Key[]) {
    const result = parseSetting(key, env[key]);
    if (result.ok) values[key] = result.value;
    else problems.push(`${key}: ${result.problem}`);
  }
  for (const [when, keys] of dependentRules(values as Partial<Settings>))
    for (const key of keys)
      if (values[key] === undefined && !problems.some((p) => p.startsWith(`${key}:`)))
        problems.push(`${key}: required when ${when}`);
  return problems.length > 0 ? { ok: false, problems } : { ok: true, settings: values as Settings };
};

let cached: Settings | undefined;

/**
 * The settings of this container, parsed from the environment on the first call (every handler makes it at cold
 * start); missing or malformed settings fail with every problem listed by name.
 */
export const settings = (): Settings => {
  if (cached) return cached;
  const parsed = parseSettings(process.env);
  if (!parsed.ok) throw new Error(`Invalid configuration: ${parsed.problems.join('; ')}`);
  cached = parsed.settings;
  return cached;
};

/**
 * A setting only some functions are given (a resource reference in their own environment) or only some
 * configurations need, read from the environment when used; fails naming it when absent or malformed.
 */
export const requireSetting = <K extends Key>(key: K): NonNullable<Parsed[K]> => {
  const parsed = parseSetting(key, process.env[key]);
  if (!parsed.ok || parsed.value === undefined || parsed.value === null)
    throw new Error(`Invalid configuration: ${key} is not set or invalid`);
  return parsed.value as NonNullable<Parsed[K]>;
};
