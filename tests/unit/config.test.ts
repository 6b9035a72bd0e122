import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { afterEach, describe, expect, it, vi } from 'vitest';
import * as z from 'zod/mini';
import { loadConfig, settingsSchema } from '../../lib/core/config.js';

afterEach(() => vi.unstubAllEnvs());

const shape = settingsSchema.def.shape;
const declared = Object.keys(shape);

/** `NAME: ${env:NAME, 'default'}` (or a resource reference) for every variable serverless.yml passes. */
const serverlessEnvironment = () => {
  const text = readFileSync(new URL('../../serverless.yml', import.meta.url), 'utf8');
  const found = new Map<string, string | null>();
  for (const [, name, value] of text.matchAll(/^\s+([A-Z][A-Z0-9_]+):\s*(.*)$/gm)) {
    const fromEnv = /^\$\{env:[A-Z0-9_]+(?:, env:[A-Z0-9_]+)*, '([^']*)'\}$/.exec(value ?? '');
    found.set(name ?? '', fromEnv ? (fromEnv[1] ?? '') : null);
  }
  return found;
};

/** Every setting filled with a valid value, so that one can be varied at a time. */
const valid: Record<string, string> = {
  USERS_TABLE: 'u',
  GAMES_TABLE: 'g',
  EPHEMERAL_TABLE: 'e',
  LAUNCHER_TABLE: 'l',
  PLAY_TABLE: 'p',
  REWARDS_TABLE: 'r',
  SNAPSHOTS_TABLE: 'st',
  IMAGES_BUCKET: 'i',
  SNAPSHOTS_BUCKET: 's',
  SECRETS_ENCRYPTION_KEY: Buffer.alloc(32, 7).toString('base64'),
  IDP_ISSUER: 'https://idp.example',
  IDP_AUDIENCE: 'arcadia',
  IDP_JWKS_URL: 'https://idp.example/jwks',
  IDP_API_URL: 'https://idp.example/api',
  IDP_APP_ID: 'app',
  IDP_APP_SECRET: 'secret',
  IDP_WALLET_API_URL: 'https://idp.example/wallets',
  PUBLIC_API_URL: 'https://api.example',
  SOLANA_RPC_URL: 'https://rpc.example',
};

describe('settings', () => {
  it('declares every variable serverless.yml passes to the functions, and nothing it does not', () => {
    const passed = [...serverlessEnvironment().keys()].filter((name) => !name.startsWith('POWERTOOLS_'));
    expect(passed.filter((name) => !declared.includes(name))).toEqual([]);
    // The runtime's own variables (AWS_*) and the local stack's queue name are the only ones not passed.
    expect(declared.filter((name) => !passed.includes(name)).sort()).toEqual(
      ['AWS_ENDPOINT_URL', 'AWS_ENDPOINT_URL_S3', 'AWS_REGION', 'SNAPSHOT_QUEUE_NAME'].sort(),
    );
  });

  it("has serverless.yml's default for each setting (one default, declared twice in step)", () => {
    let compared = 0;
    for (const [name, fallback] of serverlessEnvironment()) {
      const schema = shape[name as keyof typeof shape];
      if (!schema || fallback === null) continue;
      compared++;
      const unset = z.safeParse(schema, undefined);
      const deployed = z.safeParse(schema, fallback);
      if (fallback === '') {
        // '' means unset: optional settings stay unset, required ones refuse it.
        expect(deployed.success ? deployed.data : 'refused', name).toEqual(
          unset.success ? unset.data : 'refused',
        );
      } else {
        expect(unset.success, `${name} has a default in code`).toBe(true);
        expect(deployed.data, name).toEqual(unset.data);
      }
    }
    // Every `${env:NAME, 'default'}` setting was compared (the tables and resources have no env default).
    expect(compared).toBeGreaterThanOrEqual(18);
  });

  it('parses a complete environment and fills the defaults', () => {
    const parsed = z.parse(settingsSchema, valid);
    expect(parsed).toMatchObject({
      RATE_LIMIT_IP_PER_MINUTE: 60,
      RATE_LIMIT_USER_PER_MINUTE: 600,
      SOL_USD_PRICE_SOURCE: 'fixed',
      SOL_USD_PRICE: 150,
      SOLANA_RPC_TIMEOUT_MS: 10_000,
    });
  });

  it('requires what a chosen adapter needs, naming it', () => {
    const problems = (env: Record<string, string>) => {
      const result = z.safeParse(settingsSchema, { ...valid, ...env });
      return result.success ? [] : result.error.issues.map((i) => `${i.path.join('.')}: ${i.message}`);
    };
    // Users' embedded wallets live at the identity provider: its directory and signing API are always needed.
    expect(
      problems({ IDP_API_URL: '', IDP_APP_ID: '', IDP_APP_SECRET: '', IDP_WALLET_API_URL: '' }).map(
        (p) => p.split(':')[0],
      ),
    ).toEqual(['IDP_API_URL', 'IDP_APP_ID', 'IDP_APP_SECRET', 'IDP_WALLET_API_URL']);
    expect(problems({ SOL_USD_PRICE_SOURCE: 'http' })).toEqual([
      'SOL_USD_PRICE_URL: required when SOL_USD_PRICE_SOURCE=http',
    ]);
    expect(problems({ SOLANA_RPC_URL: '' })).toEqual([expect.stringMatching(/^SOLANA_RPC_URL: /)]);
  });
});

describe('loadConfig', () => {
  it('fails fast listing every problem', () => {
    vi.stubEnv('ARCADIA_TEST_NUMBER', 'x');
    const schema = z.object({
      ARCADIA_TEST_MISSING: z.string().check(z.minLength(1)),
      ARCADIA_TEST_NUMBER: z.coerce.number(),
    });
    expect(() => loadConfig(schema)).toThrow(
      /Invalid configuration: ARCADIA_TEST_MISSING: .*; ARCADIA_TEST_NUMBER: /,
    );
  });

  it('parses once per schema: a later change of the environment is not seen', () => {
    vi.stubEnv('ARCADIA_TEST_OTHER', 'a');
    const schema = z.object({ ARCADIA_TEST_OTHER: z.string() });
    expect(loadConfig(schema).ARCADIA_TEST_OTHER).toBe('a');
    vi.stubEnv('ARCADIA_TEST_OTHER', 'b');
    expect(loadConfig(schema).ARCADIA_TEST_OTHER).toBe('a');
  });
});

describe('cold start', () => {
  it('a function whose environment lacks a setting fails to load, naming it', () => {
    const env = { ...process.env };
    delete env.SOLANA_RPC_URL;
    const loaded = spawnSync(
      process.execPath,
      ['--import', 'tsx', '--input-type=module', '-e', "await import('./functions/games/get-game.ts')"],
      { cwd: fileURLToPath(new URL('../..', import.meta.url)), env, encoding: 'utf8', timeout: 60_000 },
    );
    expect(loaded.status).not.toBe(0);
    expect(loaded.stderr).toMatch(/Invalid configuration: SOLANA_RPC_URL: /);
    // The same module loads when the environment is complete.
    const complete = spawnSync(
      process.execPath,
      ['--import', 'tsx', '--input-type=module', '-e', "await import('./functions/games/get-game.ts')"],
      {
        cwd: fileURLToPath(new URL('../..', import.meta.url)),
        env: process.env,
        encoding: 'utf8',
        timeout: 60_000,
      },
    );
    expect(complete.status, complete.stderr).toBe(0);
  }, 120_000);
});
