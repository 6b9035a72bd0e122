// The reference page signs "Try it out" requests in the browser: an API key and secret typed into the page, HMAC
// with WebCrypto in the strict form (the body hash in x-content-sha256 and the canonical query signed), so a key
// that requires strict signing works there. Chromium drives the page against serverless offline.
import { randomUUID } from 'node:crypto';
import type { Browser } from 'playwright-core';
import { describe, expect, it } from 'vitest';
import { launchBrowser } from '../helpers/browser.js';
import { registerGame } from '../helpers/games.js';
import { apiBaseUrl } from '../helpers/http.js';
import { idpToken } from '../helpers/idp.js';
import { createDeveloper } from '../helpers/users.js';

const base = apiBaseUrl;

describe('the reference page', () => {
  // In Debian's Chromium or, without it, the one npm installs (tests/helpers/browser.ts): never skipped.
  it('signs an HMAC request with the key and secret typed into the page and shows the 200, for a strict key', async () => {
    const dev = await createDeveloper();
    const game = await registerGame(dev);
    // The key accepts only the strict form from now on (set with the owner's identity token).
    const strict = await fetch(`${base()}/user/me`, {
      method: 'PATCH',
      headers: {
        authorization: `Bearer ${await idpToken(dev.subject.slice('did:local:'.length))}`,
        'content-type': 'application/json',
      },
      body: JSON.stringify({ strictSigning: true }),
    });
    expect(strict.status).toBe(200);
    const browser: Browser = await launchBrowser();
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
  }, 90_000);

  it('signs a path whose parameters the page percent-encodes (a period named by its start instant)', async () => {
    const dev = await createDeveloper();
    const game = await registerGame(dev);
    const browser: Browser = await launchBrowser();
    try {
      const page = await browser.newPage();
      const sent: string[] = [];
      page.on('request', (r) => sent.push(r.url()));
      await page.goto(`${base()}/api-reference`);
      await page.fill('#hmac-api-key', dev.apiKey);
      await page.fill('#hmac-secret', dev.secretKey);

      const path = '/tournaments/{gameId}/{tournamentId}/periods/{periodId}/board';
      const operation = page.locator(`.opblock:has([data-path="${path}"])`);
      await operation.locator('.opblock-summary').click();
      const tournamentId = randomUUID();
      const params = { gameId: game.id, tournamentId, periodId: '2026-12-02T00:44:00Z' };
      for (const [name, value] of Object.entries(params))
        await operation.locator(`tr[data-param-name="${name}"] input`).fill(value);
      await operation.locator('button.execute').click();
      // Signed over the decoded path, the request reaches the tournament lookup: this one does not exist.
      const status = operation.locator('.live-responses-table tbody .response-col_status').first();
      await expect.poll(() => status.textContent(), { timeout: 20_000 }).toContain('404');
      expect(sent.find((url) => url.includes('/board'))).toContain(
        `${base()}/tournaments/${game.id}/${tournamentId}/periods/2026-12-02T00%3A44%3A00Z/board`,
      );
    } finally {
      await browser.close();
    }
  }, 90_000);
});
