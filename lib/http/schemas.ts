import * as z from 'zod';
import { ERROR_STATUS } from './errors.js';

/** `{"data": …}`: the success envelope of every JSON endpoint (DESIGN §2). */
export const dataEnvelope = <T extends z.ZodType>(data: T) => z.object({ data });

/** `{"data": [...], "meta": {limit, offset, total}}`: the list envelope (DESIGN §2). */
export const listEnvelope = <T extends z.ZodType>(item: T) =>
  z.object({
    data: z.array(item),
    meta: z.object({
      limit: z.number().int(),
      offset: z.number().int(),
      total: z.number().int(),
    }),
  });

/** The standard error body (DESIGN §2). */
export const errorBodySchema = z
  .object({
    error: z.object({
      code: z.enum(
        Object.keys(ERROR_STATUS) as [keyof typeof ERROR_STATUS, ...Array<keyof typeof ERROR_STATUS>],
      ),
      message: z.string(),
      details: z.array(z.object({ path: z.string(), message: z.string() })),
      requestId: z.string(),
    }),
  })
  .meta({ id: 'Error' });

/** Query-string boolean: accepts true/false/1/0 (API Gateway hands every query value over as a string). */
export const queryBoolean = z
  .enum(['true', 'false', '1', '0'])
  .transform((v) => v === 'true' || v === '1')
  .or(z.boolean());
