// Driving the studio console (the stack's console server, CONSOLE_URL) in Chromium: sign-in, screenshots, axe.
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import AxeBuilder from '@axe-core/playwright';
import type { Locator, Page } from 'playwright-core';

/** Screenshots of the console tests: written by every run, never committed (.gitignore). */
export const SCREENSHOT_DIR = fileURLToPath(new URL('../.artifacts/console/', import.meta.url));

/**
 * A browser context as a user's: an English locale (the headless Chromium's own default, en-US@posix, is not a
 * valid language tag) in a zone other than UTC, so that local times and their UTC titles differ.
 */
export const USER_CONTEXT = { locale: 'en-US', timezoneId: 'Europe/Paris' } as const;

export const consoleUrl = (): string => {
  const url = process.env.CONSOLE_URL;
  if (!url) throw new Error('CONSOLE_URL is not set: the test stack did not start the console server');
  return url;
};

export interface SignedIn {
  /** The first secret of the user's API key, read off the page that shows it once (absent for a known user). */
  apiKey?: string;
  secretKey?: string;
}

/**
 * Sign in as a local user through the sign-in page at `url` (default the stack's console), as a person would: the address `<name>@local` (the local
 * provider's `did:local:<name>`), then the one-time code the page shows from the local provider's inbox. For a
 * new user, answers the key pair it shows once.
 */
export const signIn = async (page: Page, name: string, url = consoleUrl()): Promise<SignedIn> => {
  await page.goto(url);
  await page.getByLabel('Email').fill(`${name}@local`);
  await page.getByRole('button', { name: 'Send a sign-in code' }).click();
  const shown = page.locator('#local-code code');
  // A refusal (the provider's, or the browser's "Failed to fetch") fails here with its message, not by a timeout.
  const alert = page.getByRole('alert');
  await shown.or(alert).first().waitFor({ timeout: 30_000 });
  if (await alert.isVisible()) throw new Error(`sending the code failed: ${await alert.textContent()}`);
  const code = (await shown.textContent()) ?? '';
  await page.getByLabel('Code').fill(code);
  await page.getByRole('button', { name: 'Sign in' }).click();
  const secret = page.locator('#secret-value');
  const games = page.getByRole('heading', { level: 1, name: 'Games' });
  await secret.or(games).first().waitFor({ timeout: 30_000 });
  if (!(await secret.isVisible())) return {};
  const secretKey = (await secret.textContent()) ?? '';
  const apiKey = (await page.locator('.secret dd code').first().textContent()) ?? '';
  await page.getByRole('button', { name: 'I stored it' }).click();
  await games.waitFor();
  return { apiKey, secretKey };
};

/** The sign-in token the console keeps for the tab (sessionStorage). */
export const TOKEN_KEY = 'arcadia.console.token';

export const open = async (page: Page, route: string, heading: string) => {
  // Expressions as strings: this project's tests compile without the DOM library.
  await page.evaluate(`location.hash = ${JSON.stringify(`#/${route}`)}`);
  await page.getByRole('heading', { level: 1, name: heading }).waitFor();
};

/** The serious and critical axe-core findings of the page as it is now. */
export const seriousAxeFindings = async (page: Page) => {
  const { violations } = await new AxeBuilder({ page }).analyze();
  return violations
    .filter((v) => v.impact === 'serious' || v.impact === 'critical')
    .map((v) => `${v.id} (${v.impact}): ${v.nodes.map((n) => n.target.join(' ')).join(', ')}`);
};

/** A full-page screenshot named after the page and the viewport width. */
export const screenshot = async (page: Page, name: string) => {
  mkdirSync(SCREENSHOT_DIR, { recursive: true });
  const width = page.viewportSize()?.width ?? 0;
  await page.screenshot({ path: join(SCREENSHOT_DIR, `${name}-${width}.png`), fullPage: true });
};

/**
 * A table row's cells as they read with every Arc ID disclosure closed: a player's cell by the name shown (display
 * name, else the studio's identifier, else the Arc ID), the other cells by their text.
 */
export const rowCells = async (row: Locator): Promise<string[]> => {
  const cells = await row.locator('td').all();
  return Promise.all(
    cells.map(async (cell) => {
      const name = cell.locator('.player-name > :first-child');
      return ((await name.count()) > 0 ? await name.textContent() : await cell.textContent()) ?? '';
    }),
  );
};

/** Opens the Arc ID disclosure beside a player's name in `scope`, and answers the Arc ID it shows. */
export const revealArcId = async (scope: Locator): Promise<string> => {
  const disclosure = scope.locator('details.arc-id');
  const code = disclosure.locator('code');
  if (await code.isVisible()) throw new Error('the Arc ID shows before its disclosure is opened');
  await disclosure.locator('summary').click();
  await code.waitFor();
  return (await code.textContent()) ?? '';
};
