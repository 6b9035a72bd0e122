// A serverless plugin of the local stack: gives serverless offline the environment values that are
// CloudFormation expressions (`Ref: SnapshotQueue`, ...) resolved against the local resources, which serverless
// offline cannot do itself (scripts/stack/function-environment.ts explains). Every function then runs offline,
// whatever invokes it (HTTP API, schedule, SQS poller, Step Functions stand-in), with the environment it has when
// deployed. Without the stack's variable (packaging, deployment, a bare `serverless offline`) it does nothing.
import { existsSync, readFileSync } from 'node:fs';
import { setTimeout as sleep } from 'node:timers/promises';

/** Set by scripts/stack (RESOLVED_ENVIRONMENT_FILE_VARIABLE of function-environment.ts). */
const FILE_VARIABLE = 'ARCADIA_RESOLVED_ENVIRONMENT_FILE';
// The stack writes the file once the local resources exist, usually before esbuild has built the functions.
const WAIT_MS = 120_000;

export default class ResolvedEnvironmentPlugin {
  constructor(serverless) {
    const apply = async () => {
      const file = process.env[FILE_VARIABLE];
      if (file) applyResolved(serverless.service, await waitForFile(file));
    };
    // Before serverless offline reads the function definitions. Listed after serverless-esbuild in serverless.yml,
    // so it waits only once the functions are built, by when the stack has usually written the file.
    this.hooks = { 'before:offline:start:init': apply, 'before:offline:start': apply };
  }
}

async function waitForFile(file) {
  const deadline = Date.now() + WAIT_MS;
  while (!existsSync(file)) {
    if (Date.now() > deadline) throw new Error(`${file} was not written within ${WAIT_MS / 1000} s`);
    await sleep(100);
  }
  return JSON.parse(readFileSync(file, 'utf8'));
}

function applyResolved(service, { provider, functions }) {
  service.provider.environment = { ...service.provider.environment, ...provider };
  for (const [key, environment] of Object.entries(functions)) {
    const definition = service.getFunction(key);
    definition.environment = { ...definition.environment, ...environment };
  }
}
