// The console's tournaments page shows a closed period's prizes: the frozen ranks, each prize in SOL and its
// transfer on chain (a link to the explorer), for a period that closed and paid on the local chain.
import { randomUUID } from 'node:crypto';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sideEffects as depositDeps } from '../../functions/tournaments/deposit-tournament-funds.js';
import { depositToTournament } from '../../lib/tournaments/index.js';
import { loadWallet } from '../../lib/user/wallet.js';
import { launchBrowser } from '../helpers/browser.js';
import { open, screenshot, seriousAxeFindings, signIn, USER_CONTEXT } from '../helpers/console.js';
import { close, type Fixture, fixture, runOf } from '../helpers/prizes.js';
import { chain, SOL } from '../helpers/settlement.js';

const DEPOSIT = 20_000_000n;

let browser: Browser;
let page: Page;
let f: Fixture;

beforeAll(async () => {
  // A period that ended two hours ago (the results read with the real clock), closed and paid now.
  const start = new Date(Math.floor(Date.now() / 3_600_000) * 3_600_000 - 3 * 3_600_000);
  f = await fixture({ start });
  // The studio funded the period with a deposit before it ended (controlled clock).
  const wallet = (await loadWallet(f.seeded.dev.arcId))?.address ?? '';
  await chain.airdrop(wallet, SOL / 10n);
  const { deposit } = await depositToTournament(
    f.devAuth,
    f.message,
    { lamports: DEPOSIT, periodId: f.periodId, idempotencyKey: randomUUID() },
    { ...depositDeps, now: () => new Date(f.endsAt.getTime() - 60_000) },
  );
  expect(deposit.credited).toBe('period');
  expect(await close(f, new Date())).toBe('closed');
  browser = await launchBrowser();
  page = await (
    await browser.newContext({ ...USER_CONTEXT, viewport: { width: 1280, height: 900 } })
  ).newPage();
  await signIn(page, f.seeded.dev.subject.replace(/^did:local:/, ''));
}, 180_000);
afterAll(async () => {
  await browser?.close();
});

describe('the console tournaments page, prizes', () => {
  it('lists a closed period’s prizes with their transfers', async () => {
    const run = await runOf(f);
    await open(
      page,
      `tournaments?game=${f.seeded.gameId}&tournament=${f.tournamentId}&period=${encodeURIComponent(f.periodId)}`,
      'Tournaments',
    );
    const table = page.getByRole('table', { name: 'Frozen results and prizes' });
    await table.waitFor({ timeout: 30_000 });
    const rows = table.locator('tbody tr');
    expect(await rows.count()).toBe(run.prize.results.length);
    const confirmed = run.lines.find((l) => BigInt(l.send) > 0n);
    if (!confirmed) throw new Error('no prize landed');
    const row = rows.nth((confirmed.rank ?? 1) - 1);
    expect(await row.locator('td').first().textContent()).toBe(String(confirmed.rank));
    // The transfer's link goes to the explorer with the record's signature.
    const link = row.getByRole('link');
    expect(decodeURIComponent((await link.getAttribute('href')) ?? '')).toMatch(
      /[1-9A-HJ-NP-Za-km-z]{80,90}/,
    );
    expect(await page.getByText('Prize pool', { exact: false }).first().isVisible()).toBe(true);
    // The studio's deposit is shown with what of it went back to the pool.
    const fund = page.getByText('Your deposits:', { exact: false });
    expect(await fund.isVisible()).toBe(true);
    expect(await fund.textContent()).toContain('0.02');
    for (const width of [375, 1280]) {
      await page.setViewportSize({ width, height: 900 });
      expect(await seriousAxeFindings(page), `at ${width}`).toEqual([]);
      await screenshot(page, 'tournaments-prizes');
    }
  }, 120_000);
});
