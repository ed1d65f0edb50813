// The owner reads the audit log and the status page in Chromium: filters the log to one event, verifies the chain,
// then opens the status page and sees the database reachable and delivery deferred (a placeholder relay host).
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { makeAccount, totpCode } from '../helpers/accounts.ts';
import { newPage } from '../helpers/browser.ts';
import { startBrowserApp } from '../helpers/browser-app.ts';
import { makeConfig } from '../helpers/config.ts';
import { openConsoleSection } from '../helpers/console-nav.ts';

const t = await startBrowserApp(
  makeConfig({
    organization: { id: 'acme', name: 'Acme', owner_subject: 'owner@acme-robotics.dev' },
    delivery: {
      kind: 'smtp',
      from: 'no-reply@acme-robotics.dev',
      smtp: {
        host: 'smtp.example.com',
        username: 'placeholder',
        password_file: '/etc/gatehouse/secrets/smtp-password',
      },
    },
  }),
);
await t.sql`insert into organizations (id, name) values ('acme', 'Acme')`;
const owner = await makeAccount(t.sql, t.secrets, t.config, {
  email: 'owner@acme-robotics.dev',
  roles: ['owner'],
  assurance: 'ial2',
});
for (const subject of ['cli_billing', 'cli_shop'])
  await t.deps.audit.record({ event: 'client.created', actor: owner.sub, subject, details: { kind: 'web' } });

describe('the console audit log and status pages (Chromium)', () => {
  test('the owner filters the audit log to one event, sees the chain verified, and reads the status page', async () => {
    const { page, problems, screenshot } = await newPage({ width: 390, height: 844 });
    await page.goto(`${t.url}/admin/console/audit`);
    await page.waitForURL(/\/signin\?return_to=%2Fadmin%2Fconsole%2Faudit/);
    await page.getByLabel('Email address').fill(owner.email);
    await page.getByRole('button', { name: 'Continue' }).click();
    await page.getByLabel('Password').fill(owner.password);
    t.clock.advance(30);
    await page.getByLabel('Authentication code').fill(totpCode(owner.totpSeed ?? '', t.clock.now()));
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.getByRole('heading', { name: 'Audit log' }).waitFor();
    // The signed-out visit answered 401 (that is what sent the page to sign-in); from here on, nothing may fail.
    problems.splice(0);

    await page.getByRole('cell', { name: 'cli_billing' }).waitFor();
    await page.getByRole('cell', { name: 'signin.succeeded' }).waitFor();
    // The filters are one folded line above the records; opening it shows the form.
    await page.locator('details.audit-filters summary').click();
    await page.getByLabel('Event').fill('signin.succeeded');
    // The unfiltered table already shows a signin.succeeded cell, so waiting for one proves nothing: wait for the
    // filtered answer, then for the table to drop what the filter excludes (it is hidden while it reloads).
    const filtered = page.waitForResponse((r) => {
      const url = new URL(r.url());
      return url.pathname === '/admin/audit' && url.searchParams.get('event') === 'signin.succeeded';
    });
    await page.getByRole('button', { name: 'Apply filters' }).click();
    await filtered;
    await page.getByRole('cell', { name: 'client.created' }).first().waitFor({ state: 'detached' });
    await page.getByRole('cell', { name: 'signin.succeeded' }).waitFor();
    assert.equal(await page.getByRole('cell', { name: 'client.created' }).count(), 0, 'only the chosen event');
    assert.equal(await page.getByRole('cell', { name: 'signin.succeeded' }).count(), 1);

    // A change committed on a node that stopped before chaining its record: verified chains, one record waiting.
    await t.sql.begin((tx) =>
      t.deps.audit.recordIn(tx, { event: 'client.deleted', actor: owner.sub, subject: 'cli_x' }),
    );
    await page.getByRole('button', { name: 'Verify the chain' }).click();
    const result = page.getByTestId('chain-result');
    await result.waitFor();
    assert.match((await result.textContent()) ?? '', /^Verified 3 records in 1 chain, none changed or missing/);
    assert.match(
      (await page.getByTestId('chain-pending').textContent()) ?? '',
      /^1 record of committed changes waits to join a chain \(oldest from .+\); until they do, no HMAC protects them/,
    );
    await t.deps.audit.chainPending();
    await screenshot('console-audit-log');

    await openConsoleSection(page, 'Status');
    await page.getByRole('heading', { name: /^Database/ }).waitFor();
    const database = page.getByTestId('status-database');
    assert.match((await database.getByRole('heading').textContent()) ?? '', /Database\s*OK/);
    assert.match((await database.textContent()) ?? '', /ReachableYes/);
    const delivery = page.getByTestId('status-delivery');
    assert.match((await delivery.getByRole('heading').textContent()) ?? '', /Verification delivery\s*Warning/);
    assert.match((await delivery.textContent()) ?? '', /StateDeferred/);
    assert.match(
      (await delivery.textContent()) ?? '',
      /delivery\.smtp\.host "smtp\.example\.com" is a placeholder host/,
    );
    assert.match(
      (await page.getByTestId('status-summary').textContent()) ?? '',
      /Warning Gatehouse runs, but something below needs attention/,
    );
    await screenshot('console-status');
    assert.deepEqual(problems, []);
  });
});
