import {
  type OpenAPIObject,
  OpenApiBuilder,
  type OperationObject,
  type ParameterObject,
} from 'openapi3-ts/oas31';
import * as z from 'zod/mini';
import type { Contract } from '../../core/contract.js';
import { errorBodySchema } from '../../core/schemas.js';
import { SCOPES } from '../../core/scopes.js';
import { EVENT_SUMMARIES, eventSchema, WEBHOOK_EVENT_TYPES } from '../../outbox/index.js';
import { addExamples } from './examples.js';
import { errorExamples, errorResponses, HEADERS, successResponses } from './responses.js';

type JsonSchema = Record<string, unknown>;

const SECURITY_SCHEMES = {
  hmac: {
    type: 'apiKey',
    in: 'header',
    name: 'Authorization',
    description:
      '`HMAC-SHA256 apiKey=<uuid>, signature=<hex>, timestamp=<unix ms>` (commas optional) plus header ' +
      '`x-auth-provider: hmac`. signature = lowercase hex HMAC-SHA256(secretKey, lower(method) + "\\n" + ' +
      'lower(path) + "\\n" + timestamp [+ "\\n" + x-content-sha256]). Timestamps must be within 5 minutes. ' +
      'A non-GET request is accepted once: a second request with the same signature and the same body is a ' +
      '401 replay, while requests with different bodies signed in the same millisecond are all accepted. ' +
      'Without `x-content-sha256` the signature does not cover the body, so whoever sees it could send another ' +
      'body with it until it expires: send `x-content-sha256: <hex sha256 of the raw body>` (and sign it) so ' +
      'that the signature covers the body and is accepted once, whatever the body.',
  },
  bearer: {
    type: 'http',
    scheme: 'bearer',
    bearerFormat: 'JWT',
    description:
      'Identity-provider access token (ES256 JWT). Developer operations (games, Play (developer)) accept it as ' +
      "an alternative to HMAC, with the same rules: the token's user must be the game's creator or owner.",
  },
  session: {
    type: 'http',
    scheme: 'bearer',
    bearerFormat: 'JWT',
    description:
      'Player session token from GET /play/session-token. It carries the scopes of the token that opened it (a ' +
      "grant's, or all of them for the player's own identity token; a game's own JWT never spends) and speaks for " +
      'its game only: elsewhere, 403 INSUFFICIENT_SCOPE.',
  },
  grant: {
    type: 'oauth2',
    description:
      "Connect with Arcadia (docs/connect.md): a game-scoped access token of a player's grant, from the " +
      'authorization code flow with PKCE (S256). It names one player, one game and the scopes the player ' +
      'approved; a route it may call lists the scope it needs, and every other route answers 403 ' +
      'INSUFFICIENT_SCOPE. Public clients: no client secret.',
    flows: {
      authorizationCode: {
        authorizationUrl: '/oauth/authorize',
        tokenUrl: '/oauth/token',
        refreshUrl: '/oauth/token',
        scopes: SCOPES,
      },
    },
  },
} as const;

/** Relative: the deployment (or `npm run dev`'s http://localhost:3000) that serves this document. */
const SERVERS = [{ url: '/', description: 'The deployment serving this document' }];

/** Top-level tags, in the order the reference page lists them; every contract's tag must be here. */
const TAGS = [
  { name: 'User', description: 'The caller: profile, stats, API keys and HMAC signatures' },
  {
    name: 'Connect',
    description:
      'Connect with Arcadia: a game acts for a player only through a grant the player gave it (OAuth 2 ' +
      'authorization code with PKCE, game-scoped tokens; docs/connect.md)',
  },
  { name: 'Games', description: 'Register, update and look up games' },
  {
    name: 'Play (developer)',
    description: "A game's server: save points, leaderboards, sessions (HMAC or bearer)",
  },
  { name: 'Play', description: "A player's client: signed sessions, hash-chained flushes and commits" },
  { name: 'Rewards', description: 'Multipliers and rewards pools' },
  { name: 'Launcher', description: "Launch a game's coin on Solana" },
  { name: 'Snapshots', description: 'Airdrop snapshots, merkle proofs and claims' },
  { name: 'Webhooks', description: "Signed events of a game's changes, POSTed to the studio's endpoints" },
  {
    name: 'Tournaments',
    description:
      'Scheduled boards with periods, entrants, attempts and prize tables; players join and read them',
  },
  { name: 'Insights', description: "A game's daily figures and retention, for its studio" },
  { name: 'Reference', description: 'This document and the interactive page' },
];

/** What a receiver sees: one POST per event, signed per Standard Webhooks (docs/webhooks.md). */
const WEBHOOK_HEADERS = [
  ['webhook-id', 'The event id: the same on every attempt, deduplicate on it'],
  ['webhook-timestamp', 'Unix seconds of this attempt (refuse one more than 5 minutes away)'],
  ['webhook-signature', 'Space-separated `v1,<base64 HMAC-SHA256>` signatures, one per valid secret'],
] as const;

/** The OpenAPI 3.1 `webhooks` object: one entry per event type, its payload a component schema. */
const webhookObjects = (components: Record<string, JsonSchema>) =>
  Object.fromEntries(
    WEBHOOK_EVENT_TYPES.map((type) => [
      type,
      {
        post: {
          operationId: `webhook_${type.replace('.', '_')}`,
          tags: ['Webhooks'],
          summary: type,
          description: `${EVENT_SUMMARIES[type]} Answer 2xx within the deadline; anything else is retried.`,
          parameters: WEBHOOK_HEADERS.map(([name, description]) => ({
            name,
            in: 'header' as const,
            required: true,
            description,
            schema: { type: 'string' as const },
          })),
          requestBody: {
            required: true,
            content: { 'application/json': { schema: toSchema(eventSchema(type), 'output', components) } },
          },
          // The receiver authenticates the sender by the signature headers, not by an API security scheme.
          security: [],
          responses: { '200': { description: 'Received (any 2xx)' } },
        },
      },
    ]),
  );

/** Convert a zod schema, hoisting named (`.meta({ id })`) schemas into components. */
const toSchema = (
  schema: z.core.$ZodType,
  io: 'input' | 'output',
  components: Record<string, JsonSchema>,
): JsonSchema => {
  const json = z.toJSONSchema(schema, { io, unrepresentable: 'any', target: 'draft-2020-12' }) as JsonSchema;
  const defs = (json.$defs ?? {}) as Record<string, JsonSchema>;
  delete json.$defs;
  delete json.$schema;
  const rewrite = (value: JsonSchema) =>
    JSON.parse(JSON.stringify(value).replaceAll('"#/$defs/', '"#/components/schemas/')) as JsonSchema;
  for (const [name, def] of Object.entries(defs)) components[name] = rewrite(def);
  return rewrite(json);
};

const objectShape = (schema: z.core.$ZodType | undefined): Record<string, z.core.$ZodType> => {
  if (!schema) return {};
  // By its def, not `instanceof z.core.$ZodObject`: touching the `core` namespace at run time bundles all of it.
  const def = schema._zod.def as { type: string; shape?: Record<string, z.core.$ZodType> };
  if (def.type === 'object' && def.shape) return def.shape;
  throw new Error('path and query contracts must be zod objects');
};

const parameters = (contract: Contract, components: Record<string, JsonSchema>): ParameterObject[] => {
  const build = (where: 'path' | 'query', schema: z.core.$ZodType | undefined) =>
    Object.entries(objectShape(schema)).map(([name, field]) => {
      const json = toSchema(field, 'input', components);
      const description = typeof json.description === 'string' ? json.description : undefined;
      const example = contract.example?.[where === 'path' ? 'params' : 'query']?.[name];
      return {
        name,
        in: where,
        required: where === 'path' || !z.safeParse(field, undefined).success,
        ...(description ? { description } : {}),
        schema: json,
        ...(example !== undefined ? { example } : {}),
      } satisfies ParameterObject;
    });
  return [...build('path', contract.params), ...build('query', contract.query)];
};

const operation = (contract: Contract, components: Record<string, JsonSchema>): OperationObject => {
  const op: OperationObject = {
    operationId: contract.operationId,
    tags: contract.tags,
    summary: contract.summary,
    ...(contract.description ? { description: contract.description } : {}),
    parameters: parameters(contract, components),
    // Game-scoped schemes (session, grant) list the scope the route needs (docs/connect.md).
    security: contract.auth.map((scheme) => ({
      [scheme]: (scheme === 'session' || scheme === 'grant') && contract.scope ? [contract.scope] : [],
    })),
    responses: {
      ...successResponses(
        contract,
        contract.responseMediaType
          ? { [contract.responseMediaType]: { schema: { type: 'string' } } }
          : { 'application/json': { schema: toSchema(contract.response, 'output', components) } },
      ),
      ...errorResponses(contract),
    },
  };
  if (contract.rateLimit) {
    op['x-rate-limit'] = contract.rateLimit;
  }
  if (contract.body) {
    const schema = toSchema(contract.body, 'input', components);
    const types = contract.bodyMediaTypes ?? ['application/json'];
    const example = contract.example?.body;
    op.requestBody = {
      required: true,
      content: Object.fromEntries(types.map((t) => [t, { schema, ...(example ? { example } : {}) }])),
    };
  }
  return op;
};

/** Build the OpenAPI 3.1 document of the whole API from its contracts. */
export const buildOpenApi = (contracts: readonly Contract[]): OpenAPIObject => {
  const components: Record<string, JsonSchema> = {};
  const builder = OpenApiBuilder.create({
    openapi: '3.1.0',
    info: {
      title: 'Arcadia API',
      version: '0.1.0',
      description:
        'Game platform API: games, player points, multipliers, rewards pools and the game coin launcher. ' +
        'Success bodies are `{"data": …}` (lists add `meta`); errors are `{"error": {code, message, details, ' +
        'requestId}}`. Every response carries `x-request-id`; rate-limited routes carry `RateLimit-Limit`, ' +
        '`RateLimit-Remaining`, `RateLimit-Reset`, and a 429 also `Retry-After`. HMAC requests can be signed ' +
        'and sent from the reference page (`/api-reference`) with an API key and secret entered there.',
      license: { name: 'Proprietary', identifier: 'LicenseRef-Proprietary' },
    },
    servers: SERVERS,
    tags: TAGS,
    paths: {},
  });
  toSchema(errorBodySchema, 'output', components); // registers components.schemas.Error
  for (const [name, scheme] of Object.entries(SECURITY_SCHEMES))
    builder.addSecurityScheme(name, { ...scheme });
  const sorted = [...contracts].sort(
    (a, b) => a.path.localeCompare(b.path) || a.method.localeCompare(b.method),
  );
  for (const contract of sorted) {
    const path = builder.getSpec().paths?.[contract.path] ?? {};
    builder.addPath(contract.path, {
      ...path,
      [contract.method.toLowerCase()]: operation(contract, components),
    });
  }
  const webhooks = webhookObjects(components);
  for (const [name, schema] of Object.entries(components)) builder.addSchema(name, schema);
  for (const [name, header] of Object.entries(HEADERS)) builder.addHeader(name, header);
  for (const [name, example] of Object.entries(errorExamples())) builder.addExample(name, example);
  const used = new Set(contracts.flatMap((c) => c.tags));
  const undeclared = [...used].filter((tag) => !TAGS.some((t) => t.name === tag));
  if (undeclared.length) throw new Error(`tags without a description in TAGS: ${undeclared.join(', ')}`);
  return addExamples({ ...builder.getSpec(), webhooks });
};
