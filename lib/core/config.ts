import * as z from 'zod/mini';
import './zod-locale.js';

const cache = new Map<z.core.$ZodType, unknown>();

/**
 * Parse configuration from the environment once per container; missing or malformed settings fail fast at
 * cold start with every problem listed.
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

/**
 * A getter for configuration whose schema is written inline: the schema is built and the environment parsed on
 * first use, then kept in the getter. (Passing a fresh inline schema to `loadConfig` on every call would miss
 * its cache each time: a parse per call and an ever-growing cache.)
 */
export const defineConfig = <T extends z.core.$ZodType>(schema: () => T): (() => z.output<T>) => {
  let built: T | undefined;
  return () => {
    built ??= schema();
    return loadConfig(built);
  };
};
