// The functions as serverless.yml declares them: its `functions:` is the generated infra/functions.generated.yml
// (npm run generate), so tests that read a function's handler, events or package patterns read that file.
import { readFileSync } from 'node:fs';
import { parse } from 'yaml';

export interface FunctionConfig {
  handler: string;
  events?: Array<{ sqs?: Record<string, unknown>; httpApi?: unknown; schedule?: unknown }>;
  package?: { patterns?: string[] };
}

export const functionsConfig = (): Record<string, FunctionConfig> =>
  parse(readFileSync(new URL('../../infra/functions.generated.yml', import.meta.url), 'utf8')) as Record<
    string,
    FunctionConfig
  >;
