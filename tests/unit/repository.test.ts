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
});
