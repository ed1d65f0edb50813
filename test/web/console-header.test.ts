// The console's header in Chromium at 1280 and 390 px: who is signed in (name, email, a link to the account page),
// "Sign out" that really ends the session, and on a phone a "Menu" button instead of four lines of links. With it the
// wording of the pages around it: "Create application" leads on to "Add a client", the client form starts over after
// "Create client", counts say "1 client", selects show their whole choice, and an invitee is listed as invited.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import type { Page } from 'playwright-core';
import { newPage } from '../helpers/browser.ts';
import { signInThrough } from '../helpers/browser-sign-in.ts';
import { makeConfig } from '../helpers/config.ts';
import { startConsoleApp } from '../helpers/console-app.ts';
import { overflowAt, saveScreenshot } from '../helpers/screenshot-folder.ts';

const { t, owner, call } = await startConsoleApp(
  makeConfig({
    organization: { id: 'acme', name: 'Acme Robotics', owner_subject: '' },
    self_service: { enabled: true },
    delivery: { kind: 'dev_mailbox' },
  }),
);
await t.sql`update identities set display_name = 'Grace Hopper' where id = ${owner.sub}`;

const WIDTHS = [
  { tag: 'desktop', viewport: { width: 1280, height: 900 } },
  { tag: 'phone', viewport: { width: 390, height: 844 } },
] as const;

/** Whether the session still opens the admin API, asked from the page (its cookie). */
const adminStatus = (page: Page) => page.evaluate(async () => (await fetch('/admin/me')).status);

/**
 * Each option of each select, measured in the select's own font against the room inside it (padding and the arrow
 * taken off): the options a closed select on a phone would cut.
 */
const cutOptions = (page: Page) =>
  page.evaluate(() => {
    const context = document.createElement('canvas').getContext('2d');
    if (!context) throw new Error('no canvas');
    const cut: string[] = [];
    for (const select of document.querySelectorAll('select')) {
      const style = getComputedStyle(select);
      context.font = style.font;
      const arrow = 24; // Chromium's drop-down arrow
      const room = select.clientWidth - Number.parseFloat(style.paddingLeft) - Number.parseFloat(style.paddingRight);
      for (const option of select.options)
        if (context.measureText(option.text).width > room - arrow) cut.push(`${select.id}: ${option.text}`);
    }
    return cut;
  });

describe('console header (Chromium)', () => {
  for (const { tag, viewport } of WIDTHS)
    test(`at ${viewport.width} px it names the signed-in person, links to their account page, and "Sign out" ends the session`, async () => {
      const { page, problems } = await newPage(viewport);
      await signInThrough(t, page, '/admin/console/clients', owner);
      await page.getByRole('heading', { name: 'OAuth clients', level: 1 }).waitFor();
      problems.splice(0); // the signed-out visit answered 401; from here on nothing may fail
      const header = page.getByRole('banner');
      const menu = header.getByRole('button', { name: 'Menu', exact: true });
      const sections = page.getByRole('navigation', { name: 'Console sections' });
      const person = header.locator('.console-person');

      if (tag === 'phone') {
        // Closed: the brand and the button on one line; the page's own heading on the first screen.
        assert.equal(await menu.getAttribute('aria-expanded'), 'false');
        assert.equal(await sections.isVisible(), false, 'the sections wait behind the menu');
        const height = (await header.boundingBox())?.height ?? 0;
        assert.ok(height <= 64, `the closed header is ${height} px tall`);
        await saveScreenshot(page, `console-header-menu-closed-${tag}`);
        await menu.click();
        assert.equal(await menu.getAttribute('aria-expanded'), 'true');
        await sections.getByRole('link', { name: 'Audit log' }).waitFor();
        await saveScreenshot(page, `console-header-menu-open-${tag}`);
        await page.keyboard.press('Escape');
        assert.equal(await sections.isVisible(), false, 'Escape closes the menu');
        assert.equal(await page.evaluate(() => document.activeElement?.textContent), 'Menu', 'focus is back on it');
        await menu.click();
      } else {
        assert.equal(await menu.isVisible(), false, 'no menu button where the sections fit');
        const nav = (await sections.boundingBox())?.height ?? 0;
        assert.ok(nav < 40, `the ten sections are one row (${nav} px tall)`);
      }

      assert.equal(
        await sections.getByRole('link', { name: 'Clients', exact: true }).getAttribute('aria-current'),
        'page',
      );
      const account = person.getByRole('link');
      assert.equal(await account.getAttribute('href'), '/settings');
      assert.equal(
        (await account.textContent())?.replace(/\s+/g, ' ').trim(),
        'Signed in as Grace Hopper owner@acme-robotics.dev (your account)',
      );
      await person.getByRole('button', { name: 'Sign out' }).waitFor();
      const overflow = await overflowAt(page, viewport.width);
      assert.ok(overflow.page <= viewport.width, `page is ${overflow.page} px wide: ${overflow.wide.join(', ')}`);
      await saveScreenshot(page, `console-header-${tag}`);

      assert.equal(await adminStatus(page), 200);
      await person.getByRole('button', { name: 'Sign out' }).click();
      await page.waitForURL(`${t.url}/signin`);
      assert.equal(await adminStatus(page), 401, 'the session ended on the server, not only in the page');
      assert.deepEqual(problems, []);
    });

  test('at 390 px the new-client form shows every select option whole, and the menu leads to another section', async () => {
    await call('POST', '/admin/applications', { identifier: 'fits', name: 'Fits', environment: 'production' });
    const { page, problems } = await newPage({ width: 390, height: 844 });
    await signInThrough(t, page, '/admin/console/clients', owner);
    await page.getByLabel('Kind').waitFor();
    problems.splice(0);
    await page.getByLabel('Kind').selectOption('service');
    assert.deepEqual(await cutOptions(page), [], 'every option fits its select');
    await page.getByText('Calls APIs as itself, with no person signed in; gets a secret.').waitFor();
    await saveScreenshot(page, 'console-client-form-selects-phone');

    await page.getByRole('button', { name: 'Menu', exact: true }).click();
    await page
      .getByRole('navigation', { name: 'Console sections' })
      .getByRole('link', { name: 'Applications' })
      .click();
    await page.getByRole('heading', { name: 'Applications', level: 1 }).waitFor();
    assert.equal(
      await page.getByRole('navigation', { name: 'Console sections' }).isVisible(),
      false,
      'the menu is closed on the new page',
    );
    assert.deepEqual(await cutOptions(page), []);
    assert.deepEqual(problems, []);
  });
});

describe('console wording and the way on (Chromium)', () => {
  test('"Create application" leads on to "Add a client" with it chosen; the form starts over after "Create client"', async () => {
    const { page, problems } = await newPage({ width: 1280, height: 900 });
    await signInThrough(t, page, '/admin/console/applications', owner);
    await page.getByLabel('Identifier').waitFor();
    problems.splice(0);
    await page.getByLabel('Identifier').fill('shop');
    await page.getByLabel('Name').fill('Shop');
    await page.getByRole('button', { name: 'Create application' }).click();
    const done = page.getByRole('status').filter({ hasText: 'Created application shop.' });
    await done.getByText('Next, add a client for it').waitFor();
    await saveScreenshot(page, 'console-application-created-desktop');
    const [shop] = await t.sql<{ id: string }[]>`select id from oauth_applications where identifier = 'shop'`;
    // A newer application, so a form that merely chose the newest would choose the wrong one.
    await call('POST', '/admin/applications', { identifier: 'newer', name: 'Newer', environment: 'staging' });

    await done.getByRole('link', { name: 'Add a client' }).click();
    await page.waitForURL(`${t.url}/admin/console/clients?application=${shop?.id}#new-client`);
    await page.getByRole('heading', { name: 'New client' }).waitFor();
    assert.equal(await page.getByLabel('Application').inputValue(), shop?.id);
    assert.equal(await page.evaluate(() => document.activeElement?.id), 'client-name', 'the form is where focus is');

    await page.getByLabel('Name').fill('Shop web');
    await page.getByLabel('Kind').selectOption('browser');
    await page.getByLabel('Redirect URIs').fill('https://shop.acme-robotics.dev/callback');
    await page.getByLabel('First-party (no consent screen)').uncheck();
    await page.getByRole('button', { name: 'Create client' }).click();
    await page.getByRole('status').filter({ hasText: 'Created client Shop web.' }).waitFor();
    await page.getByRole('cell', { name: 'Shop web', exact: true }).waitFor();
    assert.equal(await page.locator('caption').first().textContent(), '1 client');
    assert.equal(await page.getByLabel('Name').inputValue(), '', 'the name starts over');
    assert.equal(await page.getByLabel('Redirect URIs').inputValue(), '', 'so do the redirect URIs');
    assert.equal(await page.getByLabel('Kind').inputValue(), 'web', 'and the kind');
    assert.equal(await page.getByLabel('First-party (no consent screen)').isChecked(), true, 'and first-party');
    await saveScreenshot(page, 'console-client-created-desktop');
    assert.deepEqual(problems, []);
  });

  for (const { tag, viewport } of WIDTHS)
    test(`at ${viewport.width} px an invitee is listed as invited until they accept`, async () => {
      const email = `invitee-${tag}@acme-robotics.dev`;
      const invited = await call('POST', '/admin/identities', {
        email,
        display_name: `Invitee ${tag}`,
        roles: ['member'],
      });
      assert.equal(invited.status, 201);
      const { page, problems } = await newPage(viewport);
      await signInThrough(t, page, `/admin/console/identities?q=${encodeURIComponent(email)}`, owner);
      problems.splice(0);
      const row = page.getByRole('row').filter({ hasText: email });
      await row.getByRole('cell', { name: 'invited', exact: true }).waitFor();
      await saveScreenshot(page, `console-identities-invited-${tag}`);
      await row.getByRole('link', { name: `Invitee ${tag}` }).click();
      await page.getByText('has not used the invitation link yet').waitFor();
      assert.match((await page.getByTestId('identity-state').textContent()) ?? '', /^invited \(has not used/);
      assert.deepEqual(problems, []);
    });
});
