// The SDK package (sdk/): its generated types follow openapi.yaml, it builds, and `npm pack` ships exactly the
// built modules, their types and the README, with no Node-only API in what a browser loads.
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { renderSdkTypes, SDK_TYPES_MODULE } from '../../scripts/sdk-types.js';

const root = new URL('../../', import.meta.url);

describe('the SDK package', () => {
  it('has types generated from the committed openapi.yaml (npm run generate)', async () => {
    expect(readFileSync(new URL(SDK_TYPES_MODULE, root), 'utf8')).toBe(await renderSdkTypes());
  });

  it('packs the built ESM modules, their types and the README, and nothing else', () => {
    // prepack builds dist/ (esbuild, then tsc for the .d.ts files under a tsconfig without Node's types).
    const out = execFileSync('npm', ['pack', '--dry-run', '--json', '--workspace', 'sdk'], {
      cwd: root,
      encoding: 'utf8',
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    const [pack] = JSON.parse(out) as { name: string; files: { path: string }[] }[];
    expect(pack?.name).toBe('@arcadia/sdk');
    const files = (pack?.files ?? []).map((f) => f.path).sort();
    expect(files).toEqual(
      expect.arrayContaining([
        'README.md',
        'package.json',
        'dist/index.js',
        'dist/browser.js',
        'dist/arcadia-play.js',
        'dist/cli.js',
        // The types mirror the sources: the SDK's, and the platform modules it bundles (the payout rules).
        'dist/sdk/src/index.d.ts',
        'dist/sdk/src/browser.d.ts',
        'dist/sdk/src/openapi.generated.d.ts',
        'dist/lib/rewards/settlement/statement.d.ts',
        'dist/lib/rewards/settlement/allocation.d.ts',
      ]),
    );
    for (const file of files)
      expect(file).toMatch(
        /^(README\.md|package\.json|dist\/[\w.-]+\.js|dist\/(sdk\/src|lib)\/[\w./-]+\.d\.ts)$/,
      );

    const manifest = JSON.parse(readFileSync(new URL('sdk/package.json', root), 'utf8')) as {
      exports: Record<string, { import?: string; types?: string }>;
    };
    for (const entry of Object.values(manifest.exports).filter((e) => typeof e === 'object'))
      for (const target of [entry.import, entry.types]) expect(files).toContain(target?.replace(/^\.\//, ''));
  }, 60_000);

  it('builds browser modules without Node-only APIs', () => {
    for (const file of ['dist/browser.js', 'dist/arcadia-play.js', 'dist/index.js']) {
      const code = readFileSync(new URL(`sdk/${file}`, root), 'utf8');
      // openapi-fetch feature-detects `process` behind a typeof check; modules and Buffer would break a page.
      expect(code, file).not.toMatch(/(from|import\()\s*["']node:|\brequire\(|\bBuffer\./);
    }
    // The play module a page loads directly carries its dependencies (openapi-fetch, oauth4webapi) inside: no import
    // of a package (a string that merely says `from "…"`, as an error message may, is no import).
    expect(readFileSync(new URL('sdk/dist/arcadia-play.js', root), 'utf8')).not.toMatch(
      /\bimport\s*(?:[\w$*{}\s,]+from\s*)?["'][^./]|\bimport\(\s*["'][^./]/,
    );
  });
});
