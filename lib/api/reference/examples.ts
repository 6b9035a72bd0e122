import { sample } from 'openapi-sampler';
import type {
  MediaTypeObject,
  OpenAPIObject,
  OperationObject,
  ParameterObject,
  RequestBodyObject,
  ResponseObject,
} from 'openapi3-ts/oas31';

type Sampleable = Parameters<typeof sample>[0];
type Node = Record<string, unknown>;

/** What the sampler cannot write for a pattern it does not expand well (alternations, `\d{n}`). */
const PATTERN_EXAMPLES: Record<string, string> = {
  '^(0|[1-9][0-9]*)$': '1500000',
  '^\\d{4}-\\d{2}-\\d{2}$': '2026-01-31',
};

/**
 * A copy of the document to sample from: zod writes `z.int()` as bounded by ±2^53-1, which the sampler would
 * show as -9007199254740991, so those bounds go; patterns it cannot expand get their example.
 */
const forSampling = (doc: OpenAPIObject): OpenAPIObject => {
  const copy = structuredClone(doc);
  const visit = (value: unknown) => {
    if (Array.isArray(value)) for (const item of value) visit(item);
    if (typeof value !== 'object' || value === null) return;
    const node = value as Node;
    if (node.minimum === Number.MIN_SAFE_INTEGER) delete node.minimum;
    if (node.maximum === Number.MAX_SAFE_INTEGER) delete node.maximum;
    const known = typeof node.pattern === 'string' ? PATTERN_EXAMPLES[node.pattern] : undefined;
    if (known !== undefined && node.example === undefined) node.example = known;
    for (const child of Object.values(node)) visit(child);
  };
  visit(copy);
  return copy;
};

/** A query value as a contract's example writes it (a string, as in a URL) in its schema's type. */
const typed = (value: unknown, schema: Node): unknown => {
  if (typeof value !== 'string') return value;
  if (schema.type === 'integer' || schema.type === 'number') return Number(value);
  if (schema.type === 'boolean') return value === 'true' || value === '1';
  return value;
};

/**
 * Fill in an example wherever the contracts give none: every parameter, request body and response shows one in
 * the reference page and "Try it out" starts from it. Contracts' own examples (`example` of a contract) win;
 * the rest is sampled from the JSON Schema (formats, enums, patterns) by openapi-sampler, Redoc's sampler.
 * Runs when the document is generated (`npm run generate`), never in a function.
 */
export const addExamples = (doc: OpenAPIObject): OpenAPIObject => {
  const source = forSampling(doc);
  const sampled = (schema: unknown, io: 'request' | 'response') =>
    sample(
      schema as Sampleable,
      {
        enablePatterns: true,
        quiet: true,
        ...(io === 'request' ? { skipReadOnly: true } : { skipWriteOnly: true }),
      },
      source,
    );
  const fill = (media: MediaTypeObject, from: MediaTypeObject | undefined, io: 'request' | 'response') => {
    if (media.example === undefined && media.examples === undefined && from?.schema)
      media.example = sampled(from.schema, io);
  };
  for (const [path, item] of Object.entries(doc.paths ?? {})) {
    for (const [method, op] of Object.entries(item) as Array<[string, OperationObject]>) {
      const twin = source.paths?.[path]?.[method as 'get'] as OperationObject;
      const params = (op.parameters ?? []) as ParameterObject[];
      params.forEach((param, i) => {
        const schema = (param.schema ?? {}) as Node;
        const from = (twin.parameters?.[i] as ParameterObject | undefined)?.schema;
        param.example = param.example === undefined ? sampled(from, 'request') : typed(param.example, schema);
      });
      const body = (op.requestBody as RequestBodyObject | undefined)?.content ?? {};
      const twinBody = (twin.requestBody as RequestBodyObject | undefined)?.content ?? {};
      for (const [type, media] of Object.entries(body)) fill(media, twinBody[type], 'request');
      for (const [status, response] of Object.entries(op.responses ?? {}) as Array<
        [string, ResponseObject]
      >) {
        const twinContent = (twin.responses?.[status] as ResponseObject | undefined)?.content ?? {};
        for (const [type, media] of Object.entries(response.content ?? {}))
          fill(media, twinContent[type], 'response');
      }
    }
  }
  return doc;
};
