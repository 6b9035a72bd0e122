// Signing in to the studio console as a person does under `npm run dev`: at the URL the README gives (the console
// server `npm run dev` starts, the same stack service as here, on the test stack's port), at 127.0.0.1 and at
// localhost, in a Chromium that keeps the same-origin policy. The console, the local identity provider and the API
// are three origins, so every sign-in call is a cross-origin, credentialed request (the provider's client sends
// `credentials: 'include'`): it passes only if the provider answers as the real one does for an allowed origin.
import { randomUUID } from 'node:crypto';
import { readFileSync } from 'node:fs';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { FIXED_PORTS } from '../../scripts/stack/ports.js';
import { launchBrowser } from '../helpers/browser.js';
import { consoleUrl, signIn, TOKEN_KEY, USER_CONTEXT } from '../helpers/console.js';
import { apiBaseUrl } from '../helpers/http.js';

/** The console's URL as the README gives it (what `npm run dev` prints). */
const readmeUrl = (): URL => {
  const readme = readFileSync(new URL('../../README.md', import.meta.url), 'utf8');
  const url = /Run your games from the studio console\*\* at (http:\/\/\S+)/.exec(readme)?.[1];
  if (!url) throw new Error('README.md gives no studio console URL');
  return new URL(url);
};

/** The README's URL on the test stack's console port, with `hostname` as a person may type it. */
const asTyped = (hostname: string): string => {
  const url = readmeUrl();
  url.port = new URL(consoleUrl()).port;
  url.hostname = hostname;
  return url.href;
};

let browser: Browser;
/** Open until the end: the npm Chromium runs in one process, which exits with its last page. */
let home: Page;
beforeAll(async () => {
  browser = await launchBrowser();
  home = await (await browser.newContext(USER_CONTEXT)).newPage();
}, 60_000);
afterAll(async () => {
  await browser?.close();
});

describe('signing in to the console under npm run dev', () => {
  it('serves the console where the README says, from the stack’s console service', () => {
    const readme = readmeUrl();
    expect(readme.port).toBe(String(FIXED_PORTS.console));
    // The same URL shape as the one `npm run dev` prints, on this stack's port.
    expect(asTyped(readme.hostname)).toBe(consoleUrl());
  });

  it('runs a browser that blocks what a user’s blocks: a credentialed call the answer does not allow', async () => {
    await home.goto(consoleUrl());
    // The API allows any origin (`*`) and no credentials: a user's browser shows its answer to a plain call and
    // refuses it to a credentialed one, as it refuses the provider's client an answer without
    // Access-Control-Allow-Credentials.
    const call = (credentials: string) =>
      home.evaluate(
        `fetch(${JSON.stringify(`${apiBaseUrl()}/api-reference-json`)}, { credentials: '${credentials}' })` +
          `.then((response) => response.status, (error) => error.name)`,
      );
    expect(await call('omit')).toBe(200);
    expect(await call('include')).toBe('TypeError');
  });

  it.each(['127.0.0.1', 'localhost'])(
    'signs a new user in at http://%s:<port>/console/ through the provider’s client',
    async (hostname) => {
      // A context of its own (left open: closing one can end the single-process npm Chromium).
      const page = await (await browser.newContext(USER_CONTEXT)).newPage();
      const failed: string[] = [];
      page.on('requestfailed', (request) => failed.push(`${request.method()} ${request.url()}`));
      const name = `signin-${randomUUID().slice(0, 8)}`;
      const shown = await signIn(page, name, asTyped(hostname));
      expect(shown.secretKey).toMatch(/^arc_sk_/);
      expect(new URL(page.url()).hostname).toBe(hostname);
      expect(await page.evaluate(`sessionStorage.getItem(${JSON.stringify(TOKEN_KEY)})`)).toMatch(/^eyJ/);
      expect(failed).toEqual([]);
    },
    60_000,
  );
});
