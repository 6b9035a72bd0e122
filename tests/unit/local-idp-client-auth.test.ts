// The local identity provider's client API for email sign-in, driven by the provider's official browser client
// (@privy-io/js-sdk-core) exactly as the console drives it: the stand-in must answer what that client sends, so the
// console's sign-in code is the one that runs against the provider in production.
import Privy, { InMemoryCache } from '@privy-io/js-sdk-core';
import { createRemoteJWKSet, jwtVerify } from 'jose';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CODE_ATTEMPTS, CODES_PER_MINUTE } from '../../scripts/idp/client-auth.js';
import { type LocalIdp, startLocalIdp } from '../../scripts/idp/server.js';
import { LOCAL_APP_ID, LOCAL_APP_SECRET } from '../../scripts/idp/wallets.js';

let idp: LocalIdp;
beforeAll(async () => {
  idp = await startLocalIdp({ port: 0 });
});
afterAll(() => idp.stop());

/** The official client pointed at the stand-in (`baseUrl`: read by the client, absent from its options' type). */
const client = () => {
  const options = { appId: LOCAL_APP_ID, storage: new InMemoryCache(), baseUrl: idp.url };
  return new Privy(options);
};
const inbox = async (email: string): Promise<string> => {
  const res = await fetch(`${idp.url}/local/passwordless/${encodeURIComponent(email)}`);
  expect(res.status).toBe(200);
  return ((await res.json()) as { code: string }).code;
};
const post = (path: string, body: unknown, headers: Record<string, string> = {}) =>
  fetch(`${idp.url}${path}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'privy-app-id': LOCAL_APP_ID, ...headers },
    body: JSON.stringify(body),
  });
const refusal = async (promise: Promise<unknown>) => {
  try {
    await promise;
  } catch (error) {
    return error as { code?: string; status?: number };
  }
  throw new Error('expected a refusal');
};

describe('email sign-in through the official client', () => {
  it('signs a person in with the code sent to their address, with a token the API verifies, and finds them again', async () => {
    const privy = client();
    await privy.auth.email.sendCode('Ann.Smith@Example.com');
    const session = await privy.auth.email.loginWithCode(
      'Ann.Smith@Example.com',
      await inbox('ann.smith@example.com'),
    );
    expect(session.is_new_user).toBe(true);
    expect(session.user.linked_accounts).toEqual(
      expect.arrayContaining([
        expect.objectContaining({ type: 'email', address: 'ann.smith@example.com' }),
        expect.objectContaining({ type: 'wallet', chain_type: 'solana', connector_type: 'embedded' }),
      ]),
    );
    const token = await privy.getAccessToken();
    expect(token).toBe(session.token);
    const { payload } = await jwtVerify(String(token), createRemoteJWKSet(new URL(idp.jwksUrl)), {
      issuer: idp.issuer,
      audience: idp.audience,
    });
    expect(payload.sub).toBe(session.user.id);

    // The same address later, in another browser: the same user, not a new one.
    const again = client();
    await again.auth.email.sendCode('ann.smith@example.com');
    const second = await again.auth.email.loginWithCode(
      'ann.smith@example.com',
      await inbox('ann.smith@example.com'),
    );
    expect(second.user.id).toBe(session.user.id);
    expect(second.is_new_user).toBe(false);
    // …and the user the server API's email lookup finds (the API's `email:` identifiers resolve to it).
    const lookup = await post(
      '/v1/users/email/address',
      { address: 'ann.smith@example.com' },
      { authorization: `Basic ${Buffer.from(`${LOCAL_APP_ID}:${LOCAL_APP_SECRET}`).toString('base64')}` },
    );
    expect(((await lookup.json()) as { id: string }).id).toBe(session.user.id);
  });

  it('signs `<name>@local` in as the local user did:local:<name>, the one `npm run token` makes', async () => {
    const privy = client();
    await privy.auth.email.sendCode('bea@local');
    const session = await privy.auth.email.loginWithCode('bea@local', await inbox('bea@local'));
    expect(session.user.id).toBe('did:local:bea');
    const local = await (await fetch(`${idp.url}/local/users/did:local:bea`)).json();
    expect(local).toMatchObject({ subject: 'did:local:bea', delegated: true });
  });

  it('refuses a wrong code, burns the code after too many wrong ones, and never takes a code twice', async () => {
    const privy = client();
    await privy.auth.email.sendCode('cy@example.com');
    const code = await inbox('cy@example.com');
    const wrong = code === '000000' ? '000001' : '000000';
    expect(await refusal(privy.auth.email.loginWithCode('cy@example.com', wrong))).toMatchObject({
      code: 'invalid_credentials',
      status: 401,
    });
    for (let i = 1; i < CODE_ATTEMPTS; i++)
      await refusal(privy.auth.email.loginWithCode('cy@example.com', wrong));
    expect(await refusal(privy.auth.email.loginWithCode('cy@example.com', code))).toMatchObject({
      code: 'invalid_credentials',
    });

    await privy.auth.email.sendCode('cy@example.com');
    const fresh = await inbox('cy@example.com');
    await privy.auth.email.loginWithCode('cy@example.com', fresh);
    expect(await refusal(client().auth.email.loginWithCode('cy@example.com', fresh))).toMatchObject({
      code: 'invalid_credentials',
    });
  });
});

describe('the client API’s contract', () => {
  it('rotates a refresh token: the new tokens once, then 401', async () => {
    await post('/api/v1/passwordless/init', { email: 'dee@local' });
    const signedIn = (await (
      await post('/api/v1/passwordless/authenticate', { email: 'dee@local', code: await inbox('dee@local') })
    ).json()) as { refresh_token: string; token: string };
    const refreshed = await post('/api/v1/sessions', { refresh_token: signedIn.refresh_token });
    expect(refreshed.status).toBe(200);
    const body = (await refreshed.json()) as {
      token: string;
      refresh_token: string;
      session_update_action: string;
    };
    expect(body.session_update_action).toBe('set');
    expect(body.refresh_token).not.toBe(signedIn.refresh_token);
    const reused = await post('/api/v1/sessions', { refresh_token: signedIn.refresh_token });
    expect(reused.status).toBe(401);
    expect(await reused.json()).toEqual({ error: expect.any(String), code: 'invalid_refresh_token' });
    await post('/api/v1/sessions/logout', { refresh_token: body.refresh_token });
    expect((await post('/api/v1/sessions', { refresh_token: body.refresh_token })).status).toBe(401);
  });

  it('needs the app id, allows the app’s origins only, and answers their preflights', async () => {
    const noApp = await fetch(`${idp.url}/api/v1/passwordless/init`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ email: 'eve@local' }),
    });
    expect(noApp.status).toBe(401);
    expect(await noApp.json()).toMatchObject({ code: 'missing_or_invalid_privy_app_id' });
    expect(
      (await post('/api/v1/passwordless/init', { email: 'eve@local' }, { 'privy-app-id': 'other' })).status,
    ).toBe(401);

    const foreign = await post(
      '/api/v1/passwordless/init',
      { email: 'eve@local' },
      { origin: 'https://evil.example' },
    );
    expect(foreign.status).toBe(403);
    expect(foreign.headers.get('access-control-allow-origin')).toBeNull();
    expect(await foreign.json()).toMatchObject({ code: 'allowlist_rejected' });

    const preflight = await fetch(`${idp.url}/api/v1/passwordless/init`, {
      method: 'OPTIONS',
      headers: {
        origin: 'http://localhost:3000',
        'access-control-request-method': 'POST',
        'access-control-request-headers': 'content-type,privy-app-id,privy-client,privy-ca-id',
      },
    });
    // The client sends every call with credentials: a browser needs the origin itself (not `*`) and
    // Access-Control-Allow-Credentials: true on the preflight and on the answer, refusals included.
    const credentialed = (response: Response) => ({
      status: response.status,
      origin: response.headers.get('access-control-allow-origin'),
      credentials: response.headers.get('access-control-allow-credentials'),
      vary: response.headers.get('vary'),
    });
    const allowedOrigin = { origin: 'http://localhost:3000', credentials: 'true', vary: 'Origin' };
    expect(credentialed(preflight)).toEqual({ status: 204, ...allowedOrigin });
    expect(preflight.headers.get('access-control-allow-headers')).toContain('privy-app-id');
    expect(preflight.headers.get('access-control-allow-methods')).toContain('POST');
    const allowed = await post(
      '/api/v1/passwordless/init',
      { email: 'eve@local' },
      { origin: 'http://localhost:3000' },
    );
    expect(credentialed(allowed)).toEqual({ status: 200, ...allowedOrigin });
    const config = await fetch(`${idp.url}/api/v1/apps/${LOCAL_APP_ID}`, {
      headers: { 'privy-app-id': LOCAL_APP_ID, origin: 'http://127.0.0.1:8093' },
    });
    expect(credentialed(config)).toEqual({ status: 200, ...allowedOrigin, origin: 'http://127.0.0.1:8093' });
    const wrong = await post(
      '/api/v1/passwordless/authenticate',
      { email: 'eve@local', code: '-' },
      { origin: 'http://localhost:3000' },
    );
    expect(credentialed(wrong)).toEqual({ status: 401, ...allowedOrigin });
  });

  it('refuses a malformed address and too many codes to one address (429 with Retry-After)', async () => {
    expect((await post('/api/v1/passwordless/init', { email: 'not an address' })).status).toBe(400);
    expect((await post('/api/v1/passwordless/init', { email: `${'a'.repeat(250)}@x.io` })).status).toBe(400);
    for (let i = 0; i < CODES_PER_MINUTE; i++)
      expect((await post('/api/v1/passwordless/init', { email: 'flo@example.com' })).status).toBe(200);
    const limited = await post('/api/v1/passwordless/init', { email: 'flo@example.com' });
    expect(limited.status).toBe(429);
    expect(Number(limited.headers.get('retry-after'))).toBeGreaterThan(0);
    expect(await limited.json()).toMatchObject({ code: 'too_many_requests' });
  });
});
