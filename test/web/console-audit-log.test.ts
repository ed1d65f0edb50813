// The console's audit page in Chromium at 1280 and 390 px: the filters on one line that opens, the records first, a
// failed sign-in with an unknown actor and the person tried as subject, details that wrap, a compact card per
// record on a phone, and one page of 25 at a time.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import type { Page } from 'playwright-core';
import { sessionCookieFor, signIn } from '../helpers/accounts.ts';
import { newPage } from '../helpers/browser.ts';
import { startConsoleApp } from '../helpers/console-app.ts';

const { t, owner } = await startConsoleApp();

// 60 changes a second apart, one with a long redirect URI in its details, then a real failed sign-in of the owner's
// account (a wrong password).
for (let n = 1; n <= 60; n++) {
  const long: Record<string, string> =
    n === 60 ? { redirect_uri: `https://shop.acme-robotics.dev/callback/${'segment/'.repeat(40)}end` } : {};
  await t.deps.audit.record({
    event: 'client.created',
    actor: owner.sub,
    subject: `cli_${n}`,
    details: { n, ...long },
  });
  t.clock.advance(1);
}
const failed = await signIn(
  t.app,
  'owner@acme-robotics.dev',
  { password: 'not the password at all' },
  { headers: { origin: t.url } },
);
assert.equal(failed.response.statusCode, 401);
const [{ total } = { total: 0 }] = await t.sql<{ total: number }[]>`select count(*)::int as total from audit_events`;
const lastPage = total - 50;
assert.ok(lastPage > 0 && lastPage <= 25, `three pages of 25 (${total} records)`);

async function auditPage(width: number) {
  const opened = await newPage({ width, height: 900 });
  const cookie = await sessionCookieFor(t.sql, owner.sub, { aal: 'aal2', now: t.clock.now() });
  const [name, value] = cookie.split('=') as [string, string];
  await opened.page.context().addCookies([{ name, value, url: t.url }]);
  await opened.page.goto(`${t.url}/admin/console/audit`);
  await opened.page.getByTestId('audit-records').waitFor();
  return opened;
}

const caption = (page: Page) => page.getByTestId('audit-records').locator('caption');

for (const width of [1280, 390])
  describe(`the console audit page at ${width} px`, () => {
    test('puts the records first under a one-line filter, and names an unknown actor for a failed sign-in', async () => {
      const { page, problems, screenshot } = await auditPage(width);
      const filters = page.locator('details.audit-filters');
      assert.equal(await filters.locator('summary').textContent(), 'Filters none');
      assert.equal(await page.getByLabel('Event').isVisible(), false, 'the form is folded away');
      const line = await filters.boundingBox();
      assert.ok(line && line.height < 60, `the filters take one line (${line?.height} px)`);
      const table = await page.getByTestId('audit-records').boundingBox();
      const chain = await page.getByRole('heading', { name: 'Chain verification' }).boundingBox();
      assert.ok(table && chain && table.y < chain.y, 'the records come before the chain check');
      assert.ok(table && table.y < 400, `the records start on the first screen (at ${table?.y} px)`);

      // The newest record: the failed sign-in, by nobody proven, about the account that was tried.
      const row = page.getByTestId('audit-records').locator('tbody tr').first();
      assert.equal(await row.locator('.audit-event').textContent(), 'signin.failed');
      assert.equal(await row.locator('.audit-actor').textContent(), 'Unknown');
      assert.equal(await row.locator(`.audit-subject [data-id="${owner.sub}"]`).count(), 1);

      // Nothing is clipped or scrolls sideways, the long redirect URI included.
      const sideways = await page.evaluate(() => {
        const table = document.querySelector('table.audit') as HTMLElement;
        const cells = [...document.querySelectorAll('table.audit td')] as HTMLElement[];
        return {
          page: document.documentElement.scrollWidth - window.innerWidth,
          table: table.scrollWidth - table.clientWidth,
          cells: cells.filter((c) => c.scrollWidth > c.clientWidth + 1).length,
        };
      });
      assert.deepEqual(sideways, { page: 0, table: 0, cells: 0 });
      await screenshot(`console-audit-page-${width}`);
      assert.deepEqual(problems, []);
    });

    test('pages 25 records at a time, older and back', async () => {
      const { page, problems, screenshot } = await auditPage(width);
      await caption(page).getByText('Page 1, 25 records, newest first').waitFor();
      assert.equal(await page.getByRole('button', { name: 'Newer records' }).isDisabled(), true);
      await page.getByRole('button', { name: 'Older records' }).click();
      await caption(page).getByText('Page 2, 25 records, newest first').waitFor();
      await page.getByRole('button', { name: 'Older records' }).click();
      await caption(page).getByText(`Page 3, ${lastPage} records, newest first`).waitFor();
      assert.equal(await page.getByRole('button', { name: 'Older records' }).isDisabled(), true, 'nothing older');
      assert.equal(
        await page.getByTestId('audit-records').locator('tbody tr').last().locator('.audit-event').textContent(),
        'client.created',
      );
      await screenshot(`console-audit-last-page-${width}`);
      await page.getByRole('button', { name: 'Newer records' }).click();
      await caption(page).getByText('Page 2, 25 records, newest first').waitFor();
      assert.deepEqual(problems, []);
    });

    test('opens the filters, applies one from the first page, and says which applies', async () => {
      const { page, problems } = await auditPage(width);
      await page.getByRole('button', { name: 'Older records' }).click();
      await caption(page).getByText('Page 2, 25 records, newest first').waitFor();
      await page.locator('details.audit-filters summary').click();
      await page.getByLabel('Event').fill('signin.failed');
      await page.getByRole('button', { name: 'Apply filters' }).click();
      await caption(page).getByText('Page 1, 1 record, newest first').waitFor();
      assert.equal(await page.getByTestId('filters-applied').textContent(), 'event signin.failed');
      assert.equal(await page.getByRole('navigation', { name: 'Audit log pages' }).count(), 0, 'one page, no pager');
      await page.getByRole('button', { name: 'Clear' }).click();
      await caption(page).getByText('Page 1, 25 records, newest first').waitFor();
      assert.equal(await page.getByTestId('filters-applied').textContent(), 'none');
      assert.deepEqual(problems, []);
    });
  });

describe('the audit page on a phone', () => {
  test('shows each record as a compact card: event and time on one line, then who, to whom and details', async () => {
    const { page } = await auditPage(390);
    // The third newest: an ordinary change (the second carries the long URI, which wraps over many lines).
    const card = page.getByTestId('audit-records').locator('tbody tr').nth(2);
    const [event, time, actor] = await Promise.all(
      ['.audit-event', '.audit-time', '.audit-actor'].map((cell) => card.locator(cell).boundingBox()),
    );
    assert.ok(event && time && actor);
    assert.ok(Math.abs(event.y - time.y) < 4, 'the event and its time share the first line');
    assert.ok(actor.y >= event.y + event.height - 1, 'who did it comes below');
    const height = (await card.boundingBox())?.height ?? 0;
    assert.ok(height < 160, `a card is compact (${height} px)`);
  });
});
