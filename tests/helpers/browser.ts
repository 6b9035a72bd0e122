// The Chromium every browser test launches: Debian's when it is installed, else the one npm installed with
// @sparticuz/chromium (its binary and libraries ship brotli-compressed in the package: nothing is downloaded),
// so `npm install && npm test` needs no system browser. ARCADIA_BROWSER=npm forces the npm one.
// Both keep the web's security rules on (CORS, mixed content), as a user's browser does: a page that works here
// works for a person.
import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { brotliDecompressSync } from 'node:zlib';
import sparticuz from '@sparticuz/chromium';
import { type Browser, chromium } from 'playwright-core';

const SYSTEM_CHROMIUM = '/usr/bin/chromium';
const SYSTEM_ARGS = [
  '--headless',
  '--no-sandbox',
  '--disable-gpu',
  '--disable-background-networking',
  '--disable-component-update',
  '--no-first-run',
];

/**
 * @sparticuz/chromium's flags turn off the same-origin policy (it is made for scraping in Lambda): with them, a
 * cross-origin call that a user's browser blocks (a credentialed request without Access-Control-Allow-Credentials)
 * passes, and a test would never see it.
 */
const WEAKENING_FLAGS = new Set(['--disable-web-security', '--allow-running-insecure-content']);

// The package's root: its entry is build/index.js, its compressed binaries are in bin/.
const packageDir = dirname(dirname(fileURLToPath(import.meta.resolve('@sparticuz/chromium'))));

/**
 * Unpack the npm Chromium once per version: the binary, its GL (SwiftShader) libraries beside it, and the
 * NSS/NSPR/expat libraries of its al2023 bundle (a machine without Debian's chromium may lack them). Unpacked
 * into a private folder renamed into place, so parallel test files never see half a binary.
 */
const unpackNpmChromium = (): string => {
  const { version } = JSON.parse(readFileSync(join(packageDir, 'package.json'), 'utf8')) as {
    version: string;
  };
  const dir = join(tmpdir(), `arcadia-chromium-${version}`);
  if (existsSync(join(dir, 'chromium'))) return dir;
  const work = `${dir}.${process.pid}-${Date.now()}`;
  mkdirSync(work, { recursive: true });
  const bin = join(packageDir, 'bin');
  writeFileSync(join(work, 'chromium'), brotliDecompressSync(readFileSync(join(bin, 'chromium.br'))), {
    mode: 0o755,
  });
  for (const archive of ['swiftshader.tar.br', 'al2023.tar.br'])
    execFileSync('tar', ['-x', '-C', work], {
      input: brotliDecompressSync(readFileSync(join(bin, archive))),
    });
  try {
    renameSync(work, dir);
  } catch {
    rmSync(work, { recursive: true, force: true }); // another test file won the race: use its copy
  }
  return dir;
};

/** Which Chromium the browser tests use (for their messages). */
export const chromiumSource = (): 'debian' | 'npm' =>
  process.env.ARCADIA_BROWSER !== 'npm' && existsSync(SYSTEM_CHROMIUM) ? 'debian' : 'npm';

/** Launch the npm-installed Chromium (whatever the machine has). */
export const launchNpmChromium = async (): Promise<Browser> => {
  const dir = unpackNpmChromium();
  return chromium.launch({
    executablePath: join(dir, 'chromium'),
    args: sparticuz.args.filter((arg) => !WEAKENING_FLAGS.has(arg)),
    env: {
      ...process.env,
      LD_LIBRARY_PATH: [join(dir, 'lib'), process.env.LD_LIBRARY_PATH].filter(Boolean).join(':'),
    },
  });
};

/** Launch headless Chromium: Debian's when present, else the npm one. */
export const launchBrowser = (): Promise<Browser> =>
  chromiumSource() === 'debian'
    ? chromium.launch({ executablePath: SYSTEM_CHROMIUM, args: SYSTEM_ARGS })
    : launchNpmChromium();
