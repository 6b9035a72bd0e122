import {
  AUTHORIZE_HEADERS,
  authorizeRequest,
  oauthAuthorizeContract,
  refusalPage,
} from '../../lib/connect/index.js';
import { respond } from '../../lib/http/response.js';
import { route } from '../../lib/http/route.js';

export const handler = route(oauthAuthorizeContract, async ({ query }) => {
  const outcome = await authorizeRequest(query);
  if (outcome.kind === 'refuse') return respond(400, refusalPage(outcome.message), AUTHORIZE_HEADERS);
  return respond(302, '', { ...AUTHORIZE_HEADERS, location: outcome.location });
});
