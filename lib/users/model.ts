import * as z from 'zod';

/** A user as stored and as the domain sees it. The secret key is never part of it. */
export const userSchema = z.object({
  arcId: z.uuid(),
  subject: z.string().optional(),
  identifiers: z.array(z.string()),
  apiKey: z.uuid().optional(),
  walletAddress: z.string().optional(),
  /** Counters other areas keep current with atomic ADDs (games registered, points saved, launches…). */
  stats: z.record(z.string(), z.number()).default({}),
  createdAt: z.string(),
  updatedAt: z.string(),
});
export type User = z.infer<typeof userSchema>;
