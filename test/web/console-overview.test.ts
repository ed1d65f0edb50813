// The console overview's Activity panel in Chromium at 1280 and 390 px, over 30 days of seeded audit records: the
// totals, a drawn chart per figure with a summary as its accessible name, the figures table screen readers always
// have (and sighted people open), and another range and bucket on request.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import type { Page } from 'playwright-core';
import { sessionCookieFor } from '../helpers/accounts.ts';
import { newPage } from '../helpers/browser.ts';
import { startConsoleApp } from '../helpers/console-app.ts';

const { t, owner } = await startConsoleApp();

const DAY = 86_400_000;
const today = Math.floor(Date.now() / DAY) * DAY;
// Day d days ago, at 06:00 UTC: a password sign-in for each of (d % 3 + 1) people, a passkey sign-in on odd days,
// d % 4 failures and a sign-up every fifth day. Inserted as the log itself, so the migration 0045 trigger counts them.
const rows: { at: Date; event: string; subject: string; method?: string }[] = [];
for (let d = 0; d < 30; d++) {
  const at = new Date(today - d * DAY + 6 * 3_600_000);
  for (let p = 0; p < (d % 3) + 1; p++)
    rows.push({ at, event: 'signin.succeeded', subject: `usr_${p}`, method: 'password' });
  if (d % 2 === 1) rows.push({ at, event: 'signin.succeeded', subject: 'usr_0', method: 'passkey' });
  for (let f = 0; f < d % 4; f++) rows.push({ at, event: 'signin.failed', subject: 'usr_0' });
  if (d % 5 === 0) rows.push({ at, event: 'signup.created', subject: `usr_new_${d}` });
}
await t.sql`
  insert into audit_events (chain, seq, occurred_at, event, subject, details, prev_hash, hash)
  select 'seeded', n, at, event, subject, details::jsonb, 'seeded', 'seeded'
  from unnest(${rows.map((_, i) => i + 1)}::bigint[], ${rows.map((r) => r.at.toISOString())}::timestamptz[],
              ${rows.map((r) => r.event)}::text[], ${rows.map((r) => r.subject)}::text[],
              ${rows.map((r) => JSON.stringify(r.method ? { method: r.method } : {}))}::text[])
    as seeded(n, at, event, subject, details)`;
const count = (event: string, method?: string) =>
  rows.filter((r) => r.event === event && (method === undefined || r.method === method)).length;
const signIns = count('signin.succeeded');

async function overview(
  width: number,
): Promise<{ page: Page; problems: string[]; screenshot: (n: string) => Promise<void> }> {
  const opened = await newPage({ width, height: 900 });
  const cookie = await sessionCookieFor(t.sql, owner.sub, { aal: 'aal2', now: t.clock.now() });
  const [name, value] = cookie.split('=') as [string, string];
  await opened.page.context().addCookies([{ name, value, url: t.url }]);
  await opened.page.goto(`${t.url}/admin/console`);
  await opened.page.getByRole('heading', { name: 'Activity' }).waitFor();
  await opened.page.getByTestId('sign-ins-chart').waitFor();
  return opened;
}

for (const width of [1280, 390])
  describe(`the console overview's activity at ${width} px`, () => {
    test('shows the totals, draws a chart per figure, and names each chart by its figures', async () => {
      const { page, problems, screenshot } = await overview(width);
      const totals = page.getByTestId('stat-totals');
      assert.deepEqual(await totals.locator('div').allTextContents(), [
        `Sign-ins${signIns}`,
        `Failed sign-ins${count('signin.failed')}`,
        `Sign-ups${count('signup.created')}`,
        'Active identities3',
      ]);
      // Drawn: a bar for every day with a sign-in (both methods stacked on odd days), none for a day without one.
      const bars = page.getByTestId('sign-ins-chart').locator('rect');
      assert.equal(await bars.count(), 30 + 15);
      assert.ok(((await bars.first().boundingBox())?.height ?? 0) > 0, 'the bars have a height on screen');
      assert.equal(await page.getByTestId('sign-ups-chart').locator('rect').count(), 6);
      const chart = page.getByRole('img', { name: /^Sign-ins: / });
      assert.equal(
        await chart.getAttribute('aria-label'),
        `Sign-ins: ${signIns} in the range; most, 4, in the day from ${await dayLabel(page, 29)} UTC. ` +
          `By method: Passkey ${count('signin.succeeded', 'passkey')}, Password ${count('signin.succeeded', 'password')}.`,
      );
      assert.match(
        (await page.getByRole('img', { name: /^Active identities: / }).getAttribute('aria-label')) ?? '',
        /^Active identities: 3 in the range \(each person once\); most, 3, in the day from /,
      );
      // The page fits the screen: nothing scrolls sideways.
      const overflow = await page.evaluate(() => document.documentElement.scrollWidth - window.innerWidth);
      assert.ok(overflow <= 0, `the page is ${overflow} px wider than the screen`);
      await screenshot(`console-overview-activity-${width}`);
      assert.deepEqual(problems, []);
    });

    test('has every number in a table screen readers reach, which a button shows', async () => {
      const { page, problems, screenshot } = await overview(width);
      const table = page.getByRole('table', { name: /per day \(UTC\)$/ });
      // Visually hidden, yet in the accessibility tree with all 30 days.
      assert.equal(await table.getByRole('row').count(), 31);
      const oldest = table.getByRole('row').nth(1);
      // 29 days ago: 3 password sign-ins, 1 passkey, 1 failure, no sign-up, 3 people.
      assert.deepEqual(await oldest.getByRole('cell').allInnerTexts(), ['4', '1', '3', '1', '0', '3']);
      assert.equal(await page.getByTestId('stats-figures').isVisible(), true, 'hidden only visually');
      assert.equal(((await page.getByTestId('stats-figures').boundingBox())?.height ?? 0) <= 1, true);
      const show = page.getByRole('button', { name: 'Show the figures as a table' });
      assert.equal(await show.getAttribute('aria-expanded'), 'false');
      await show.click();
      await page.getByRole('button', { name: 'Hide the figures' }).waitFor();
      const shown = await page.getByTestId('stats-figures').boundingBox();
      // On screen as a table (a row of numbers per day, not a card each), within the page's width.
      assert.ok(shown && shown.height > 100 && shown.height < 31 * 60, `shown as a table (${shown?.height} px)`);
      const overflow = await page.evaluate(() => document.documentElement.scrollWidth - window.innerWidth);
      assert.ok(overflow <= 0, `the page is ${overflow} px wider than the screen`);
      await screenshot(`console-overview-figures-${width}`);
      assert.deepEqual(problems, []);
    });

    test('answers another range per hour from GET /admin/stats', async () => {
      const { page, problems } = await overview(width);
      const hourly = page.waitForResponse((r) => {
        const url = new URL(r.url());
        return url.pathname === '/admin/stats' && url.searchParams.get('bucket') === 'hour';
      });
      await page.getByLabel('Range', { exact: true }).selectOption('24h');
      await page.getByLabel('Per', { exact: true }).selectOption('hour');
      assert.equal((await hourly).status(), 200);
      const table = page.getByRole('table', { name: /per hour \(UTC\)$/ });
      await table.waitFor({ state: 'attached' });
      assert.equal(await table.getByRole('row').count(), 25);
      // Per hour is offered up to 31 days; a year is counted per day.
      await page.getByLabel('Range', { exact: true }).selectOption('365d');
      await page.getByRole('table', { name: /per day \(UTC\)$/ }).waitFor({ state: 'attached' });
      assert.equal(await page.getByRole('option', { name: 'hour', exact: true }).isDisabled(), true);
      assert.deepEqual(problems, []);
    });
  });

/** How the page labels the day `daysAgo` days before today (the browser's own date format). */
async function dayLabel(page: Page, daysAgo: number): Promise<string> {
  const start = new Date(today - daysAgo * DAY).toISOString();
  return await page.evaluate(
    (iso) =>
      new Date(iso).toLocaleDateString(undefined, { timeZone: 'UTC', year: 'numeric', month: 'short', day: 'numeric' }),
    start,
  );
}
