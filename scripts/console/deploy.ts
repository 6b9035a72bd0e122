// `npm run deploy:console -- --stage <stage> --api-url <https://…> [--cluster devnet] [--rpc-url <https://…>]`:
// builds the studio console (console/) and uploads it to the stage's console bucket (serverless.yml ConsoleBucket,
// served by ConsoleDistribution), with the config.json that points it at the stage's API, explorer, chain RPC (the
// browser verifies payout runs with it; default: the cluster's public RPC) and identity-provider app
// (IDP_APP_ID, as for the deploy; the console's origin must be among the app's allowed domains). Run it after
// `serverless deploy`, with the deployer's AWS credentials and ARCADIA_BUCKET_SUFFIX as for the deploy.
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { S3Objects } from '../../lib/adapters/s3.js';

const { values } = parseArgs({
  options: {
    stage: { type: 'string', default: 'dev' },
    'api-url': { type: 'string' },
    cluster: { type: 'string' },
    'rpc-url': { type: 'string' },
  },
});
const apiUrl = values['api-url'];
if (!apiUrl) throw new Error('--api-url is required (the stage API, e.g. https://abc.execute-api.…/)');

const idpAppId = process.env.IDP_APP_ID;
if (!idpAppId) throw new Error('IDP_APP_ID is required: the identity-provider app the console signs in with');

const consoleDir = fileURLToPath(new URL('../../console/', import.meta.url));
const dist = join(consoleDir, 'dist');
const bucket = `arcadia-${values.stage}-console-${process.env.ARCADIA_BUCKET_SUFFIX ?? 'local'}`;
const cluster = values.cluster ? `?cluster=${encodeURIComponent(values.cluster)}` : '';
// The public RPC of the cluster the explorer links name (mainnet-beta when none is named). It is rate-limited: a
// stage that verifies often names its own provider's URL (one that answers the browser's CORS preflight).
const PUBLIC_CLUSTERS = ['mainnet-beta', 'devnet', 'testnet'];
const named = values.cluster ?? 'mainnet-beta';
const rpcUrl =
  values['rpc-url'] ?? (PUBLIC_CLUSTERS.includes(named) ? `https://api.${named}.solana.com` : undefined);
if (!rpcUrl) throw new Error(`--rpc-url is required: ${named} is not a public cluster`);
if (!/^https:\/\//.test(rpcUrl)) throw new Error('--rpc-url must be an https:// URL');

const TYPES: Record<string, string> = {
  html: 'text/html; charset=utf-8',
  js: 'text/javascript; charset=utf-8',
  css: 'text/css; charset=utf-8',
  json: 'application/json',
  svg: 'image/svg+xml',
};

const walk = (dir: string): string[] =>
  readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    return statSync(path).isDirectory() ? walk(path) : [path];
  });

const { build } = await import('vite');
await build({ configFile: join(consoleDir, 'vite.config.ts') });

const store = new S3Objects({
  AWS_REGION: process.env.AWS_REGION ?? 'us-east-1',
  AWS_ENDPOINT_URL: '',
  AWS_ENDPOINT_URL_S3: '',
  S3_FORCE_PATH_STYLE: 'false',
});
const config = {
  apiUrl: apiUrl.replace(/\/+$/, ''),
  identityProvider: { appId: idpAppId },
  txUrlTemplate: `https://explorer.solana.com/tx/{signature}${cluster}`,
  addressUrlTemplate: `https://explorer.solana.com/address/{address}${cluster}`,
  rpcUrl,
};
const uploads: Array<{ key: string; body: Uint8Array }> = [
  ...walk(dist).map((path) => ({ key: relative(dist, path), body: readFileSync(path) })),
  { key: 'config.json', body: Buffer.from(JSON.stringify(config)) },
];
for (const { key, body } of uploads) {
  // Hashed assets never change under their name; the entry points are read fresh on every visit.
  const immutable = key.startsWith('assets/');
  await store.putObject({
    Bucket: bucket,
    Key: key,
    Body: body,
    ContentType: TYPES[key.split('.').pop() ?? ''] ?? 'application/octet-stream',
    CacheControl: immutable ? 'public, max-age=31536000, immutable' : 'no-cache',
  });
  console.log(`s3://${bucket}/${key} (${body.length} bytes)`);
}
