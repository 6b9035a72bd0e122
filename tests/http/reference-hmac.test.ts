// The reference page signs "Try it out" requests in the browser: an API key and secret typed into the page, HMAC
// with WebCrypto, the JSON body bound by x-content-sha256. Chromium drives the page against serverless offline.
import { existsSync } from 'node:fs';
import { type Browser, chromium } from 'playwright-core';
import { describe, expect, it } from 'vitest';
import { registerGame } from '../helpers/games.js';
import { createDeveloper } from '../helpers/users.js';

const base = () => {
  const url = process.env.API_BASE_URL;
  if (!url) throw new Error('API_BASE_URL is not set: the test stack did not start serverless offline');
  return url;
};

const CHROMIUM = '/usr/bin/chromium';

/** The one place this file launches a browser (tests/http/offline.test.ts launches it the same way). */
const launchBrowser = (): Promise<Browser> =>
  chromium.launch({
    executablePath: CHROMIUM,
    args: [
      '--headless',
      '--no-sandbox',
      '--disable-gpu',
      '--disable-background-networking',
      '--disable-component-update',
      '--no-first-run',
    ],
  });

describe('the reference page', () => {
  // Runs wherever Debian's chromium is installed, and always in CI (.ci/run installs it).
  it.skipIf(!existsSync(CHROMIUM) && !process.env.CI)(
    'signs an HMAC request with the key and secret typed into the page and shows the 200',
    async () => {
      const dev = await createDeveloper();
      const game = await registerGame(dev);
      const browser = await launchBrowser();
      try {
        const page = await browser.newPage();
        const sent: Array<{ url: string; headers: Record<string, string>; body: string | null }> = [];
        page.on('request', (r) => sent.push({ url: r.url(), headers: r.headers(), body: r.postData() }));
        await page.goto(`${base()}/api-reference`);
        await page.fill('#hmac-api-key', dev.apiKey);
        await page.fill('#hmac-secret', dev.secretKey);

        const operation = page.locator('.opblock:has([data-path="/play/dev/batch-save-points"])');
        await operation.locator('.opblock-summary').click();
        const body = JSON.stringify({
          gameId: game.id,
          entries: [{ playerId: 'x:ref_page_player', points: 7 }],
        });
        await operation.locator('textarea.body-param__text').fill(body);
        await operation.locator('button.execute').click();
        const status = operation.locator('.live-responses-table tbody .response-col_status').first();
        await expect.poll(() => status.textContent(), { timeout: 20_000 }).toContain('200');

        const call = sent.find((r) => r.url === `${base()}/play/dev/batch-save-points`);
        expect(call?.headers.authorization).toMatch(
          new RegExp(`^HMAC-SHA256 apiKey=${dev.apiKey} signature=[0-9a-f]{64} timestamp=\\d+$`),
        );
        expect(call?.headers['x-auth-provider']).toBe('hmac');
        expect(call?.headers['x-content-sha256']).toMatch(/^[0-9a-f]{64}$/);
        expect(call?.body).toBe(body);
        // The secret never leaves the page.
        for (const request of sent) expect(JSON.stringify(request)).not.toContain(dev.secretKey);
      } finally {
        await browser.close();
      }
    },
    90_000,
  );
});
