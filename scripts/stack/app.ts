// Arcadia's own local services and settings: the identity provider and the configuration handlers read.
import { createHash } from 'node:crypto';
import { join } from 'node:path';
import {
  CreateSecretCommand,
  PutSecretValueCommand,
  ResourceExistsException,
  SecretsManagerClient,
} from '@aws-sdk/client-secrets-manager';
import { startLocalChain } from '../chain/rpc-server.js';
import { startConsoleServer } from '../console/server.js';
import { startDemoServer } from '../demo/server.js';
import { LOCAL_IDP_AUDIENCE, startLocalIdp } from '../idp/server.js';
import { LOCAL_APP_ID, LOCAL_APP_SECRET, LOCAL_AUTHORIZATION_KEY, LOCAL_SIGNER_ID } from '../idp/wallets.js';
import { startLocalPrice } from '../price/server.js';
import { LOCAL_CREDENTIALS } from './resources.js';
import type { StackContext, StackService } from './types.js';

const local = (port: number) => `http://127.0.0.1:${port}`;

/**
 * What a deployer does once per stage (README, Deploy): put the provider's app secret and authorization key in
 * the secret the functions read (IDP_CREDENTIALS_SECRET_ID), here the local provider's.
 */
async function putLocalCredentials(ctx: StackContext): Promise<void> {
  const name = String((await ctx.config).provider.environment?.IDP_CREDENTIALS_SECRET_ID ?? '');
  if (!name) throw new Error('serverless.yml names no IDP_CREDENTIALS_SECRET_ID');
  const SecretString = JSON.stringify({
    appSecret: LOCAL_APP_SECRET,
    authorizationKey: LOCAL_AUTHORIZATION_KEY,
  });
  const client = new SecretsManagerClient({
    region: ctx.region,
    endpoint: local(ctx.ports.secretsManager),
    credentials: LOCAL_CREDENTIALS,
  });
  try {
    await client.send(new CreateSecretCommand({ Name: name, SecretString }));
  } catch (error) {
    if (!(error instanceof ResourceExistsException)) throw error;
    await client.send(new PutSecretValueCommand({ SecretId: name, SecretString }));
  } finally {
    client.destroy();
  }
  // Tests and scripts that call the provider in-process read it as the functions do.
  ctx.env.IDP_CREDENTIALS_SECRET_ID = name;
}

/**
 * The local identity provider: real ES256 tokens and a JWKS, the same verification path as production, and the
 * provider's server API for users and embedded wallets (users created there, signing through the app's signer,
 * with the same headers, authorization signatures, errors and rate limit), reached through the same
 * adapters as in production. With persistence its key and wallets survive restarts.
 */
export const identityProviderService: StackService = {
  name: 'idp',
  after: ['secretsmanager'],
  env: (ports) => ({
    IDP_URL: local(ports.idp),
    IDP_ISSUER: local(ports.idp),
    IDP_AUDIENCE: LOCAL_IDP_AUDIENCE,
    IDP_JWKS_URL: `${local(ports.idp)}/.well-known/jwks.json`,
    IDP_API_URL: local(ports.idp),
    IDP_WALLET_API_URL: local(ports.idp),
    IDP_IMPORT_API_URL: `${local(ports.idp)}/api`,
    IDP_APP_ID: LOCAL_APP_ID,
    IDP_SIGNER_ID: LOCAL_SIGNER_ID,
  }),
  async start(ctx) {
    await putLocalCredentials(ctx);
    const idp = await startLocalIdp({
      port: ctx.ports.idp,
      host: '127.0.0.1',
      ...(ctx.persist ? { dataDir: join(ctx.dataDir, 'idp') } : {}),
    });
    return { urls: { idp: idp.url }, stop: () => idp.stop() };
  },
};

/**
 * What a deployer does once per stage (README, Deploying): put the secrets key in the secret the functions read
 * (SECRETS_KEY_SECRET_ID, created empty by the stack). The local key is derived from a fixed label so that stored
 * secrets stay readable across `npm run dev` restarts; it is for local data only.
 */
async function putLocalSecretsKey(ctx: StackContext): Promise<void> {
  const secret = ctx.provisioned?.secrets.SecretsKeySecret;
  if (!secret) throw new Error('serverless.yml declares no SecretsKeySecret');
  const client = new SecretsManagerClient({
    region: ctx.region,
    endpoint: local(ctx.ports.secretsManager),
    credentials: LOCAL_CREDENTIALS,
  });
  try {
    await client.send(
      new PutSecretValueCommand({
        SecretId: secret.arn,
        SecretString: createHash('sha256').update('arcadia-local-development-only').digest('base64'),
      }),
    );
  } finally {
    client.destroy();
  }
}

/** Settings that production takes from its deployment environment, and the secrets key in its secret. */
export const appSettingsService: StackService = {
  name: 'app-settings',
  after: ['resources'],
  env: () => ({
    SAFE_FETCH_ALLOW_LOOPBACK: 'true',
    // Games on a developer's machine redirect to http://localhost (docs/connect.md).
    CONNECT_LOOPBACK_REDIRECTS: 'true',
    // Webhook retries after 1 s each instead of minutes to hours, and a 2 s deadline per POST (docs/webhooks.md,
    // "Local"), so that the retry schedule and the timeout play out in seconds.
    WEBHOOK_RETRY_SCHEDULE: '1,1,1,1,1,1,1',
    WEBHOOK_TIMEOUT_MS: '2000',
  }),
  async start(ctx) {
    await putLocalSecretsKey(ctx);
    return { stop: async () => {} };
  },
};

/**
 * The SOL/USD price stand-in: the public price feeds' endpoints in their own formats (150 USD until a developer or
 * a test sets another price with `PUT /local/price`), so that the USD figures come through the same code as in
 * production (SSRF-safe fetch, order, staleness, bounds, cache) rather than a fixed price. Only the feeds' URLs
 * change: their order and every other setting keep serverless.yml's defaults.
 */
export const localPriceService: StackService = {
  name: 'price',
  env: (ports) => ({
    SOL_USD_PYTH_URL: local(ports.price),
    SOL_USD_COINBASE_URL: local(ports.price),
    SOL_USD_COINGECKO_URL: `${local(ports.price)}/api/v3`,
  }),
  async start(ctx) {
    const price = await startLocalPrice({ port: ctx.ports.price });
    return { urls: { price: `${price.url}/local/price` }, stop: () => price.stop() };
  },
};

/**
 * The local Solana chain: a JSON-RPC server over litesvm running the real System, SPL Token, Token-2022, ATA
 * and Memo programs. With persistence its accounts survive restarts (`<dataDir>/chain`).
 */
export const localChainService: StackService = {
  name: 'chain',
  env: (ports) => ({ SOLANA_RPC_URL: local(ports.solana) }),
  async start(ctx) {
    const chain = await startLocalChain({
      port: ctx.ports.solana,
      ...(ctx.persist ? { dataDir: ctx.dataDir } : {}),
    });
    return { urls: { solana: chain.url }, stop: () => chain.stop() };
  },
};

/**
 * The demo game (/demo) and the studio backend it needs (sign-in, its game, ranks). It reaches the API only when
 * a page asks, so it starts beside serverless offline.
 */
export const demoService: StackService = {
  name: 'demo',
  env: (ports) => ({ DEMO_URL: `${local(ports.demo)}/demo` }),
  async start(ctx) {
    const demo = await startDemoServer({
      port: ctx.ports.demo,
      apiUrl: local(ctx.ports.api),
      idpUrl: local(ctx.ports.idp),
    });
    return { urls: { demo: `${demo.url}/demo` }, stop: () => demo.stop() };
  },
};

/**
 * The studio console (/console): built from console/ on its first visit, so a stack that never shows it pays
 * nothing. Its local server also signs users in with the local identity provider and relays image uploads.
 */
export const consoleService: StackService = {
  name: 'console',
  env: (ports) => ({
    CONSOLE_URL: `${local(ports.console)}/console/`,
    CONNECT_PAGE_URL: `${local(ports.console)}/console/#/connect`,
  }),
  async start(ctx) {
    const server = await startConsoleServer({
      port: ctx.ports.console,
      apiUrl: local(ctx.ports.api),
      idpUrl: local(ctx.ports.idp),
      s3Url: local(ctx.ports.fauxqs),
      solanaUrl: local(ctx.ports.solana),
    });
    return { urls: { console: `${server.url}/console/` }, stop: () => server.stop() };
  },
};
