// The sign-in and sign-up pages offer other methods, and sign-in offers sign-up, only when GET /auth/providers says
// they can be used.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import type { Config } from '../../src/config/schema.ts';
import { newPage } from '../helpers/browser.ts';
import { startBrowserApp } from '../helpers/browser-app.ts';
import { makeConfig } from '../helpers/config.ts';
import { providerSecretsDir } from '../helpers/provider-secrets.ts';

async function openSignIn(config: Config) {
  const t = await startBrowserApp(config);
  const session = await newPage({ width: 390, height: 844 });
  const answer = session.page.waitForResponse((r) => r.url().endsWith('/auth/providers'));
  await session.page.goto(`${t.url}/signin?return_to=%2Fsettings`);
  assert.equal((await answer).status(), 200);
  const methods = (await (await answer).json()) as { providers: unknown[] };
  await session.page.getByRole('button', { name: 'Continue' }).waitFor();
  return { ...session, methods };
}

describe('GET /signin: other sign-in methods (Chromium)', () => {
  test('shows no other methods and no sign-up link when nothing else is enabled', async () => {
    const { page, problems, screenshot } = await openSignIn(makeConfig());
    assert.equal(await page.getByRole('heading', { name: 'Other ways to sign in' }).count(), 0);
    assert.equal(await page.getByRole('link', { name: 'Create an account' }).count(), 0);
    await screenshot('signin-password-only');
    assert.deepEqual(problems, []);
  });

  test('offers a sign-up link when self-service works, a button with its mark per startable provider, and none for a provider without a flow; the sign-up page offers the same', async () => {
    const { page, problems, screenshot, methods } = await openSignIn(
      makeConfig({
        self_service: { enabled: true },
        delivery: {
          kind: 'smtp',
          from: 'id@acme-robotics.dev',
          smtp: {
            host: 'smtp.acme-robotics.dev',
            username: 'u',
            password_file: '/etc/gatehouse/secrets/smtp-password',
          },
        },
        secrets: { dir: providerSecretsDir({ github: 'gh-secret-0b1c2d3e' }) },
        providers: {
          github: { enabled: true, client_id: 'Iv1.8a61f9b3a7aba766' },
          gitlab: { enabled: true, client_id: 'placeholder' },
          ethereum: { enabled: true },
        },
      }),
    );
    // The API lists GitHub and the Ethereum wallet (not the deferred GitLab); Ethereum starts with a JSON POST.
    assert.deepEqual(methods.providers, [
      { id: 'github', name: 'GitHub', kind: 'redirect', start_url: '/auth/federated/start?provider=github' },
      { id: 'ethereum', name: 'Ethereum wallet', kind: 'web3', start_url: '/auth/web3/ethereum/start' },
    ]);
    await page.getByRole('heading', { name: 'Other ways to sign in' }).waitFor();
    // No wallet in this browser: the page says how to get one instead of a button that cannot work.
    await page.getByText('To use an Ethereum wallet, install or unlock one in this browser.').waitFor();
    const buttons = page.locator('.other-methods a');
    assert.deepEqual(await buttons.allTextContents(), ['G Continue with GitHub']);
    assert.equal(
      await buttons.first().getAttribute('href'),
      '/auth/federated/start?provider=github&return_to=%2Fsettings',
    );
    assert.equal(await page.getByRole('link', { name: 'Continue with GitHub' }).count(), 1);
    assert.equal(await page.getByRole('link', { name: 'Create an account' }).getAttribute('href'), '/signup');
    await screenshot('signin-other-methods');

    // The sign-up page offers the same providers (a new upstream account becomes a new account), GitLab still not.
    await page.getByRole('link', { name: 'Create an account' }).click();
    const group = page.getByRole('region', { name: 'Or sign up with' });
    await group.waitFor();
    await page.getByRole('button', { name: 'Create account' }).waitFor();
    const signUpButtons = group.getByRole('link');
    assert.deepEqual(await signUpButtons.allTextContents(), ['G Continue with GitHub']);
    assert.equal(
      await group
        .locator('.provider-mark')
        .allTextContents()
        .then((m) => m.join()),
      'G',
    );
    assert.equal(
      await signUpButtons.first().getAttribute('href'),
      '/auth/federated/start?provider=github&return_to=%2F',
    );
    assert.equal(await page.getByText('GitLab').count(), 0);
    assert.equal(await page.getByRole('heading', { name: 'Other ways to sign in' }).count(), 0);
    await screenshot('signup-other-methods');
    assert.deepEqual(problems, []);
  });
});
