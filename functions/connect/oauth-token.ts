import { exchangeToken, OAuthError, oauthTokenContract } from '../../lib/connect/index.js';
import { now } from '../../lib/core/time.js';
import { respond } from '../../lib/http/response.js';
import { route } from '../../lib/http/route.js';

// RFC 6749 §5.1: token answers are never cached.
const NO_STORE = { 'cache-control': 'no-store', pragma: 'no-cache' };

export const handler = route(oauthTokenContract, async ({ body }) => {
  try {
    return respond(200, await exchangeToken(body, now()), NO_STORE);
  } catch (error) {
    // OAuth clients read `{error, error_description}` (RFC 6749 §5.2), not the API's error body.
    if (!(error instanceof OAuthError)) throw error;
    // Documented as the contract's `alsoAnswers` 400; the response schema describes the 200 only.
    return respond<never>(
      error.error === 'invalid_client' ? 401 : 400,
      { error: error.error, error_description: error.description } as never,
      NO_STORE,
    );
  }
});
