import type * as z from 'zod/mini';
import type { ErrorDetail } from './errors.js';
import './zod-locale.js';

/** Turn zod issues into the public `details` list: one entry per offending field. */
export const zodDetails = (error: z.core.$ZodError): ErrorDetail[] =>
  error.issues.map((issue) => ({
    path: issue.path.length > 0 ? issue.path.map(String).join('.') : '(root)',
    message: issue.message,
  }));
