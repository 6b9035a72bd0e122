// Writes infra/functions.generated.yml, the `functions:` of serverless.yml (`npm run generate`; `--check` only
// compares). Every HTTP function's handler and route come from its contract (lib/api/catalogue.ts); every function's
// IAM statements and resource environment from the project modules its bundle holds (esbuild, metafile only, with
// serverless.yml's esbuild settings) and what infra/access.ts declares for each; the rest from infra/functions.ts.
import { readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { build } from 'esbuild';
import { Document, isMap, isSeq, parse } from 'yaml';
import {
  accessOf,
  environmentOf,
  type ModuleAccess,
  type RouteFacts,
  statementsOf,
} from '../infra/access.js';
import { type FunctionSettings, HTTP_FUNCTIONS, OTHER_FUNCTIONS } from '../infra/functions.js';
import { contracts } from '../lib/api/catalogue.js';
import type { Contract } from '../lib/core/contract.js';

const ROOT = new URL('../', import.meta.url);
export const GENERATED = 'infra/functions.generated.yml';

const kebab = (s: string) => s.replace(/[A-Z]/g, (c) => `-${c.toLowerCase()}`);
const FUNCTION_FILES = readdirSync(new URL('functions', ROOT), { recursive: true, encoding: 'utf8' })
  .filter((file) => file.endsWith('.ts'))
  .map((file) => `functions/${file}`);

/** functions/<area>/<operation-in-kebab>.ts: exactly one file per contract. */
const handlerOf = (contract: Contract): string => {
  const files = FUNCTION_FILES.filter((file) => file.endsWith(`/${kebab(contract.operationId)}.ts`));
  if (files.length !== 1)
    throw new Error(
      `${contract.operationId}: expected one functions/<area>/${kebab(contract.operationId)}.ts`,
    );
  return `${files[0]?.replace(/\.ts$/, '')}.handler`;
};

interface FunctionPlan {
  name: string;
  handler: string;
  settings: FunctionSettings;
  contract?: Contract;
}

const plans = (): FunctionPlan[] => [
  ...contracts.map((contract) => ({
    name: contract.operationId,
    handler: handlerOf(contract),
    settings: HTTP_FUNCTIONS[contract.operationId] ?? {},
    contract,
  })),
  ...Object.entries(OTHER_FUNCTIONS).map(([name, settings]) => ({
    name,
    handler: settings.handler ?? '',
    settings,
  })),
];

const entryOf = (handler: string) => handler.replace(/\.handler$/, '.ts');

/** serverless.yml's custom.esbuild: the generator bundles as the package does, so it sees the same modules. */
const esbuildSettings = () => {
  const config = parse(readFileSync(new URL('serverless.yml', ROOT), 'utf8')) as {
    custom: {
      esbuild: {
        target: string;
        platform: 'node';
        format: 'esm';
        mainFields: string[];
        alias: Record<string, string>;
        loader: Record<string, 'text'>;
      };
    };
  };
  const { target, platform, format, mainFields, alias, loader } = config.custom.esbuild;
  return { target, platform, format, mainFields, alias, loader };
};

/** The project modules (not node_modules) each entry's bundle holds code of, after tree shaking. */
export const bundledModules = async (entries: string[]): Promise<Map<string, string[]>> => {
  const { metafile } = await build({
    ...esbuildSettings(),
    absWorkingDir: ROOT.pathname,
    entryPoints: entries,
    bundle: true,
    write: false,
    metafile: true,
    minify: true,
    outdir: 'out',
    logLevel: 'error',
  });
  const modules = new Map<string, string[]>();
  for (const output of Object.values(metafile.outputs)) {
    if (!output.entryPoint) continue;
    modules.set(
      output.entryPoint,
      Object.entries(output.inputs)
        .filter(([path, input]) => input.bytesInOutput > 0 && !path.includes('node_modules/'))
        .map(([path]) => path)
        .sort(),
    );
  }
  return modules;
};

const sources = new Map<string, string>();
const sourceOf = (path: string) => {
  if (!sources.has(path)) sources.set(path, readFileSync(new URL(path, ROOT), 'utf8'));
  return sources.get(path) ?? '';
};

const routeFacts = (contract: Contract | undefined): RouteFacts | undefined =>
  contract && { signedWrite: contract.auth.includes('hmac') && contract.method !== 'GET' };

/** The grants and environment a function's modules declare, and the undeclared modules that reach AWS. */
export const accessOfModules = (modules: string[]) => {
  const accesses: ModuleAccess[] = [];
  const undeclared: string[] = [];
  for (const path of modules) {
    const found = accessOf(path, sourceOf(path));
    accesses.push(found.access);
    if (found.undeclared) undeclared.push(path);
  }
  return { accesses, undeclared };
};

const definitionOf = (plan: FunctionPlan, modules: string[]) => {
  const { comment: _comment, handler: _handler, events, ...settings } = plan.settings;
  const { accesses, undeclared } = accessOfModules(modules);
  // Lambda sends an asynchronous invocation's failure record with the function's own role.
  if (settings.destinations)
    accesses.push({ grants: [{ resource: 'AsyncFailureQueue', actions: ['sqs:SendMessage'] }] });
  const environment = environmentOf(accesses);
  const httpEvents = plan.contract
    ? [{ httpApi: { method: plan.contract.method, path: plan.contract.path } }]
    : events;
  return {
    definition: {
      handler: plan.handler,
      ...settings,
      ...(httpEvents ? { events: httpEvents } : {}),
      ...(Object.keys(environment).length ? { environment } : {}),
      // Every function has the key, even empty: without it, it would fall back to the framework's shared role.
      iamRoleStatements: statementsOf(accesses, routeFacts(plan.contract)),
    },
    undeclared,
  };
};

const commentOf = (plan: FunctionPlan, modules: string[]) => {
  const lines: string[] = [];
  if (plan.contract) {
    const auth = plan.contract.auth.length ? plan.contract.auth.join(' or ') : 'public';
    lines.push(`${plan.contract.method} ${plan.contract.path}: ${plan.contract.summary} (auth: ${auth})`);
  }
  if (plan.settings.comment) lines.push(...plan.settings.comment.split('\n'));
  const granting = modules.filter(
    (path) => statementsOf([accessOf(path, sourceOf(path)).access], routeFacts(plan.contract)).length,
  );
  if (granting.length) lines.push(`grants from: ${granting.join(', ')}`);
  return lines.map((line) => `# ${line}`.trimEnd()).join('\n');
};

/** One function's YAML: one line per statement, event and CloudFormation value, as the hand-written file had. */
const toYaml = (name: string, definition: object): string => {
  const yaml = new Document({ [name]: definition }, { aliasDuplicateObjects: false });
  for (const key of ['iamRoleStatements', 'events']) {
    const seq = yaml.getIn([name, key]);
    if (isSeq(seq)) for (const item of seq.items) if (isMap(item)) item.flow = true;
  }
  const environment = yaml.getIn([name, 'environment']);
  if (isMap(environment)) for (const pair of environment.items) if (isMap(pair.value)) pair.value.flow = true;
  return yaml.toString({ lineWidth: 0 });
};

const HEADER = `# Generated by \`npm run generate\` (scripts/deploy-config.ts): do not edit. serverless.yml includes it as its
# \`functions:\`. Routes come from the contracts (lib/api/catalogue.ts; auth is enforced in code, by lib/http/route.ts),
# IAM statements and resource environment from the modules each function's bundle holds (infra/access.ts), the
# rest from infra/functions.ts. \`npm run lint\` fails when this file is stale.
`;

/** The generated file's text, and the bundled modules that reach AWS without a declaration in infra/access.ts. */
export const renderDeployConfig = async (): Promise<{ text: string; undeclared: string[] }> => {
  const all = plans();
  const modules = await bundledModules(all.map((plan) => entryOf(plan.handler)));
  const undeclared = new Set<string>();
  const chunks = all.map((plan) => {
    const bundled = modules.get(entryOf(plan.handler)) ?? [];
    const { definition, undeclared: missing } = definitionOf(plan, bundled);
    for (const path of missing) undeclared.add(path);
    const yaml = toYaml(plan.name, definition);
    return `${commentOf(plan, bundled)}\n${yaml}`;
  });
  return { text: `${HEADER}\n${chunks.join('\n')}`, undeclared: [...undeclared].sort() };
};

if (import.meta.url === `file://${process.argv[1]}`) {
  const { text, undeclared } = await renderDeployConfig();
  for (const path of undeclared)
    console.warn(`${path} reaches AWS but infra/access.ts does not declare it: granted its domain's table`);
  const file = new URL(GENERATED, ROOT);
  if (process.argv.includes('--check')) {
    if (readFileSync(file, 'utf8') !== text) {
      console.error(`${GENERATED} is stale: run \`npm run generate\``);
      process.exit(1);
    }
    // A module that reaches AWS must be declared, even when the fallback happens to grant what it needs.
    if (undeclared.length) process.exit(1);
  } else {
    writeFileSync(file, text);
    console.log(`${GENERATED} written`);
  }
}
