// SPEC.md: self-service works only when it is enabled and delivery is configured. Each refusal has its exact code
// and stores nothing.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import type { Config } from '../../src/config/schema.ts';
import { JSON_HEADERS } from '../helpers/accounts.ts';
import { startTestApp } from '../helpers/app.ts';
import { makeConfig } from '../helpers/config.ts';

const relay = {
  host: 'smtp.acme-robotics.dev',
  port: 587,
  security: 'starttls' as const,
  username: 'u',
  password_file: '/etc/gatehouse/secrets/smtp-password',
};
// 5xx descriptions stay generic: why delivery is off is for the operator (`gatehouse doctor`), not the caller.
const UNDELIVERABLE = 'Verification messages cannot be sent: message delivery is not configured.';
const cases: [string, Config, number, string, string][] = [
  [
    'self-service off',
    makeConfig({
      self_service: { enabled: false },
      delivery: { kind: 'smtp', from: 'a@acme-robotics.dev', smtp: relay },
    }),
    403,
    'self_service_disabled',
    'Account self-service is not enabled on this service.',
  ],
  [
    'delivery unconfigured',
    makeConfig({ self_service: { enabled: true } }),
    503,
    'delivery_not_configured',
    UNDELIVERABLE,
  ],
  [
    'a placeholder delivery host',
    makeConfig({
      self_service: { enabled: true },
      delivery: { kind: 'smtp', from: 'a@acme-robotics.dev', smtp: { ...relay, host: 'smtp.example.com' } },
    }),
    503,
    'delivery_not_configured',
    UNDELIVERABLE,
  ],
  [
    'a placeholder credential',
    makeConfig({
      self_service: { enabled: true },
      delivery: { kind: 'smtp', from: 'a@acme-robotics.dev', smtp: { ...relay, username: 'placeholder' } },
    }),
    503,
    'delivery_not_configured',
    UNDELIVERABLE,
  ],
];

describe('account self-service availability', () => {
  for (const [name, config, status, code, description] of cases) {
    test(`${name}: every account endpoint answers ${status} ${code} and stores nothing`, async () => {
      const { app, sql } = await startTestApp({ config });
      const requests = [
        [
          'POST',
          '/account/signup',
          { email: 'new@acme-robotics.dev', password: 'a long enough passphrase 42', display_name: 'N' },
        ],
        ['POST', '/account/password/forgot', { email: 'new@acme-robotics.dev' }],
        ['POST', '/account/email/verify', { verification_id: 'vrf_x', secret: 'y' }],
        ['GET', '/account/profile', undefined],
        ['POST', '/account/signup', { unexpected: 'shape' }],
      ] as const;
      for (const [method, url, payload] of requests) {
        const response = await app.inject({ method, url, headers: JSON_HEADERS, ...(payload ? { payload } : {}) });
        assert.equal(response.statusCode, status, url);
        const body = response.json() as { error: string; error_description: string; request_id: string };
        assert.equal(body.error, code);
        assert.equal(body.error_description, description);
        assert.equal(body.request_id, response.headers['x-request-id']);
      }
      const [counts] = await sql<{ identities: number; verifications: number; messages: number }[]>`
        select (select count(*)::int from identities) as identities,
               (select count(*)::int from verifications) as verifications,
               (select count(*)::int from outbox_messages) as messages`;
      assert.deepEqual({ ...counts }, { identities: 0, verifications: 0, messages: 0 });
    });
  }
});

describe('mail-sending requests are throttled per address', () => {
  test('the sixth reset request for one address in a day answers 429 with Retry-After, known address or not', async () => {
    const { startMailbox } = await import('../helpers/mailbox.ts');
    const { smtp, config } = await startMailbox();
    await smtp.stop();
    const { app, sql } = await startTestApp({ config });
    const forgot = () =>
      app.inject({
        method: 'POST',
        url: '/account/password/forgot',
        headers: JSON_HEADERS,
        payload: { email: 'target@acme-robotics.dev' },
      });
    for (let i = 0; i < 5; i += 1) assert.equal((await forgot()).statusCode, 202);
    const refused = await forgot();
    assert.equal(refused.statusCode, 429);
    assert.equal((refused.json() as { error: string }).error, 'rate_limited');
    assert.ok(Number(refused.headers['retry-after']) >= 1);
    // Another address from the same client is still served.
    const other = await app.inject({
      method: 'POST',
      url: '/account/password/forgot',
      headers: JSON_HEADERS,
      payload: { email: 'other@acme-robotics.dev' },
    });
    assert.equal(other.statusCode, 202);
    const [{ n } = { n: -1 }] = await sql<{ n: number }[]>`select count(*)::int as n from outbox_messages`;
    assert.equal(n, 0, 'unknown addresses never get mail');
  });
});
