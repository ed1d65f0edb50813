import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { type MessageRequest, renderMessage } from './templates.ts';

const now = new Date('2026-02-01T09:00:00Z');
const context = { organizationName: 'Acme <Robotics> & Co', issuer: 'https://id.acme.dev', now };
const variables = { verificationId: 'vrf_abc', secret: 'S3cr3t-Token_x', expiresAt: new Date('2026-02-01T09:30:00Z') };

describe('message templates', () => {
  test('a password reset carries the link (secret in the fragment) and the code, only in the body', () => {
    const message = renderMessage({ template: 'password_reset', to: 'a@acme.dev', locale: 'en', variables }, context);
    assert.equal(message.subject, 'Reset your Acme <Robotics> & Co password');
    assert.equal(
      message.text,
      `${[
        'Someone asked to reset the password of the Acme <Robotics> & Co account that uses this address.',
        'Choose a new password: https://id.acme.dev/account/password/reset#verification_id=vrf_abc&secret=S3cr3t-Token_x',
        'Or enter this code: S3cr3t-Token_x',
        'This expires in 30 minutes. If you did not ask for this, you can ignore this message.',
        '-- Acme <Robotics> & Co',
      ].join('\n\n')}\n`,
    );
    assert.ok(!message.subject.includes(variables.secret));
  });

  test('an invitation carries the enrollment link and its expiry, no code, and the token stays out of the subject', () => {
    const url = 'https://id.acme.dev/enroll?return_to=%2Fsettings#token=Tok3n_abc';
    const message = renderMessage(
      {
        template: 'invitation',
        to: 'a@acme.dev',
        locale: 'en',
        variables: { url, expiresAt: new Date('2026-02-08T09:00:00Z') },
      },
      context,
    );
    assert.equal(message.subject, 'You are invited to Acme <Robotics> & Co');
    assert.equal(
      message.text,
      `${[
        'An administrator of Acme <Robotics> & Co created an account for you with this email address.',
        'Open the link to choose a password and set up two-factor sign-in. It works once.',
        `Set up your account: ${url}`,
        'This expires in 7 days. If you did not ask for this, you can ignore this message.',
        '-- Acme <Robotics> & Co',
      ].join('\n\n')}\n`,
    );
    assert.ok(message.html.includes('<a href="https://id.acme.dev/enroll?return_to=%2Fsettings#token=Tok3n_abc">'));
  });

  test('HTML escapes the organization name and the link', () => {
    const message = renderMessage(
      { template: 'signup_verification', to: 'a@acme.dev', locale: 'en', variables },
      context,
    );
    assert.ok(message.html.includes('Acme &lt;Robotics&gt; &amp; Co'));
    assert.ok(!message.html.includes('<Robotics>'));
    assert.ok(
      message.html.includes(
        '<a href="https://id.acme.dev/account/email/verify#verification_id=vrf_abc&amp;secret=S3cr3t-Token_x">',
      ),
    );
  });

  test('each template has its own subject; notices carry no link or code', () => {
    const subjects = (
      [
        { template: 'signup_verification', to: 'a@acme.dev', locale: 'en', variables },
        { template: 'email_change_verification', to: 'a@acme.dev', locale: 'en', variables },
        { template: 'email_change_notice', to: 'a@acme.dev', locale: 'en' },
        { template: 'password_reset', to: 'a@acme.dev', locale: 'en', variables },
        { template: 'signup_attempt_notice', to: 'a@acme.dev', locale: 'en' },
      ] satisfies MessageRequest[]
    ).map((request) => {
      const message = renderMessage(request, { ...context, organizationName: 'Acme' });
      if (!('variables' in request)) assert.ok(!message.text.includes('code'), request.template);
      return message.subject;
    });
    assert.deepEqual(subjects, [
      'Confirm your email address for Acme',
      'Confirm your new email address for Acme',
      'The email address of your Acme account is changing',
      'Reset your Acme password',
      'Sign-up attempt at Acme',
    ]);
  });

  test('long lifetimes are said in hours; oversized variables are refused', () => {
    const day = { ...variables, expiresAt: new Date('2026-02-02T09:00:00Z') };
    const message = renderMessage(
      { template: 'signup_verification', to: 'a@acme.dev', locale: 'en', variables: day },
      context,
    );
    assert.match(message.text, /This expires in 24 hours\./);
    const huge = { ...variables, secret: 'x'.repeat(129) };
    assert.throws(
      () => renderMessage({ template: 'password_reset', to: 'a@acme.dev', locale: 'en', variables: huge }, context),
      RangeError,
    );
  });

  test("a message is written in the request's language, with that language's plural forms and text direction", () => {
    const render = (locale: 'de' | 'ja' | 'ar', minutes: number) =>
      renderMessage(
        {
          template: 'password_reset',
          to: 'a@acme.dev',
          locale,
          variables: { ...variables, expiresAt: new Date(now.getTime() + minutes * 60_000) },
        },
        { ...context, organizationName: 'Acme' },
      );
    const german = render('de', 1);
    assert.equal(german.subject, 'Passwort für Acme zurücksetzen');
    assert.match(german.text, /Oder geben Sie diesen Code ein: S3cr3t-Token_x/);
    assert.match(german.text, /Gültig für 1 Minute\./);
    assert.match(render('de', 30).text, /Gültig für 30 Minuten\./);
    assert.match(german.html, /^<!doctype html><html lang="de" dir="ltr">/);
    assert.match(render('ja', 30).text, /有効期限は 30 分です。/);
    // Arabic has six plural forms: two minutes is the dual, three to ten the "few" form.
    assert.match(render('ar', 2).text, /خلال دقيقتين\./);
    assert.match(render('ar', 5).text, /خلال 5 دقائق\./);
    assert.match(render('ar', 30).html, /^<!doctype html><html lang="ar" dir="rtl">/);
  });
});
