import * as z from 'zod/mini';
import { ERROR_STATUS } from './errors.js';
import { isCalendarDay } from './time.js';

/** `{"data": …}`: the success envelope of every JSON endpoint. */
export const dataEnvelope = <T extends z.core.$ZodType>(data: T) => z.object({ data });

/** `{"data": [...], "meta": {limit, offset, total}}`: the list envelope. */
export const listEnvelope = <T extends z.core.$ZodType>(item: T) =>
  z.object({
    data: z.array(item),
    meta: z.object({
      limit: z.int(),
      offset: z.int(),
      total: z.int(),
    }),
  });

/**
 * `schema` with a description in the global registry (classic zod's `.describe()`): a clone, so that one
 * schema described differently in two places keeps both descriptions.
 */
export const described = <T extends z.core.$ZodType>(schema: T, description: string): T =>
  withMeta(schema, { description });

/** `schema` with metadata (`id`, `description`, `format`, …) in the global registry (classic zod's `.meta()`). */
export const withMeta = <T extends z.core.$ZodType>(schema: T, meta: z.core.GlobalMeta): T => {
  const copy = z.clone(schema);
  z.globalRegistry.add(copy, meta);
  return copy;
};

/** The standard error body of every endpoint. */
export const errorBodySchema = withMeta(
  z.object({
    error: z.object({
      code: z.enum(
        Object.keys(ERROR_STATUS) as [keyof typeof ERROR_STATUS, ...Array<keyof typeof ERROR_STATUS>],
      ),
      message: z.string(),
      details: z.array(z.object({ path: z.string(), message: z.string() })),
      requestId: z.string(),
    }),
  }),
  { id: 'Error' },
);

/** Query-string boolean: accepts true/false/1/0 (API Gateway hands every query value over as a string). */
export const queryBoolean = z.union([
  z.pipe(
    z.enum(['true', 'false', '1', '0']),
    z.transform((v) => v === 'true' || v === '1'),
  ),
  z.boolean(),
]);

/** A UTC day, `yyyy-mm-dd`, that exists on the calendar (2026-02-30 is a 400, not an empty board). */
export const utcDaySchema = z
  .string()
  .check(
    z.regex(/^\d{4}-\d{2}-\d{2}$/, 'must be yyyy-mm-dd'),
    z.refine(isCalendarDay, 'is not a calendar day'),
  );
