// The studio console's build: Preact (JSX by the built-in oxc transform, no plugin), uPlot, and the SDK from its sources
// (sdk/src), so the console and the SDK a studio installs are the same client. Served under /console/.
import { fileURLToPath } from 'node:url';
import { defineConfig } from 'vite';

const here = fileURLToPath(new URL('.', import.meta.url));

export default defineConfig({
  root: here,
  // Relative: the same files work under /console/ locally and at the distribution's root when deployed.
  base: './',
  resolve: { alias: { '@arcadia/sdk': fileURLToPath(new URL('../sdk/src/index.ts', import.meta.url)) } },
  oxc: { jsx: { runtime: 'automatic', importSource: 'preact' } },
  build: {
    outDir: 'dist',
    emptyOutDir: true,
    target: 'es2022',
    reportCompressedSize: true,
    sourcemap: false,
  },
  logLevel: 'warn',
});
