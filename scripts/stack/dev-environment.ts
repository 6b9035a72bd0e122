// The environment a function gets under `npm run dev`, for scripts that run a function's code in-process
// (`npm run invoke`, `npm run settle`): the provider's, then the function's own (serverless.yml, CloudFormation
// references resolved by the running stack as serverless offline gets them), then the stack's endpoints
// (.data/dev/stack.env). Exits with a hint when `npm run dev` has not written them.
import { existsSync, readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import type { loadServerlessConfig } from './config.js';
import { readResolvedEnvironments, resolvedEnvironmentFile } from './function-environment.js';

type ServerlessConfig = Awaited<ReturnType<typeof loadServerlessConfig>>;

export const applyDevFunctionEnvironment = (root: string, config: ServerlessConfig, name: string): void => {
  const stackEnv = resolve(root, '.data/dev/stack.env');
  if (!existsSync(stackEnv)) {
    console.error('start `npm run dev` first (it writes .data/dev/stack.env)');
    process.exit(2);
  }
  const resolved = readResolvedEnvironments(resolvedEnvironmentFile(resolve(root, '.data/dev')));
  for (const environment of [
    config.provider.environment,
    resolved?.provider,
    config.functions?.[name]?.environment,
    resolved?.functions[name],
  ]) {
    for (const [k, v] of Object.entries(environment ?? {})) if (typeof v === 'string') process.env[k] = v;
  }
  for (const line of readFileSync(stackEnv, 'utf8').split('\n')) {
    const at = line.indexOf('=');
    if (at > 0) process.env[line.slice(0, at)] = line.slice(at + 1);
  }
};
