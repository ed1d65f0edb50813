// The sign-in page offers other methods and sign-up only when GET /auth/providers says they exist.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import type { Config } from '../../src/config/schema.ts';
import { newPage } from '../helpers/browser.ts';
import { startBrowserApp } from '../helpers/browser-app.ts';
import { makeConfig } from '../helpers/config.ts';

async function openSignIn(config: Config) {
  const t = await startBrowserApp(config);
  const session = await newPage({ width: 390, height: 844 });
  const methods = session.page.waitForResponse((r) => r.url().endsWith('/auth/providers'));
  await session.page.goto(`${t.url}/signin?return_to=%2Fsettings`);
  assert.equal((await methods).status(), 200);
  await session.page.getByRole('button', { name: 'Continue' }).waitFor();
  return session;
}

describe('GET /signin: other sign-in methods (Chromium)', () => {
  test('shows no other methods and no sign-up link when nothing else is enabled', async () => {
    const { page, problems, screenshot } = await openSignIn(makeConfig());
    assert.equal(await page.getByRole('heading', { name: 'Other ways to sign in' }).count(), 0);
    assert.equal(await page.getByRole('link', { name: 'Create an account' }).count(), 0);
    await screenshot('signin-password-only');
    assert.deepEqual(problems, []);
  });

  test('offers a button per enabled provider and a sign-up link when self-service works', async () => {
    const { page, problems, screenshot } = await openSignIn(
      makeConfig({
        self_service: { enabled: true },
        delivery: {
          kind: 'smtp',
          from: 'id@acme-robotics.dev',
          smtp: { host: 'smtp.acme-robotics.dev', username: 'u', password: 'relay secret 5' },
        },
        providers: {
          github: { enabled: true, client_id: 'Iv1.8a61f9b3a7aba766', client_secret: 'gh-secret-0b1c2d3e' },
          gitlab: { enabled: true, client_id: 'placeholder', client_secret: 'placeholder' },
        },
      }),
    );
    const area = page.getByRole('region', { name: 'Other ways to sign in' });
    const github = area.getByRole('link', { name: 'Continue with GitHub' });
    assert.equal(await github.getAttribute('href'), '/account/connections/start?provider=github&return_to=%2Fsettings');
    assert.equal(await area.getByRole('link').count(), 1, 'the deferred GitLab is not offered');
    assert.equal(await page.getByRole('link', { name: 'Create an account' }).getAttribute('href'), '/signup');
    await screenshot('signin-other-methods');
    assert.deepEqual(problems, []);
  });
});
