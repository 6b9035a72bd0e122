// Runs one function on a sample event against the running `npm run dev` stack:
//   npm run invoke -- <functionName> [events/<area>/<operation>.json]
// It does what `serverless invoke local` would; osls's invoke local cannot load the ESM (.mjs) bundles that
// the deployment uses, so this imports the function's TypeScript handler instead, with the environment the
// framework resolves (`serverless print`: the provider's, then the function's own, with CloudFormation references
// resolved by the running stack as serverless offline gets them) plus the stack's endpoints (.data/dev/stack.env).
import { randomUUID } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { loadServerlessConfig } from './stack/config.js';
import { applyDevFunctionEnvironment } from './stack/dev-environment.js';

const [name, eventFile] = process.argv.slice(2);
if (!name) {
  console.error('usage: npm run invoke -- <functionName> [events/<area>/<operation>.json]');
  process.exit(2);
}
const root = resolve(import.meta.dirname, '..');
const config = await loadServerlessConfig(root);
const fn = config.functions?.[name];
if (!fn?.handler) {
  console.error(`no function "${name}" in serverless.yml`);
  process.exit(2);
}
applyDevFunctionEnvironment(root, config, name);
const file = resolve(root, `${fn.handler.replace(/\.[^.]+$/, '')}.ts`);
const event = eventFile ? JSON.parse(readFileSync(resolve(root, eventFile), 'utf8')) : {};
const { handler } = (await import(pathToFileURL(file).href)) as {
  handler: (event: unknown, context: unknown) => Promise<unknown>;
};
// The function's own timeout, counting down as Lambda's does: outbound calls take their budgets from it.
const timeoutSeconds = Number(fn.timeout ?? config.provider?.timeout ?? 6);
const endsAt = Date.now() + timeoutSeconds * 1000;
const context = {
  functionName: `${config.service}-dev-${name}`,
  awsRequestId: randomUUID(),
  getRemainingTimeInMillis: () => Math.max(0, endsAt - Date.now()),
};
console.log(JSON.stringify(await handler(event, context), null, 2));
