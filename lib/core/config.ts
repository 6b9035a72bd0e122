// Configuration: every setting a function reads from its environment, declared once with its one default.
// serverless.yml passes each of them (provider.environment, `${env:NAME, '<the same default>'}`; a test keeps the
// two in step), and every handler parses them all at cold start, so a missing or malformed setting fails the
// container's init with its name instead of a request with a 500.
import * as z from 'zod/mini';
import './zod-locale.js';

// serverless.yml passes unset optional settings as '': an empty value means "not configured".
const unsetWhenEmpty = <T extends z.core.$ZodType>(schema: T) =>
  z.pipe(
    z.transform((value: unknown) => (value === '' ? undefined : value)),
    z.optional(schema),
  );
const name = () => z.string().check(z.minLength(1));
const httpUrl = () => z.url({ protocol: /^https?$/ });
const flag = (fallback: 'true' | 'false') => z._default(z.enum(['true', 'false']), fallback);
const positiveInt = (fallback: number) =>
  z._default(z.coerce.number().check(z.int(), z.positive()), fallback);

/** Every setting, with its one default (absent = required). */
export const settingsSchema = z
  .object({
    // Tables and buckets (names from serverless.yml's resources).
    USERS_TABLE: name(),
    GAMES_TABLE: name(),
    EPHEMERAL_TABLE: name(),
    LAUNCHER_TABLE: name(),
    PLAY_TABLE: name(),
    REWARDS_TABLE: name(),
    SNAPSHOTS_TABLE: name(),
    IMAGES_BUCKET: name(),
    SNAPSHOTS_BUCKET: name(),
    // Resources only some functions are given (function-level environment in serverless.yml).
    LAUNCH_STATE_MACHINE_ARN: unsetWhenEmpty(name()),
    // A URL or nothing: an unresolved CloudFormation reference ("[object Object]") fails here, not as a missing queue.
    SNAPSHOT_QUEUE_URL: unsetWhenEmpty(httpUrl()),
    SNAPSHOT_QUEUE_NAME: z._default(z.string(), 'arcadia-dev-snapshots'),
    // Secrets and the identity provider.
    SECRETS_ENCRYPTION_KEY: z
      .string()
      .check(z.refine((v) => Buffer.from(v, 'base64').length === 32, 'must be 32 bytes, base64-encoded')),
    IDP_ISSUER: z.string().check(z.trim(), z.minLength(1)),
    IDP_AUDIENCE: z.string().check(z.trim(), z.minLength(1)),
    IDP_JWKS_URL: httpUrl(),
    // The provider's user directory and delegated-signing API (users' embedded wallets), the local IdP's locally.
    IDP_API_URL: z.url(),
    IDP_APP_ID: name(),
    IDP_APP_SECRET: name(),
    IDP_WALLET_API_URL: z.url(),
    // The public API and outbound fetches.
    PUBLIC_API_URL: httpUrl(),
    IMAGES_BASE_URL: unsetWhenEmpty(z.string()),
    SAFE_FETCH_ALLOW_LOOPBACK: flag('false'),
    // AWS (the runtime sets AWS_REGION; endpoints only locally).
    AWS_REGION: z._default(name(), 'us-east-1'),
    AWS_ENDPOINT_URL: unsetWhenEmpty(z.string()),
    AWS_ENDPOINT_URL_S3: unsetWhenEmpty(z.string()),
    S3_FORCE_PATH_STYLE: flag('false'),
    // The chain and the SOL price.
    SOLANA_RPC_URL: httpUrl(),
    SOLANA_RPC_TIMEOUT_MS: positiveInt(10_000),
    SOL_USD_PRICE_SOURCE: z._default(z.enum(['fixed', 'http']), 'fixed'),
    SOL_USD_PRICE: z._default(z.coerce.number().check(z.positive()), 150),
    SOL_USD_PRICE_URL: unsetWhenEmpty(httpUrl()),
    SOL_USD_PRICE_JSON_PATH: z._default(name(), 'solana.usd'),
    // Rate limits (SPEC §8).
    RATE_LIMIT_IP_PER_MINUTE: positiveInt(60),
    RATE_LIMIT_USER_PER_MINUTE: positiveInt(600),
  })
  .check(
    z.superRefine((s, ctx) => {
      const need = (when: string, names: Array<keyof typeof s>) => {
        for (const key of names)
          if (s[key] === undefined)
            ctx.addIssue({ code: 'custom', path: [key], message: `required when ${when}` });
      };
      if (s.SOL_USD_PRICE_SOURCE === 'http') need('SOL_USD_PRICE_SOURCE=http', ['SOL_USD_PRICE_URL']);
    }),
  );

export type Settings = z.output<typeof settingsSchema>;

const cache = new Map<z.core.$ZodType, unknown>();

/**
 * Parse configuration from the environment once per container; missing or malformed settings fail with every
 * problem listed by name.
 */
export const loadConfig = <T extends z.core.$ZodType>(schema: T): z.output<T> => {
  const hit = cache.get(schema);
  if (hit) return hit as z.output<T>;
  const parsed = z.safeParse(schema, process.env);
  if (!parsed.success) {
    const problems = parsed.error.issues.map((i) => `${i.path.join('.')}: ${i.message}`).join('; ');
    throw new Error(`Invalid configuration: ${problems}`);
  }
  cache.set(schema, parsed.data);
  return parsed.data;
};

/** The settings of this container (parsed on the first call: every handler makes it at cold start). */
export const settings = (): Settings => loadConfig(settingsSchema);

/**
 * A setting only some functions are given (a resource reference in their own environment) or only some
 * configurations need, read from the environment when used; fails naming it when absent or malformed.
 */
export const requireSetting = <K extends keyof Settings>(key: K): NonNullable<Settings[K]> => {
  const parsed = z.safeParse(settingsSchema.def.shape[key], process.env[key]);
  if (!parsed.success || parsed.data === undefined || parsed.data === null)
    throw new Error(`Invalid configuration: ${key} is not set or invalid`);
  return parsed.data as NonNullable<Settings[K]>;
};
