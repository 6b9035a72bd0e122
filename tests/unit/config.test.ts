import { afterEach, describe, expect, it, vi } from 'vitest';
import * as z from 'zod';
import { defineConfig, loadConfig } from '../../lib/core/config.js';

afterEach(() => vi.unstubAllEnvs());

describe('configuration', () => {
  it('builds an inline schema and parses the environment once per getter', () => {
    vi.stubEnv('ARCADIA_TEST_SETTING', 'first');
    const build = vi.fn(() => z.object({ ARCADIA_TEST_SETTING: z.string().min(1) }));
    const config = defineConfig(build);
    expect(build).not.toHaveBeenCalled();
    expect(config().ARCADIA_TEST_SETTING).toBe('first');
    vi.stubEnv('ARCADIA_TEST_SETTING', 'second');
    // Parsed once per container: a later change of the environment is not seen, and the schema is not rebuilt.
    expect(config().ARCADIA_TEST_SETTING).toBe('first');
    expect(build).toHaveBeenCalledTimes(1);
  });

  it('fails fast listing every problem', () => {
    vi.stubEnv('ARCADIA_TEST_NUMBER', 'x');
    const config = defineConfig(() =>
      z.object({ ARCADIA_TEST_MISSING: z.string().min(1), ARCADIA_TEST_NUMBER: z.coerce.number() }),
    );
    expect(() => config()).toThrow(/Invalid configuration: ARCADIA_TEST_MISSING: .*; ARCADIA_TEST_NUMBER: /);
  });

  it('caches by schema object in loadConfig', () => {
    vi.stubEnv('ARCADIA_TEST_OTHER', 'a');
    const schema = z.object({ ARCADIA_TEST_OTHER: z.string() });
    expect(loadConfig(schema).ARCADIA_TEST_OTHER).toBe('a');
    vi.stubEnv('ARCADIA_TEST_OTHER', 'b');
    expect(loadConfig(schema).ARCADIA_TEST_OTHER).toBe('a');
  });
});
