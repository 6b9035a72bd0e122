// Writes a sample API Gateway event for every contract into events/ (`npm run events`), for
// `serverless invoke local -f <fn> -p events/<area>/<operation>.json`. A test fails when a file is stale.
import { mkdirSync, writeFileSync } from 'node:fs';
import { dirname } from 'node:path';
import { contracts } from '../lib/api/catalogue.js';
import type { Contract } from '../lib/core/contract.js';

const kebab = (s: string) => s.replace(/[A-Z]/g, (c) => `-${c.toLowerCase()}`);

/** The area folder of a contract: its first tag, slugged ("Play (developer)" → "play-developer"). */
export const areaOf = (contract: Contract): string =>
  (contract.tags[0] ?? 'misc')
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, '-')
    .replace(/^-|-$/g, '');

/** The events/ file of a contract, relative to the project root. */
export const eventFileOf = (contract: Contract): string =>
  `events/${areaOf(contract)}/${kebab(contract.operationId)}.json`;

/** A payload 2.0 event for the contract's example request. */
export const sampleEvent = (contract: Contract) => {
  const params = contract.example?.params ?? {};
  const query = contract.example?.query ?? {};
  const path = contract.path.replace(/\{([^}]+)\}/g, (_, name: string) => params[name] ?? `sample-${name}`);
  const body = contract.example?.body;
  const auth = contract.auth.includes('hmac')
    ? {
        authorization:
          'HMAC-SHA256 apiKey=<api key>, signature=<from POST /user/hmac-signature>, timestamp=<unix ms>',
        'x-auth-provider': 'hmac',
      }
    : contract.auth.length
      ? { authorization: 'Bearer <token from `npm run token -- alice`>' }
      : {};
  return {
    version: '2.0',
    routeKey: `${contract.method} ${contract.path}`,
    rawPath: path,
    rawQueryString: new URLSearchParams(query).toString(),
    headers: { ...(body === undefined ? {} : { 'content-type': 'application/json' }), ...auth },
    ...(Object.keys(query).length ? { queryStringParameters: query } : {}),
    ...(Object.keys(params).length ? { pathParameters: params } : {}),
    requestContext: {
      http: {
        method: contract.method,
        path,
        protocol: 'HTTP/1.1',
        sourceIp: '127.0.0.1',
        userAgent: 'sample',
      },
      requestId: 'sample-request-id',
      routeKey: `${contract.method} ${contract.path}`,
      stage: '$default',
    },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    isBase64Encoded: false,
  };
};

export const renderEvent = (contract: Contract): string =>
  `${JSON.stringify(sampleEvent(contract), null, 2)}\n`;

if (import.meta.url === `file://${process.argv[1]}`) {
  for (const contract of contracts) {
    const file = new URL(`../${eventFileOf(contract)}`, import.meta.url);
    mkdirSync(dirname(file.pathname), { recursive: true });
    writeFileSync(file, renderEvent(contract));
  }
  console.log(`${contracts.length} sample events written`);
}
