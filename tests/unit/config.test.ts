import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { parseSetting, parseSettings, settingsSpec } from '../../lib/core/config.js';
import { VALID_SETTINGS as valid } from '../fixtures/settings.js';

afterEach(() => vi.unstubAllEnvs());

const declared = Object.keys(settingsSpec);
type Key = keyof typeof settingsSpec;

/**
 * `NAME: ${env:NAME, 'default'}` (or a resource reference) for every variable serverless.yml passes, in its provider
 * environment or in a function's (the generated infra/functions.generated.yml).
 */
const serverlessEnvironment = () => {
  const text = ['serverless.yml', 'infra/functions.generated.yml']
    .map((file) => readFileSync(new URL(`../../${file}`, import.meta.url), 'utf8'))
    .join('\n');
  const found = new Map<string, string | null>();
  for (const [, name, value] of text.matchAll(/^\s+([A-Z][A-Z0-9_]+):\s*(.*)$/gm)) {
    const fromEnv = /^\$\{env:[A-Z0-9_]+(?:, env:[A-Z0-9_]+)*, '([^']*)'\}$/.exec(value ?? '');
    found.set(name ?? '', fromEnv ? (fromEnv[1] ?? '') : null);
  }
  return found;
};

describe('settings', () => {
  it('declares every variable serverless.yml passes to the functions, and nothing it does not', () => {
    const passed = [...serverlessEnvironment().keys()].filter((name) => !name.startsWith('POWERTOOLS_'));
    expect(passed.filter((name) => !declared.includes(name))).toEqual([]);
    // The runtime's own variables (AWS_*) and the local stack's queue names are the only ones not passed.
    expect(declared.filter((name) => !passed.includes(name)).sort()).toEqual(
      [
        'AWS_ENDPOINT_URL',
        'AWS_ENDPOINT_URL_S3',
        'AWS_REGION',
        'SNAPSHOT_QUEUE_NAME',
        'USER_IMPORT_QUEUE_NAME',
        'WEBHOOK_QUEUE_NAME',
      ].sort(),
    );
  });

  it("has serverless.yml's default for each setting (one default, declared twice in step)", () => {
    let compared = 0;
    for (const [name, fallback] of serverlessEnvironment()) {
      if (!declared.includes(name) || fallback === null) continue;
      compared++;
      const unset = parseSetting(name as Key, undefined);
      const deployed = parseSetting(name as Key, fallback);
      if (fallback === '') {
        // '' means unset: optional settings stay unset, required ones refuse it.
        expect(deployed.ok ? deployed.value : 'refused', name).toEqual(unset.ok ? unset.value : 'refused');
      } else {
        expect(unset.ok, `${name} has a default in code`).toBe(true);
        expect(deployed.ok && deployed.value, name).toEqual(unset.ok && unset.value);
      }
    }
    // Every `${env:NAME, 'default'}` setting was compared (the tables and resources have no env default).
    expect(compared).toBeGreaterThanOrEqual(18);
  });

  it('parses a complete environment and fills the defaults', () => {
    const parsed = parseSettings(valid);
    expect(parsed.ok && parsed.settings).toMatchObject({
      RATE_LIMIT_IP_PER_MINUTE: 60,
      RATE_LIMIT_USER_PER_MINUTE: 600,
      SOL_USD_PRICE_SOURCE: ['coinbase', 'coingecko'],
      SOL_USD_MAX_AGE_SECONDS: 120,
      SOL_USD_CACHE_SECONDS: 30,
      SOLANA_RPC_TIMEOUT_MS: 10_000,
      HOLDERS_SOURCE: 'rpc',
      HOLDERS_PAGE_SIZE: 5000,
    });
    // No price is made up: a fixed one only when the deployer sets it.
    expect(parsed.ok && parsed.settings.SOL_USD_PRICE).toBeUndefined();
  });

  it('requires what a chosen adapter needs, naming it', () => {
    const problems = (env: Record<string, string>) => {
      const result = parseSettings({ ...valid, ...env });
      return result.ok ? [] : result.problems;
    };
    // Users' embedded wallets live at the identity provider: its directory and signing API are always needed.
    expect(
      problems({
        IDP_API_URL: '',
        IDP_APP_ID: '',
        IDP_WALLET_API_URL: '',
        IDP_CREDENTIALS_SECRET_ID: '',
      }).map((p) => p.split(':')[0]),
    ).toEqual(['IDP_API_URL', 'IDP_APP_ID', 'IDP_WALLET_API_URL', 'IDP_CREDENTIALS_SECRET_ID']);
    expect(problems({ SOL_USD_PRICE_SOURCE: 'fixed' })).toEqual([
      'SOL_USD_PRICE: required when SOL_USD_PRICE_SOURCE=fixed',
    ]);
    expect(problems({ SOL_USD_PRICE_SOURCE: 'fixed', SOL_USD_PRICE: '151.5' })).toEqual([]);
    expect(problems({ SOLANA_RPC_URL: '' })).toEqual([expect.stringMatching(/^SOLANA_RPC_URL: /)]);
  });
});

describe('parsing', () => {
  it('lists every problem, each by name', () => {
    const result = parseSettings({
      ...valid,
      USERS_TABLE: '',
      SOLANA_RPC_TIMEOUT_MS: '1.5',
      PUBLIC_API_URL: 'ftp://x',
    });
    expect(result.ok ? [] : result.problems).toEqual([
      'USERS_TABLE: required',
      'PUBLIC_API_URL: must be an http or https URL',
      'SOLANA_RPC_TIMEOUT_MS: must be a positive integer',
    ]);
  });

  it('refuses what the schema refused before: bad enums, keys, numbers and URLs', () => {
    const refused = (key: Key, raw: string) => !parseSetting(key, raw).ok;
    expect(refused('SOL_USD_PRICE_SOURCE', 'Fixed')).toBe(true);
    expect(refused('SOL_USD_PRICE_SOURCE', 'http')).toBe(true);
    expect(refused('SOL_USD_PRICE_SOURCE', 'coinbase,coinbase')).toBe(true);
    expect(refused('SOL_USD_PRICE_SOURCE', 'coinbase,fixed')).toBe(true);
    expect(parseSetting('SOL_USD_PRICE_SOURCE', 'pyth, coinbase')).toEqual({
      ok: true,
      value: ['pyth', 'coinbase'],
    });
    expect(refused('SOL_USD_CACHE_SECONDS', '301')).toBe(true);
    expect(refused('IDP_WALLET_API_URL', '')).toBe(true);
    expect(refused('SOL_USD_PRICE', '0')).toBe(true);
    expect(refused('SOL_USD_PRICE', 'abc')).toBe(true);
    expect(refused('SNAPSHOT_QUEUE_URL', '[object Object]')).toBe(true);
    expect(refused('IDP_ISSUER', '   ')).toBe(true);
    expect(parseSetting('SOL_USD_PRICE', '151.5')).toEqual({ ok: true, value: 151.5 });
    expect(parseSetting('SNAPSHOT_QUEUE_URL', '')).toEqual({ ok: true, value: undefined });
  });
});

describe('cold start', () => {
  it('a function whose environment lacks a setting fails to load, naming it', () => {
    // A complete environment of its own (no stack needed), but for the one setting left out.
    const env: Record<string, string> = { ...valid, PATH: process.env.PATH ?? '' };
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
        env: { ...valid, PATH: process.env.PATH ?? '' },
        encoding: 'utf8',
        timeout: 60_000,
      },
    );
    expect(complete.status, complete.stderr).toBe(0);
  }, 120_000);
});
