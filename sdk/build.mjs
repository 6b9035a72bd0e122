// Builds dist/: ESM modules for bundlers and Node (openapi-fetch and oauth4webapi stay dependencies), a self-contained browser
// module of the play client (dist/arcadia-play.js, for a plain <script type="module">), and the .d.ts files.
// The `types: []` of tsconfig.json keeps Node's globals out, so a Node-only API in src/ fails the build.
import { execFileSync } from 'node:child_process';
import { chmodSync, rmSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { build } from 'esbuild';

const here = dirname(fileURLToPath(import.meta.url));
const dist = join(here, 'dist');
const common = { bundle: true, format: 'esm', platform: 'browser', target: 'es2022', logLevel: 'warning' };
rmSync(dist, { recursive: true, force: true });
await build({
  ...common,
  entryPoints: { index: join(here, 'src/index.ts'), browser: join(here, 'src/browser.ts') },
  outdir: dist,
  external: ['openapi-fetch', 'oauth4webapi', 'bs58'],
});
// The verifier's command (`npx @arcadia/sdk verify …`), for Node.
await build({
  ...common,
  platform: 'node',
  entryPoints: { cli: join(here, 'src/cli.ts') },
  outdir: dist,
  external: ['bs58'],
  banner: { js: '#!/usr/bin/env node' },
});
// Executable as built: the workspace links the bin to this file (npm sets the mode only when it unpacks a tarball).
chmodSync(join(dist, 'cli.js'), 0o755);
// The same options as the demo game's server (scripts/demo/server.ts), which builds it in memory.
await build({
  ...common,
  entryPoints: { 'arcadia-play': join(here, 'src/browser.ts') },
  outdir: dist,
  minify: true,
});
execFileSync(
  process.execPath,
  // TypeScript as this package resolves it: its own devDependency, or the workspace's when hoisted.
  [createRequire(import.meta.url).resolve('typescript/bin/tsc'), '-p', join(here, 'tsconfig.json')],
  {
    stdio: 'inherit',
  },
);
