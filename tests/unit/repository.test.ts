// Rules about the repository itself that keep `npm install && npm test` working on a newcomer's machine.
import { readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));

const sourcesUnder = (dir: string): string[] =>
  readdirSync(join(ROOT, dir), { recursive: true, encoding: 'utf8' })
    .filter((file) => file.endsWith('.ts'))
    .map((file) => join(dir, file));

// Where the project explains itself: code, scripts, docs, benches and the deploy files.
const EXPLAINED = ['lib', 'functions', 'scripts', 'docs', 'bench', 'infra', 'serverless.yml', 'README.md'];
const TEXT_FILE = /\.(ts|js|cjs|mjs|md|yml|yaml|json)$/;

const textFilesUnder = (path: string): string[] => {
  if (TEXT_FILE.test(path)) return [path];
  return readdirSync(join(ROOT, path), { recursive: true, encoding: 'utf8' })
    .filter((file) => TEXT_FILE.test(file) && !file.split(/[\\/]/).includes('node_modules'))
    .map((file) => join(path, file));
};

// Documents outside the repository (the product brief and design notes) and issue numbers mean nothing to
// a maintainer with only this repository: the rule or its reason is said in place, or docs/ says it.
const OUTSIDE_REFERENCE = /\b(SPEC|DESIGN)\b|\b[Ii]ssues? #?\d+/;

describe('repository', () => {
  it('launches browsers only through tests/helpers/browser.ts (which falls back to the npm Chromium)', () => {
    const offenders = sourcesUnder('tests').filter((file) => {
      // The helper, and this file (whose pattern names what it looks for).
      if (
        [join('helpers', 'browser.ts'), join('unit', 'repository.test.ts')].includes(relative('tests', file))
      )
        return false;
      const text = readFileSync(join(ROOT, file), 'utf8');
      return /\/usr\/bin\/chromium|executablePath|import\s*\{[^}]*\bchromium\b[^}]*\}\s*from\s*'playwright-core'/.test(
        text,
      );
    });
    expect(offenders).toEqual([]);
  });

  it('names no outside document or issue number in lib, functions, scripts, docs, bench, infra, serverless.yml or the README', () => {
    const offenders = EXPLAINED.flatMap(textFilesUnder).flatMap((file) =>
      readFileSync(join(ROOT, file), 'utf8')
        .split('\n')
        .flatMap((line, index) =>
          OUTSIDE_REFERENCE.test(line) ? [`${file}:${index + 1}: ${line.trim()}`] : [],
        ),
    );
    expect(offenders).toEqual([]);
  });
});
