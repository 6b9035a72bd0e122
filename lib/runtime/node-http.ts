// Build-time stand-in for `node:http` (esbuild `alias` in serverless.yml custom.esbuild).
//
// Node 22 builds the ESM facade of a built-in by reading every export, and `node:http`'s WebSocket,
// EventSource and MessageEvent exports are getters that load undici: importing `node:http` from ESM costs
// ~25 ms of cold start, `require('node:http')` ~4 ms. The bundles are ESM and @middy/util and the AWS SDK
// import it, so every function paid that. This module requires it instead and re-exports what is used;
// a name that is not listed here fails the build ("No matching export"), never the Lambda.
import { createRequire } from 'node:module';

type Http = typeof import('node:http');
const http = createRequire(import.meta.url)('node:http') as Http;

export default http;
export const {
  Agent,
  ClientRequest,
  IncomingMessage,
  METHODS,
  OutgoingMessage,
  STATUS_CODES,
  Server,
  ServerResponse,
  createServer,
  get,
  globalAgent,
  request,
  validateHeaderName,
  validateHeaderValue,
} = http;
