// Builds dist/: ESM modules for bundlers and Node (openapi-fetch stays a dependency), a self-contained browser
// module of the play client (dist/arcadia-play.js, for a plain <script type="module">), and the .d.ts files.
// The `types: []` of tsconfig.json keeps Node's globals out, so a Node-only API in src/ fails the build.
// `--play-only` writes dist/arcadia-play.js alone (the demo game's server builds it so at start).
import { execFileSync } from 'node:child_process';
import { rmSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { build } from 'esbuild';

const here = dirname(fileURLToPath(import.meta.url));
const dist = join(here, 'dist');
const common = { bundle: true, format: 'esm', platform: 'browser', target: 'es2022', logLevel: 'warning' };
const buildPlay = (outdir) =>
  build({ ...common, entryPoints: { 'arcadia-play': join(here, 'src/browser.ts') }, outdir, minify: true });
if (process.argv.includes('--play-only')) {
  await buildPlay(dist);
  process.exit(0);
}
rmSync(dist, { recursive: true, force: true });
await build({
  ...common,
  entryPoints: { index: join(here, 'src/index.ts'), browser: join(here, 'src/browser.ts') },
  outdir: dist,
  external: ['openapi-fetch'],
});
await buildPlay(dist);
execFileSync(
  process.execPath,
  [join(here, '../node_modules/typescript/bin/tsc'), '-p', join(here, 'tsconfig.json')],
  {
    stdio: 'inherit',
  },
);
