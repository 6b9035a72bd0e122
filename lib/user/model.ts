import * as z from 'zod/mini';

/** A user as stored and as the domain sees it. The secret key is never part of it. */
export const userSchema = z.object({
  arcId: z.uuid(),
  subject: z.optional(z.string()),
  identifiers: z.array(z.string()),
  apiKey: z.optional(z.uuid()),
  /** Counters other areas keep current with atomic ADDs (games registered, points saved, launches…). */
  stats: z._default(z.record(z.string(), z.number()), {}),
  createdAt: z.string(),
  updatedAt: z.string(),
});
export type User = z.infer<typeof userSchema>;
