// The platform's connect page (console #/connect) in the popup a game's page opened with PlayClient.connect(), used
// as a player does: the email sign-in with the local inbox's code, a daily spending limit, Approve.
import type { Page } from 'playwright-core';
import { consoleUrl } from './console.js';

export interface Approval {
  /** The game the page must show before anything is typed. */
  gameName?: string;
  /** The daily spending limit in SOL (the field shows when the game asks `multipliers:buy`); empty: none. */
  limitSol?: string;
}

/**
 * Signs `<name>@local` in on the connect page in `popup`, sets the limit and approves; resolves once the page has
 * posted the code to the game and closed. A refusal (an alert) or a page that stays open fails with what it shows.
 */
export const approveInPopup = async (popup: Page, name: string, approval: Approval = {}) => {
  await popup.getByLabel('Email').waitFor({ timeout: 30_000 });
  // The platform's own page, on the console's origin.
  const origin = new URL(popup.url()).origin;
  if (origin !== new URL(consoleUrl()).origin) throw new Error(`the popup is at ${popup.url()}`);
  if (approval.gameName) await popup.getByText(approval.gameName).first().waitFor();
  await popup.getByLabel('Email').fill(`${name}@local`);
  await popup.getByRole('button', { name: 'Send a sign-in code' }).click();
  const shown = popup.locator('#local-code code');
  const alert = popup.getByRole('alert');
  await shown.or(alert).first().waitFor({ timeout: 30_000 });
  if (await alert.isVisible()) throw new Error(`sending the code failed: ${await alert.textContent()}`);
  await popup.getByLabel('Code').fill((await shown.textContent()) ?? '');
  await popup.getByRole('button', { name: 'Sign in' }).click();
  await popup.getByRole('heading', { level: 2, name: 'Your answer' }).waitFor({ timeout: 30_000 });
  if (approval.limitSol !== undefined)
    await popup.getByLabel('SOL a day the game may spend on multipliers for you').fill(approval.limitSol);
  const closed = popup.waitForEvent('close', { timeout: 30_000 });
  await popup.getByRole('button', { name: 'Approve' }).click();
  await Promise.race([
    closed,
    alert.waitFor({ timeout: 30_000 }).then(async () => {
      throw new Error(`the connect page refused: ${await alert.textContent()}`);
    }),
  ]).catch(async (error: Error) => {
    const text = popup.isClosed() ? '' : `${popup.url()}: ${await popup.locator('body').textContent()}`;
    throw new Error(`${error.message}\nconnect page: ${text}`);
  });
};
