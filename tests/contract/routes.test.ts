import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { contracts } from '../../lib/api/catalogue.js';
import { eventFileOf, renderEvent } from '../../scripts/events.js';

interface FunctionDef {
  handler: string;
  events?: Array<{ httpApi?: string | { method: string; path: string } }>;
}

const read = (file: string) => readFileSync(new URL(`../../${file}`, import.meta.url), 'utf8');
const sls = parse(read('serverless.yml')) as { service: string; functions: string };
// serverless.yml takes its functions from the generated file (scripts/deploy-config.ts).
const included = /^\$\{file\((.+)\)\}$/.exec(sls.functions)?.[1] ?? '';
const config = { service: sls.service, functions: parse(read(included)) as Record<string, FunctionDef> };
const CATCH_ALL = 'notFound';

const kebab = (s: string) => s.replace(/[A-Z]/g, (c) => `-${c.toLowerCase()}`);

describe('serverless.yml (its generated functions) routes and contracts', () => {
  const routes = Object.entries(config.functions).flatMap(([name, fn]) =>
    (fn.events ?? []).flatMap((e) =>
      e.httpApi && typeof e.httpApi === 'object' ? [{ name, ...e.httpApi, handler: fn.handler }] : [],
    ),
  );

  it('gives every contract exactly one route, on the function named after it', () => {
    for (const contract of contracts) {
      const matching = routes.filter((r) => r.method === contract.method && r.path === contract.path);
      expect(matching, `${contract.method} ${contract.path}`).toHaveLength(1);
      expect(matching[0]?.name).toBe(contract.operationId);
    }
  });

  it('has no route without a contract', () => {
    for (const route of routes) {
      expect(
        contracts.some((c) => c.method === route.method && c.path === route.path),
        `${route.method} ${route.path}`,
      ).toBe(true);
    }
  });

  it('names handler files after their operation (functions/<area>/<operation-in-kebab>.handler)', () => {
    for (const contract of contracts) {
      const fn = config.functions[contract.operationId];
      expect(fn?.handler).toMatch(new RegExp(`^functions/[a-z-]+/${kebab(contract.operationId)}\\.handler$`));
    }
  });

  it('answers unknown routes through one catch-all function', () => {
    expect(config.functions[CATCH_ALL]?.events).toEqual([{ httpApi: '*' }]);
  });

  it('keeps every deployed function name within the 64-character Lambda limit', () => {
    for (const name of Object.keys(config.functions)) {
      expect(`${config.service}-production-${name}`.length).toBeLessThanOrEqual(64);
    }
  });

  it('has an up-to-date sample event for every function (run `npm run events` after changing a contract)', () => {
    for (const contract of contracts) {
      const file = eventFileOf(contract);
      expect(
        config.functions[contract.operationId]?.handler
          .replace(/^functions\//, 'events/')
          .replace(/\.handler$/, '.json'),
      ).toBe(file);
      expect(readFileSync(new URL(`../../${file}`, import.meta.url), 'utf8'), file).toBe(
        renderEvent(contract),
      );
    }
  });
});
