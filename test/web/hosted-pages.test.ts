// The hosted pages as a person meets them: an unknown address in the browser is a page with a way back (API paths
// keep the JSON envelope), every page carries the organization's branding, the sign-in page can name the application
// of a pending authorization request, and the consent page says who is signed in with a way to switch accounts.
import assert from 'node:assert/strict';
import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { describe, test } from 'node:test';
import { parseConfig } from '../../src/config/load.ts';
import { BrandingError, loadBranding } from '../../src/web/branding.ts';
import { startTestApp } from '../helpers/app.ts';
import { makeConfig, scratchDir } from '../helpers/config.ts';
import { makeClient, makeIdentity, makeSession } from '../helpers/oauth-fixtures.ts';
import { authorizeUrl, pkcePair } from '../helpers/oauth-flow.ts';

// The smallest valid PNG: 1x1, one transparent pixel.
const PNG = Buffer.from(
  'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAQAAAC1HAwCAAAAC0lEQVR42mNkYAAAAAYAAjCB0C8AAAAASUVORK5CYII=',
  'base64',
);
const dir = scratchDir('branding');
const logo = path.join(dir, 'logo.png');
writeFileSync(logo, PNG);

const base = makeConfig();
const t = await startTestApp({
  config: {
    ...base,
    organization: { ...base.organization, name: 'Acme <Robotics>' },
    branding: { ...base.branding, accent_color: '#7A1F5C', logo_file: logo },
  },
});
const html = { accept: 'text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8' };
const get = (url: string, headers: Record<string, string> = {}) => t.app.inject({ method: 'GET', url, headers });

describe('GET of an unknown address', () => {
  test('a browser navigation to /no-such-page gets the UI page (HTML, 404) with the branding, under the page CSP', async () => {
    const r = await get('/no-such-page', html);
    assert.equal(r.statusCode, 404);
    assert.match(r.headers['content-type'] as string, /^text\/html/);
    assert.match(r.headers['content-security-policy'] as string, /script-src 'self'/);
    assert.equal(r.headers['cache-control'], 'no-store');
    assert.match(r.body, /<div id="app">/, 'the UI renders its "Page not found" page with links back');
    assert.match(r.body, /<meta name="gatehouse-organization" content="Acme &#60;Robotics&#62;">/);
  });

  for (const url of ['/oauth/nope', '/admin/nope', '/account/nope', '/auth/nope', '/health/nope', '/.well-known/nope'])
    test(`${url} keeps the JSON not_found envelope even for a browser`, async () => {
      const r = await get(url, html);
      assert.equal(r.statusCode, 404);
      assert.deepEqual(r.json(), {
        error: 'not_found',
        error_description: 'No such resource.',
        request_id: r.headers['x-request-id'],
      });
    });

  test('an API client (Accept: application/json) gets the JSON envelope at a page-like path', async () => {
    const r = await get('/no-such-page', { accept: 'application/json' });
    assert.equal(r.statusCode, 404);
    assert.equal(r.json().error, 'not_found');
  });

  test('/admin/consolex is under the admin API, not the console pages, so it stays JSON', async () => {
    const r = await get('/admin/consolex', html);
    assert.equal(r.statusCode, 404);
    assert.equal(r.json().error, 'not_found');
  });
});

describe('branding', () => {
  test('every UI page carries the organization name, the logo and the accent stylesheet in its head', async () => {
    for (const url of ['/signin', '/signup', '/settings', '/admin/console']) {
      const r = await get(url, html);
      assert.equal(r.statusCode, 200, url);
      assert.match(r.body, /<title>Acme &#60;Robotics&#62;<\/title>/, url);
      assert.match(r.body, /<link rel="stylesheet" href="\/branding\/accent.css">/, url);
      assert.match(r.body, /<meta name="gatehouse-logo" content="\/branding\/logo">/, url);
    }
  });

  test('GET /branding/accent.css sets the configured accent, lower-cased', async () => {
    const r = await get('/branding/accent.css');
    assert.equal(r.statusCode, 200);
    assert.match(r.headers['content-type'] as string, /^text\/css/);
    assert.equal(r.body, ':root{--accent:#7a1f5c}\n');
  });

  test('GET /branding/logo serves the PNG as image/png, same-origin, with nothing active allowed', async () => {
    const r = await get('/branding/logo');
    assert.equal(r.statusCode, 200);
    assert.equal(r.headers['content-type'], 'image/png');
    assert.equal(r.headers['cross-origin-resource-policy'], 'same-origin');
    assert.equal(r.headers['content-security-policy'], "default-src 'none'");
    assert.deepEqual(r.rawPayload, PNG);
  });

  test('an SVG logo is refused at startup, naming the key', () => {
    const svg = path.join(dir, 'logo.svg');
    writeFileSync(svg, '<svg xmlns="http://www.w3.org/2000/svg"><script>alert(1)</script></svg>');
    assert.throws(
      () => loadBranding({ ...base, branding: { ...base.branding, accent_color: '#0b5cad', logo_file: svg } }),
      {
        name: BrandingError.name,
        message: 'branding.logo_file must be a PNG, JPEG or WebP image (SVG is refused: it can carry script)',
      },
    );
  });

  test('an accent too light for white button text is a configuration error naming branding.accent_color', () => {
    assert.throws(
      () =>
        parseConfig('[branding]\naccent_color = "#ffcc00"\n', 'gatehouse.toml', { baseDir: dir, development: false }),
      (error: Error) => /branding\.accent_color/.test(error.message) && /4\.5:1/.test(error.message),
    );
    assert.throws(
      () => parseConfig('[branding]\naccent_color = "blue"\n', 'gatehouse.toml', { baseDir: dir, development: false }),
      /branding\.accent_color/,
    );
  });

  test('the server-rendered pages (here the authorization error page) carry the same header and stylesheets', async () => {
    const r = await get('/oauth/authorize?client_id=nobody&redirect_uri=https://x.example.test/cb');
    assert.equal(r.statusCode, 400);
    assert.match(
      r.body,
      /<header class="brand"><img class="brand-logo" src="\/branding\/logo" alt=""><span class="brand-name">Acme &#60;Robotics&#62;<\/span><\/header>/,
    );
    assert.match(r.body, /<link rel="stylesheet" href="\/branding\/accent.css">/);
    assert.match(r.body, /<title>This sign-in request cannot continue · Acme &#60;Robotics&#62;<\/title>/);
  });
});

describe('the application of a pending authorization request', async () => {
  const { client } = await makeClient(t.sql, t.secrets.clientSecret, { name: 'Shop Web', firstParty: false });
  const { challenge } = pkcePair();

  test('GET /oauth/authorize/client names the client for its client_id and a registered redirect_uri', async () => {
    const query = new URLSearchParams({ client_id: client.id, redirect_uri: client.redirectUris[0] ?? '' });
    const r = await get(`/oauth/authorize/client?${query}`);
    assert.equal(r.statusCode, 200);
    assert.deepEqual(r.json(), { name: 'Shop Web' });
  });

  test('GET /oauth/authorize/client with an unregistered redirect_uri is 404 not_found and names nothing', async () => {
    const query = new URLSearchParams({ client_id: client.id, redirect_uri: 'https://evil.example.test/cb' });
    const r = await get(`/oauth/authorize/client?${query}`);
    assert.deepEqual(r.json(), {
      error: 'not_found',
      error_description: 'No client signs in with this client_id and redirect_uri',
      request_id: r.headers['x-request-id'],
    });
  });

  test('the consent page shows who is signed in; "Use another account" ends the session and signs in again for the same request', async () => {
    const sub = await makeIdentity(t.sql, { displayName: 'Dana Reyes', email: 'dana@acme-robotics.dev' });
    const { cookie } = await makeSession(t, sub);
    const url = authorizeUrl({ client, challenge, scope: 'openid' });
    const page = await get(url, { cookie });
    assert.equal(page.statusCode, 200, page.body);
    assert.match(
      page.body,
      /Signed in as <strong>Dana Reyes<\/strong> \(dana@acme-robotics.dev\)\. Not you\? <button type="submit" class="link">Use another account<\/button>/,
    );
    const field = (name: string) =>
      (new RegExp(`name="${name}" value="([^"]*)"`).exec(page.body)?.[1] ?? '').replaceAll('&#38;', '&');
    const form = new URLSearchParams({ request: field('request'), csrf: field('csrf') }).toString();
    const post = (headers: Record<string, string>, payload = form) =>
      t.app.inject({
        method: 'POST',
        url: '/oauth/authorize/switch-account',
        headers: { cookie, 'content-type': 'application/x-www-form-urlencoded', ...headers },
        payload,
      });
    const forged = await post({ origin: 'http://localhost:8080' }, form.replace(/csrf=[^&]*/, 'csrf=forged'));
    assert.equal(forged.statusCode, 403);
    assert.equal(forged.json().error, 'csrf_rejected');
    assert.equal((await get(url, { cookie })).statusCode, 200, 'a refused switch leaves the session alone');

    const r = await post({ origin: 'http://localhost:8080' });
    assert.equal(r.statusCode, 303);
    const location = new URL(r.headers.location as string, 'http://localhost:8080');
    assert.equal(location.pathname, '/signin');
    assert.equal(location.searchParams.get('return_to'), `/oauth/authorize?${field('request')}`);
    const after = await get(url, { cookie });
    assert.equal(after.statusCode, 302, 'the old session no longer signs anyone in');
    assert.match(after.headers.location as string, /^\/signin\?/);
  });
});
