// Public surface of the connect domain (Connect with Arcadia, docs/connect.md): code outside lib/connect imports it
// from here only.
import type { Contract } from '../core/contract.js';
import {
  approveConnectContract,
  createOAuthClientContract,
  deleteOAuthClientContract,
  getConnectRequestContract,
  listConnectionsContract,
  listOAuthClientsContract,
  oauthAuthorizeContract,
  oauthTokenContract,
  revokeConnectionContract,
} from './contracts.js';

export { createClient, deleteGameClient, listGameClients } from './clients.js';
export {
  approveConnectContract,
  createOAuthClientContract,
  deleteOAuthClientContract,
  getConnectRequestContract,
  listConnectionsContract,
  listOAuthClientsContract,
  oauthAuthorizeContract,
  oauthTokenContract,
  revokeConnectionContract,
} from './contracts.js';
export {
  approveConnect,
  authorizeRequest,
  connectRequest,
  exchangeToken,
  OAuthError,
} from './flow.js';
export { activeGrantOf } from './grant-reads.js';
export { listConnections, revokeConnection } from './grants.js';
export { ACCESS_TOKEN_TTL_SECONDS, CODE_TTL_MS } from './model.js';
export { AUTHORIZE_HEADERS, refusalPage } from './pages.js';
export { verifyAccessToken } from './tokens.js';

/** The domain's operations in the public API, in the order of the OpenAPI document (lib/api/catalogue.ts). */
export const contracts: readonly Contract[] = [
  listOAuthClientsContract,
  createOAuthClientContract,
  deleteOAuthClientContract,
  oauthAuthorizeContract,
  getConnectRequestContract,
  approveConnectContract,
  oauthTokenContract,
  listConnectionsContract,
  revokeConnectionContract,
];
