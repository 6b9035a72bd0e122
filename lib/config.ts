import type * as z from 'zod';

const cache = new Map<z.ZodType, unknown>();

/**
 * Parse configuration from the environment once per container; missing or malformed settings fail fast at
 * cold start with every problem listed.
 */
export const loadConfig = <T extends z.ZodType>(schema: T): z.output<T> => {
  const hit = cache.get(schema);
  if (hit) return hit as z.output<T>;
  const parsed = schema.safeParse(process.env);
  if (!parsed.success) {
    const problems = parsed.error.issues.map((i) => `${i.path.join('.')}: ${i.message}`).join('; ');
    throw new Error(`Invalid configuration: ${problems}`);
  }
  cache.set(schema, parsed.data);
  return parsed.data;
};
