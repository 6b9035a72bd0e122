// serverless.yml as resolved by `serverless print` (provider.environment and friends), for benchmarks that run
// handlers or bundles outside serverless offline.
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';

const run = promisify(execFile);

export const PROJECT_ROOT = new URL('../..', import.meta.url).pathname;

export interface ResolvedService {
  provider: { environment?: Record<string, unknown> };
  functions: Record<string, { handler: string; events?: unknown[] }>;
  custom?: { esbuild?: Record<string, unknown> };
}

/** `serverless print --format json`, parsed. */
export async function serverlessPrint(): Promise<ResolvedService> {
  const { stdout } = await run('serverless', ['print', '--format', 'json'], {
    cwd: PROJECT_ROOT,
    timeout: 120_000,
    maxBuffer: 64 * 1024 * 1024,
  });
  return JSON.parse(stdout.slice(stdout.indexOf('{'))) as ResolvedService;
}

/** provider.environment with string values only. */
export function stringEnv(service: ResolvedService): Record<string, string> {
  return Object.fromEntries(
    Object.entries(service.provider.environment ?? {}).filter(
      (entry): entry is [string, string] => typeof entry[1] === 'string',
    ),
  );
}

/**
 * provider.environment with placeholders for the values a deployment supplies (secrets, IdP URLs), so that
 * configuration parsed at import time does not throw. Nothing is contacted at import.
 */
export function placeholderEnv(service: ResolvedService): Record<string, string> {
  const env = stringEnv(service);
  const placeholders: Record<string, string> = {
    IDP_ISSUER: 'https://idp.invalid',
    IDP_AUDIENCE: 'arcadia',
    IDP_JWKS_URL: 'https://idp.invalid/.well-known/jwks.json',
    IDP_API_URL: 'https://idp.invalid/api',
    IDP_APP_ID: 'app',
    IDP_CREDENTIALS_SECRET_ID: 'arcadia-bench-idp-credentials',
    IMAGES_BASE_URL: 'https://images.invalid',
    SOLANA_RPC_URL: 'http://127.0.0.1:1',
    IDP_WALLET_API_URL: 'https://idp.invalid/wallets',
    IDP_SIGNER_ID: 'signer',
    PUBLIC_API_URL: 'https://api.invalid',
  };
  for (const [key, value] of Object.entries(placeholders)) if (!env[key]) env[key] = value;
  return { AWS_REGION: 'us-east-1', AWS_ACCESS_KEY_ID: 'x', AWS_SECRET_ACCESS_KEY: 'x', ...env };
}
