// Validation errors as a person reads them: typical bad input on the sign-up, sign-in, account and console routes
// answers a sentence about the field as its form labels it, never schema text, each problem once.
import assert from 'node:assert/strict';
import { after, describe, test } from 'node:test';
import { JSON_HEADERS } from './helpers/accounts.ts';
import { adminCaller } from './helpers/admin-api.ts';
import { startTestApp } from './helpers/app.ts';
import { startMailbox } from './helpers/mailbox.ts';
import { makeAdmin } from './helpers/oauth-fixtures.ts';

const { smtp, config } = await startMailbox();
after(() => smtp.stop());
const t = await startTestApp({ config });

let client = 0;
async function post(url: string, payload: unknown) {
  client += 1;
  const response = await t.app.inject({
    method: 'POST',
    url,
    headers: JSON_HEADERS,
    remoteAddress: `203.0.113.${client}`,
    payload: JSON.stringify(payload),
  });
  return {
    status: response.statusCode,
    json: response.json() as Record<string, unknown>,
    id: response.headers['x-request-id'],
  };
}

const invalid = (id: unknown, description: string, fields: { path: string; problem: string }[]) => ({
  error: 'invalid_request',
  error_description: description,
  request_id: id,
  fields,
});

describe('validation errors at the sign-up and sign-in routes', () => {
  test('POST /account/signup with "not-an-address" names the email address with an example', async () => {
    const r = await post('/account/signup', {
      email: 'not-an-address',
      password: 'a long passphrase 42',
      display_name: 'A',
    });
    assert.equal(r.status, 400);
    const problem =
      'Enter a plain address like name@example.org: at most 64 characters before the @, no quotes or spaces.';
    assert.deepEqual(
      r.json,
      invalid(r.id, `Email address: ${problem[0]?.toLowerCase()}${problem.slice(1)}`, [
        { path: 'body.email', problem },
      ]),
    );
  });

  test('POST /account/signup without a password says the password is required', async () => {
    const r = await post('/account/signup', { email: 'ann@acme-robotics.dev', display_name: 'Ann' });
    assert.deepEqual(
      r.json,
      invalid(r.id, 'Password: this is required.', [{ path: 'body.password', problem: 'This is required.' }]),
    );
  });

  test('POST /account/signup with an empty name says the name cannot be empty', async () => {
    const r = await post('/account/signup', {
      email: 'ann@acme-robotics.dev',
      password: 'a long passphrase 42',
      display_name: '',
    });
    assert.deepEqual(
      r.json,
      invalid(r.id, 'Name: enter a value; it cannot be empty.', [
        { path: 'body.display_name', problem: 'Enter a value; it cannot be empty.' },
      ]),
    );
  });

  test('POST /account/signup at a loopback issuer accepts name@localhost (the development owner is owner@localhost)', async () => {
    const r = await post('/account/signup', {
      email: 'tester@localhost',
      password: 'a long passphrase 42',
      display_name: 'T',
    });
    assert.equal(r.status, 201, JSON.stringify(r.json));
  });

  test('POST /auth/login with a field it does not take asks to remove it', async () => {
    const r = await post('/auth/login', { subject: 'ann@acme-robotics.dev', remember: true });
    assert.deepEqual(
      r.json,
      invalid(r.id, 'Remember: this request does not accept this field; remove it.', [
        { path: 'body.remember', problem: 'This request does not accept this field; remove it.' },
      ]),
    );
  });
});

describe('validation errors at the console routes', async () => {
  const admin = await makeAdmin(t);
  const call = adminCaller(t, admin.cookie);

  test('POST /admin/applications with "My App" explains what an identifier may contain', async () => {
    const r = await call('POST', '/admin/applications', {
      identifier: 'My App',
      name: 'Mine',
      environment: 'production',
    });
    assert.deepEqual(
      r.json,
      invalid(
        r.headers['x-request-id'],
        'Identifier: use lowercase letters, digits and hyphens, starting with a letter or digit.',
        [
          {
            path: 'body.identifier',
            problem: 'Use lowercase letters, digits and hyphens, starting with a letter or digit.',
          },
        ],
      ),
    );
  });

  test('POST /admin/applications with environment "qa" lists the environments to choose from', async () => {
    const r = await call('POST', '/admin/applications', { identifier: 'mine', name: 'Mine', environment: 'qa' });
    assert.deepEqual(
      r.json,
      invalid(r.headers['x-request-id'], 'Environment: choose one of development, staging, production.', [
        { path: 'body.environment', problem: 'Choose one of development, staging, production.' },
      ]),
    );
  });

  test('POST /admin/clients with a non-string redirect URI names the entry by its position', async () => {
    const app = await call('POST', '/admin/applications', {
      identifier: 'shop',
      name: 'Shop',
      environment: 'production',
    });
    const r = await call('POST', '/admin/clients', {
      application_id: app.json.id,
      name: 'Web',
      kind: 'web',
      redirect_uris: ['https://shop.example.test/cb', 7],
      scopes: ['openid'],
    });
    assert.deepEqual(
      r.json,
      invalid(r.headers['x-request-id'], 'Redirect URIs, entry 2: enter a single text value.', [
        { path: 'body.redirect_uris.1', problem: 'Enter a single text value.' },
      ]),
    );
  });

  test('no description anywhere above carries schema text', async () => {
    const r = await call('POST', '/admin/resources', { audience: 'x', name: '', scopes: [] });
    assert.equal(r.status, 400);
    assert.doesNotMatch(String(r.json.error_description), /body\.|must NOT|must match|must have|instancePath/);
  });
});
