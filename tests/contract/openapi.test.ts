import { readFileSync } from 'node:fs';
import { Validator } from '@seriousme/openapi-schema-validator';
import { describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { contracts } from '../../lib/http/api.js';
import { openApiDocument } from '../../lib/http/reference/document.js';
import { OPENAPI_JSON } from '../../lib/http/reference/openapi-json.generated.js';
import { OPENAPI_JSON_MODULE, renderOpenApiJsonModule, renderOpenApiYaml } from '../../scripts/openapi.js';

const committed = readFileSync(new URL('../../openapi.yaml', import.meta.url), 'utf8');

describe('openapi.yaml', () => {
  it('is in sync with the contracts (run `npm run openapi` after changing one)', () => {
    expect(committed).toBe(renderOpenApiYaml());
  });

  it('is served by GET /api-reference-json from a generated module in sync with it (`npm run generate`)', () => {
    expect(readFileSync(new URL(`../../${OPENAPI_JSON_MODULE}`, import.meta.url), 'utf8')).toBe(
      renderOpenApiJsonModule(),
    );
    // The exact bytes the function sends: the document built from the contracts, serialized once.
    expect(OPENAPI_JSON).toBe(JSON.stringify(openApiDocument()));
    expect(JSON.parse(OPENAPI_JSON)).toEqual(parse(committed));
  });

  it('is a valid OpenAPI 3.1 document', async () => {
    const validator = new Validator();
    const result = await validator.validate(parse(committed));
    expect(result.errors ?? []).toEqual([]);
    expect(result.valid).toBe(true);
    expect(validator.version).toBe('3.1');
  });

  it('documents every contract exactly once, with its security and error responses', () => {
    const doc = openApiDocument() as {
      paths: Record<
        string,
        Record<string, { operationId: string; security: unknown[]; responses: Record<string, unknown> }>
      >;
    };
    const ops = Object.entries(doc.paths).flatMap(([path, methods]) =>
      Object.entries(methods).map(([method, op]) => ({ path, method: method.toUpperCase(), op })),
    );
    expect(ops.map((o) => o.op.operationId).sort()).toEqual(contracts.map((c) => c.operationId).sort());
    for (const contract of contracts) {
      const found = ops.find((o) => o.op.operationId === contract.operationId);
      expect(found?.path).toBe(contract.path);
      expect(found?.method).toBe(contract.method);
      expect(found?.op.security).toHaveLength(contract.auth.length);
      if (contract.auth.length) expect(found?.op.responses).toHaveProperty('401');
      for (const code of contract.errors) expect(JSON.stringify(found?.op.responses)).toContain(code);
    }
  });
});
