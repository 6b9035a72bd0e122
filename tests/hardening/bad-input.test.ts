import { randomUUID } from 'node:crypto';
import fc from 'fast-check';
import { beforeAll, describe, expect, it } from 'vitest';
import { contracts } from '../../lib/api/catalogue.js';
import type { Contract } from '../../lib/core/contract.js';
import { functionsConfig } from '../helpers/deploy-config.js';
import { type Handler, invoke } from '../helpers/http.js';
import { idpToken } from '../helpers/idp.js';
import { createDeveloper, type Developer, hmacHeaders } from '../helpers/users.js';

// Property-based bad input for every operation of the API: malformed, oversized, wrongly typed and boundary
// values in path, query and body, sent with valid credentials so validation (not auth) is what answers.
// Invariant: never a 5xx, always the standard error body for 4xx.

const functions = functionsConfig();

const handlerOf = async (contract: Contract): Promise<Handler> => {
  const file = functions[contract.operationId]?.handler.replace(/\.handler$/, '.ts');
  if (!file) throw new Error(`no function for ${contract.operationId}`);
  return ((await import(/* @vite-ignore */ `../../${file}`)) as { handler: Handler }).handler;
};

const weird = fc.oneof(
  fc.string(),
  fc.string({ unit: 'grapheme', maxLength: 50 }),
  fc.constantFrom(
    '',
    ' ',
    '0',
    '-1',
    '1e309',
    'NaN',
    'null',
    'true',
    '../../etc/passwd',
    '%00',
    "' OR 1=1 --",
    '<script>',
  ),
  fc.string({ minLength: 3000, maxLength: 5000 }),
  fc.uuid().map(String),
);
const jsonValue = fc.oneof(
  fc.anything({ maxDepth: 3 }),
  fc.dictionary(
    fc.constantFrom(
      'gameId',
      'entries',
      'ids',
      'tokenIds',
      'emissionDays',
      'seq',
      'head',
      'name',
      'points',
      'playerId',
      'sessionIds',
      'tier',
    ),
    fc.anything({ maxDepth: 2 }),
  ),
);

let dev: Developer;
let bearer: string;
beforeAll(async () => {
  dev = await createDeveloper();
  bearer = await idpToken(`fuzz-${randomUUID().slice(0, 8)}`);
});

const credentials = (contract: Contract, path: string, skew: number): Record<string, string> => {
  if (contract.auth.includes('hmac'))
    return hmacHeaders(dev, contract.method, path, { timestamp: Date.now() - skew });
  if (contract.auth.includes('bearer')) return { authorization: `Bearer ${bearer}` };
  return {};
};

describe('bad input never yields a 5xx', () => {
  const runs = Number(process.env.FUZZ_RUNS ?? 12);
  // The reference page inlines Swagger UI with an esbuild text import that vitest cannot load; it takes no
  // input anyway and is exercised through serverless offline in tests/http.
  for (const contract of contracts.filter((c) => c.operationId !== 'apiReference')) {
    it(`${contract.method} ${contract.path}`, async () => {
      const handler = await handlerOf(contract);
      const paramNames = [...contract.path.matchAll(/\{([^}]+)\}/g)].map((m) => m[1] ?? '');
      let skew = 0;
      await fc.assert(
        fc.asyncProperty(
          fc.tuple(...paramNames.map(() => weird)),
          fc.dictionary(fc.string({ maxLength: 20 }), fc.string({ maxLength: 200 })),
          jsonValue,
          fc.boolean(),
          async (params, query, body, rawGarbage) => {
            const pathParameters = Object.fromEntries(paramNames.map((name, i) => [name, params[i] ?? '']));
            const path = contract.path.replace(/\{([^}]+)\}/g, (_, n: string) =>
              encodeURIComponent(pathParameters[n] ?? ''),
            );
            skew += 1000;
            const res = await invoke(handler, {
              method: contract.method,
              path,
              pathParameters,
              query,
              headers: { ...credentials(contract, path, skew % 200_000), 'content-type': 'application/json' },
              ...(contract.method === 'GET' ? {} : rawGarbage ? { rawBody: '{"unterminated": [' } : { body }),
            });
            expect(res.status, `${res.status} ${res.text.slice(0, 300)}`).toBeLessThan(500);
            if (res.status >= 400) {
              expect(res.body).toMatchObject({
                error: {
                  code: expect.any(String),
                  message: expect.any(String),
                  requestId: expect.any(String),
                },
              });
            }
          },
        ),
        { numRuns: runs },
      );
    }, 120_000);
  }
});
