import assert from 'node:assert/strict';
import { existsSync } from 'node:fs';
import { describe, test } from 'node:test';
import { PAGE_CSP } from '../../src/web/pages.ts';
import { WEB_DIST } from '../../src/web/ui-build.ts';
import { startTestApp } from '../helpers/app.ts';
import { newPage } from '../helpers/browser.ts';

describe('GET /signin (web UI in Chromium)', async () => {
  assert.ok(existsSync(`${WEB_DIST}index.html`), 'web/dist is missing: run `npm run build:web` (npm ci does it)');
  const { url } = await startTestApp({ listen: true });

  test('serves the page under the strict page CSP, never cached', async () => {
    const response = await fetch(`${url}/signin`);
    assert.equal(response.status, 200);
    assert.equal(response.headers.get('content-security-policy'), PAGE_CSP);
    assert.equal(response.headers.get('cache-control'), 'no-store');
    assert.equal(response.headers.get('referrer-policy'), 'no-referrer');
    const html = await response.text();
    assert.doesNotMatch(html, /<script>(?!<\/script>)|<script(?![^>]*\bsrc=)[^>]*>/, 'no inline script');
    assert.doesNotMatch(html, /https?:\/\//, 'no other origin referenced');
  });

  test('renders a labelled form, and a failed step shows the error message and request id', async () => {
    const { page, problems, screenshot } = await newPage({ width: 390, height: 844 });
    await page.goto(`${url}/signin?return_to=%2Fsettings`);
    // The tab names the organization (config organization.name), not the product.
    assert.equal(await page.title(), 'Sign in · Acme');
    await page.getByLabel('Email address').fill('nobody@acme.test');
    await page.getByRole('button', { name: 'Continue' }).click();
    const alert = page.getByRole('alert');
    await alert.waitFor();
    const text = await alert.textContent();
    // Whatever the API answered, the page shows its description and the request id from the envelope.
    assert.match(text ?? '', /Request ID: [A-Za-z0-9_-]{16}/);
    await screenshot('signin-error');
    assert.deepEqual(
      problems.filter((p) => /Content Security Policy/i.test(p)),
      [],
    );
  });

  test('assets are immutable and an unknown asset is a 404 envelope', async () => {
    const html = await (await fetch(`${url}/signin`)).text();
    const script = /src="(\/assets\/[^"]+\.js)"/.exec(html)?.[1];
    assert.ok(script);
    const asset = await fetch(`${url}${script}`);
    assert.equal(asset.status, 200);
    assert.equal(asset.headers.get('cache-control'), 'public, max-age=31536000, immutable');
    assert.equal(asset.headers.get('content-type'), 'text/javascript; charset=utf-8');
    assert.equal(asset.headers.get('cross-origin-resource-policy'), 'same-origin');
    assert.equal(asset.headers.get('x-content-type-options'), 'nosniff');
    const body = await asset.text();
    assert.ok(body.length > 0);
    const head = await fetch(`${url}${script}`, { method: 'HEAD' });
    assert.equal(head.status, 200);
    assert.equal(head.headers.get('content-length'), String(Buffer.byteLength(body)));
    for (const path of ['/assets/nope.js', '/assets/..%2Findex.html', '/assets/%2E%2E%2Fpackage.json', '/assets/']) {
      const missing = await fetch(`${url}${path}`);
      assert.equal(missing.status, 404, path);
      assert.equal(((await missing.json()) as { error: string }).error, 'not_found', path);
    }
  });
});
