// The identity provider's user API, shared by the directory (creating users) and the embedded-wallet reads.
import { requireSetting } from '../core/config.js';

/**
 * A request to `{IDP_API_URL}{path}` with the app's HTTP Basic credentials (IDP_APP_ID:IDP_APP_SECRET) and a
 * 5 s timeout.
 */
export const providerRequest = (fetchImpl: typeof fetch, path: string, init: RequestInit = {}) => {
  const auth = Buffer.from(`${requireSetting('IDP_APP_ID')}:${requireSetting('IDP_APP_SECRET')}`).toString(
    'base64',
  );
  const base = requireSetting('IDP_API_URL').replace(/\/?$/, '/');
  return fetchImpl(new URL(path.replace(/^\//, ''), base), {
    ...init,
    headers: { authorization: `Basic ${auth}`, 'content-type': 'application/json', ...init.headers },
    signal: AbortSignal.timeout(5000),
  });
};
