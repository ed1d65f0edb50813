// Every route that sets a password refuses a guessable one with weak_password, says why, and follows
// passwords.minimum_score: sign-up, reset, change and owner enrollment (NIST SP 800-63B §3.1.1.2).
import assert from 'node:assert/strict';
import { after, describe, test } from 'node:test';
import type { LightMyRequestResponse } from 'fastify';
import { issueEnrollmentLink } from '../../src/login/local/enrollment-link.ts';
import { JSON_HEADERS, makeAccount } from '../helpers/accounts.ts';
import { startTestApp, type TestApp } from '../helpers/app.ts';
import { deliveryWorker, Inbox, proof, startMailbox, verificationLink } from '../helpers/mailbox.ts';
import { makeSession } from '../helpers/oauth-fixtures.ts';

/** An app of the organization "Acme Robotics" (id `acme`) with delivery and self-service on. */
async function instance(minimumScore: number) {
  const mailbox = await startMailbox();
  after(() => mailbox.smtp.stop());
  const config = { ...mailbox.config, passwords: { ...mailbox.config.passwords, minimum_score: minimumScore } };
  const t = await startTestApp({ config });
  const inbox = new Inbox(mailbox.smtp, deliveryWorker(t.sql, config, t.secrets.delivery, t.clock.now, t.logs));
  return { t, inbox };
}

const post = (t: TestApp, url: string, payload: object, cookie = '') =>
  t.app.inject({ method: 'POST', url, headers: { ...JSON_HEADERS, ...(cookie ? { cookie } : {}) }, payload });

/** One route that sets a password: `submit` tries one password for the same person (and link) every time. */
interface PasswordRoute {
  name: string;
  path: string;
  label: string;
  ok: number;
  /** Sets up a person whose email local part is `local`; returns the submitter. */
  prepare(t: TestApp, inbox: Inbox, local: string): Promise<(password: string) => Promise<LightMyRequestResponse>>;
}

const DOMAIN = 'acme-robotics.dev';

const routes: PasswordRoute[] = [
  {
    name: 'POST /account/signup',
    path: 'body.password',
    label: 'Password',
    ok: 201,
    prepare: async (t, inbox, local) => async (password) => {
      const response = await post(t, '/account/signup', {
        email: `${local}@${DOMAIN}`,
        password,
        display_name: 'Q. V.',
      });
      // The verification message leaves the inbox, so the reset route below reads its own link.
      if (response.statusCode === 201) await inbox.deliver(1);
      return response;
    },
  },
  {
    name: 'POST /account/password/reset',
    path: 'body.password',
    label: 'Password',
    ok: 200,
    prepare: async (t, inbox, local) => {
      const person = await makeAccount(t.sql, t.secrets, t.config, { email: `${local}@${DOMAIN}` });
      assert.equal((await post(t, '/account/password/forgot', { email: person.email })).statusCode, 202);
      const link = verificationLink((await inbox.deliver(1))[0]?.text ?? '');
      return (password) => post(t, '/account/password/reset', { ...proof(link), password });
    },
  },
  {
    name: 'POST /account/password/change',
    path: 'body.new_password',
    label: 'New password',
    ok: 200,
    prepare: async (t, _inbox, local) => {
      const person = await makeAccount(t.sql, t.secrets, t.config, { email: `${local}@${DOMAIN}` });
      const { cookie } = await makeSession(t, person.sub);
      return (password) =>
        post(t, '/account/password/change', { current_password: person.password, new_password: password }, cookie);
    },
  },
  {
    name: 'POST /auth/enroll',
    path: 'body.password',
    label: 'Password',
    ok: 200,
    prepare: async (t, _inbox, local) => {
      const person = await makeAccount(t.sql, t.secrets, t.config, { email: `${local}@${DOMAIN}`, totp: false });
      const link = await issueEnrollmentLink(t.sql, person.sub, t.config.server.issuer, t.clock.now());
      const token = new URLSearchParams(new URL(link.url).hash.slice(1)).get('token') ?? '';
      return (password) => post(t, '/auth/enroll', { token, password });
    },
  },
];

const standard = await instance(3);
const strict = await instance(4);

function assertRefused(response: LightMyRequestResponse, route: PasswordRoute, problem: string) {
  assert.equal(response.statusCode, 400);
  assert.deepEqual(response.json(), {
    error: 'weak_password',
    error_description: `${route.label}: ${problem}.`,
    request_id: response.headers['x-request-id'],
    fields: [{ path: route.path, problem }],
  });
}

const PERSONAL =
  'this contains your name or email address, or the name of this service or organization; ' +
  'add more words that are less common';

for (const [index, route] of routes.entries()) {
  describe(route.name, () => {
    test('refuses passwordpassword, the organization name and the email local part with weak_password', async () => {
      const submit = await route.prepare(standard.t, standard.inbox, `quorvath.${index}`);
      assertRefused(
        await submit('passwordpassword'),
        route,
        'repeated character patterns like "abcabcabc" are easy to guess; add more words that are less common; ' +
          'avoid repeated words and characters',
      );
      // Both score 4 for anyone else (password-policy.test.ts): what makes them guessable is who they are for.
      assertRefused(await submit('acmerobotics2024'), route, PERSONAL);
      assertRefused(await submit('quorvath2024'), route, PERSONAL);
      const accepted = await submit('Winter2024!!');
      assert.equal(accepted.statusCode, route.ok, accepted.body);
    });

    test('at passwords.minimum_score 4 refuses a score-3 password and accepts a passphrase', async () => {
      const submit = await route.prepare(strict.t, strict.inbox, `strict.${index}`);
      assertRefused(await submit('Winter2024!!'), route, 'this is too easy to guess; add another word or two');
      const accepted = await submit('lantern orchard quietly 47');
      assert.equal(accepted.statusCode, route.ok, accepted.body);
    });
  });
}

test('a refused sign-up stores nothing', async () => {
  const count = async () => (await standard.t.sql`select count(*)::int as n from identities`)[0]?.n;
  const before = await count();
  const refused = await post(standard.t, '/account/signup', {
    email: `nothing@${DOMAIN}`,
    password: 'passwordpassword',
    display_name: 'N',
  });
  assert.equal(refused.statusCode, 400);
  assert.equal(await count(), before);
});
