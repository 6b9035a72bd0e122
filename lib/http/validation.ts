import type * as z from 'zod';
import type { ErrorDetail } from './errors.js';

/** Turn zod issues into the public `details` list: one entry per offending field. */
export const zodDetails = (error: z.ZodError): ErrorDetail[] =>
  error.issues.map((issue) => ({
    path: issue.path.length > 0 ? issue.path.map(String).join('.') : '(root)',
    message: issue.message,
  }));
