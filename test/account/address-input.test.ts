// Typed email addresses at the routes that send mail to them: odd input is a 4xx envelope that stores nothing
// (no identity, no verification, no message, no throttle counter), never a 500; a plain address is accepted.
import assert from 'node:assert/strict';
import { after, describe, test } from 'node:test';
import type { LightMyRequestResponse } from 'fastify';
import { JSON_HEADERS, makeAccount } from '../helpers/accounts.ts';
import { startTestApp } from '../helpers/app.ts';
import { startMailbox } from '../helpers/mailbox.ts';
import { makeSession } from '../helpers/oauth-fixtures.ts';

const { smtp, config } = await startMailbox();
after(() => smtp.stop());
const t = await startTestApp({ config });

const PASSWORD = 'a long enough passphrase 42';
let clientCounter = 0;
const post = (url: string, payload: unknown, cookie = '') => {
  clientCounter += 1;
  return t.app.inject({
    method: 'POST',
    url,
    headers: { ...JSON_HEADERS, ...(cookie ? { cookie } : {}) },
    // A fresh client address per request, so the per-IP mail throttle never decides an outcome here.
    remoteAddress: `198.51.100.${clientCounter % 250}`,
    payload: JSON.stringify(payload),
  });
};

/** Row counts of everything a mail-sending request could store. */
async function stored() {
  const [row] = await t.sql`
    select (select count(*)::int from identities) as identities, (select count(*)::int from emails) as emails,
           (select count(*)::int from sign_in_methods) as methods,
           (select count(*)::int from verifications) as verifications,
           (select count(*)::int from outbox_messages) as messages,
           (select count(*)::int from login_throttle) as throttle`;
  return row;
}

const LABELS: Record<string, string> = { 'body.email': 'Email address', 'body.new_email': 'New email address' };

function assertInvalidRequest(response: LightMyRequestResponse, field: string) {
  assert.equal(response.statusCode, 400, response.body);
  const body = response.json() as Record<string, unknown>;
  assert.equal(body.error, 'invalid_request');
  assert.equal(body.request_id, response.headers['x-request-id']);
  assert.equal(typeof body.error_description, 'string');
  // A sentence naming the field as the form labels it, never schema text.
  const label = LABELS[field] ?? field;
  assert.match(String(body.error_description), new RegExp(`^${label}: [a-z]`), `${body.error_description}`);
  assert.doesNotMatch(String(body.error_description), /body\.|must match|must NOT|must be/);
  assert.deepEqual(Object.keys(body).sort(), ['error', 'error_description', 'fields', 'request_id']);
  const fields = body.fields as { path: string; problem: string }[];
  assert.equal(fields[0]?.path, field);
  assert.match(fields[0]?.problem ?? '', /^[A-Z].*\.$/);
}

const LONG_LOCAL = `${'a'.repeat(65)}@acme-robotics.dev`;

// [label, email, expected]: 201 accepted, 400 refused. Anything else (above all a 500) fails.
const TABLE: [string, unknown, 201 | 400][] = [
  ['a 64-character local part', `${'b'.repeat(64)}@acme-robotics.dev`, 201],
  ['a 65-character local part', LONG_LOCAL, 400],
  ['a 300-character local part', `${'c'.repeat(300)}@acme-robotics.dev`, 400],
  ['an address past 254 characters', `d@${Array(5).fill('e'.repeat(60)).join('.')}.dev`, 400],
  ['a 63-character domain label', `label@${'i'.repeat(63)}.dev`, 201],
  ['a 64-character domain label', `label@${'i'.repeat(64)}.dev`, 400],
  ['a dotless domain at a loopback issuer (development)', 'root@localhost', 201],
  ['a unicode local part', 'jürgen@acme-robotics.dev', 400],
  ['a unicode domain (IDN, not punycode)', 'info@bücher.dev', 400],
  ['a punycode domain', 'info@xn--bcher-kva.dev', 201],
  ['a right-to-left override', 'admin\u202e@acme-robotics.dev', 400],
  ['a NUL byte', 'nul\u0000@acme-robotics.dev', 400],
  ['a CR LF header injection', 'x@acme-robotics.dev\r\nBcc: victim@acme-robotics.dev', 400],
  ['a tab', 'tab\t@acme-robotics.dev', 400],
  ['surrounding spaces', '  spaced@acme-robotics.dev  ', 400],
  ['a quoted local part', '"quoted"@acme-robotics.dev', 400],
  ['a quoted local part with a space and an @', '"a b@c"@acme-robotics.dev', 400],
  ['two @', 'a@b@acme-robotics.dev', 400],
  ['only @', '@@@', 400],
  ['no local part', '@acme-robotics.dev', 400],
  ['a trailing dot', 'dot@acme-robotics.dev.', 400],
  ['a double dot in the domain', 'dot@acme..dev', 400],
  ['a leading hyphen in the domain', 'dash@-acme.dev', 400],
  ['angle brackets', '<angle@acme-robotics.dev>', 400],
  ['a display name', 'Eve <eve@acme-robotics.dev>', 400],
  ['plus and apostrophe', "o'brien+tag@acme-robotics.dev", 201],
  ['upper case', 'UPPER@ACME-Robotics.DEV', 201],
  ['the empty string', '', 400],
  ['a number', 42, 400],
  ['null', null, 400],
  ['an array', ['list@acme-robotics.dev'], 400],
];

describe('POST /account/signup email field', () => {
  for (const [label, email, expected] of TABLE)
    test(`${label}: answers ${expected}${expected === 400 ? ' invalid_request and stores nothing' : ''}`, async () => {
      const before = await stored();
      const response = await post('/account/signup', { email, password: PASSWORD, display_name: 'Fuzz' });
      if (expected === 201) {
        assert.equal(response.statusCode, 201, response.body);
        return;
      }
      assertInvalidRequest(response, 'body.email');
      assert.deepEqual(await stored(), before);
    });
});

describe('POST /account/signup at a public issuer', async () => {
  const { smtp: publicSmtp, config: publicMail } = await startMailbox();
  after(() => publicSmtp.stop());
  const issuer = 'https://id.acme-robotics.dev';
  const pub = await startTestApp({ config: { ...publicMail, server: { ...publicMail.server, issuer } } });

  test('refuses a dotless domain (root@localhost) with a sentence about the email address, storing nothing', async () => {
    const response = await pub.app.inject({
      method: 'POST',
      url: '/account/signup',
      headers: { 'content-type': 'application/json', origin: issuer },
      payload: JSON.stringify({ email: 'root@localhost', password: PASSWORD, display_name: 'Root' }),
    });
    assert.deepEqual(response.json(), {
      error: 'invalid_request',
      error_description:
        'Email address: enter a plain address like name@example.org: at most 64 characters before the @, no quotes or spaces.',
      request_id: response.headers['x-request-id'],
      fields: [
        {
          path: 'body.email',
          problem:
            'Enter a plain address like name@example.org: at most 64 characters before the @, no quotes or spaces.',
        },
      ],
    });
    const [row] = await pub.sql`select count(*)::int as n from identities`;
    assert.equal(row?.n, 0);
  });
});

describe('POST /account/password/forgot email field', () => {
  test('a 65-character local part is 400 invalid_request and counts nothing', async () => {
    const before = await stored();
    assertInvalidRequest(await post('/account/password/forgot', { email: LONG_LOCAL }), 'body.email');
    assert.deepEqual(await stored(), before);
  });
});

describe('POST /account/email/change new_email field', () => {
  test('a 65-character local part is 400 invalid_request, before the password is checked or anything stored', async () => {
    const person = await makeAccount(t.sql, t.secrets, config, { email: 'mover@acme-robotics.dev' });
    const { cookie } = await makeSession(t, person.sub);
    const before = await stored();
    const response = await post(
      '/account/email/change',
      { new_email: LONG_LOCAL, password: 'not even the right password' },
      cookie,
    );
    assertInvalidRequest(response, 'body.new_email');
    assert.deepEqual(await stored(), before);
  });
});
