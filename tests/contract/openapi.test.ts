import { readFileSync } from 'node:fs';
import { Validator } from '@seriousme/openapi-schema-validator';
import { describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { contracts } from '../../lib/api/catalogue.js';
import { openApiDocument } from '../../lib/api/reference/document.js';
import { OPENAPI_JSON } from '../../lib/api/reference/openapi-json.generated.js';
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

describe('the document for integrators', () => {
  interface Media {
    example?: unknown;
    examples?: Record<string, unknown>;
  }
  interface Response {
    headers?: Record<string, unknown>;
    content?: Record<string, Media>;
  }
  interface Operation {
    operationId: string;
    tags: string[];
    parameters: Array<{ name: string; example?: unknown }>;
    requestBody?: { content: Record<string, Media> };
    responses: Record<string, Response>;
  }
  const doc = openApiDocument() as {
    info: { license?: { name: string } };
    servers?: Array<{ url: string }>;
    tags?: Array<{ name: string; description?: string }>;
    paths: Record<string, Record<string, Operation>>;
    components: { headers?: Record<string, unknown> };
  };
  const operations = Object.values(doc.paths).flatMap((item) => Object.values(item));

  it('names its servers, licence and tags, each tag described', () => {
    expect(doc.servers?.length).toBeGreaterThan(0);
    expect(doc.info.license?.name).toBeTruthy();
    const declared = new Map((doc.tags ?? []).map((t) => [t.name, t.description]));
    for (const op of operations) for (const tag of op.tags) expect(declared.get(tag), tag).toBeTruthy();
  });

  it('has an example for every parameter, request body and response', () => {
    for (const op of operations) {
      for (const param of op.parameters)
        expect(param.example, `${op.operationId} ${param.name}`).toBeDefined();
      for (const [type, media] of Object.entries(op.requestBody?.content ?? {}))
        expect(media.example ?? media.examples, `${op.operationId} request ${type}`).toBeDefined();
      for (const [status, response] of Object.entries(op.responses))
        for (const media of Object.values(response.content ?? {}))
          expect(media.example ?? media.examples, `${op.operationId} ${status}`).toBeDefined();
    }
  });

  it('declares x-request-id on every response, RateLimit-* on successes and Retry-After on 429', () => {
    for (const op of operations) {
      for (const [status, response] of Object.entries(op.responses)) {
        const headers = Object.keys(response.headers ?? {});
        expect(headers, `${op.operationId} ${status}`).toContain('x-request-id');
        if (status.startsWith('2') || status === '429')
          expect(headers).toEqual(
            expect.arrayContaining(['RateLimit-Limit', 'RateLimit-Remaining', 'RateLimit-Reset']),
          );
        if (status === '429') expect(headers).toContain('Retry-After');
      }
      expect(Object.keys(op.responses), op.operationId).toContain('429');
    }
  });

  it('documents 413 and 415 on every operation that takes a body, and purchaseMultiplier’s 202', () => {
    for (const contract of contracts.filter((c) => c.body)) {
      const op = operations.find((o) => o.operationId === contract.operationId);
      expect(Object.keys(op?.responses ?? {}), contract.operationId).toEqual(
        expect.arrayContaining(['413', '415']),
      );
    }
    expect(
      Object.keys(operations.find((o) => o.operationId === 'purchaseMultiplier')?.responses ?? {}),
    ).toEqual(expect.arrayContaining(['200', '202']));
  });
});
