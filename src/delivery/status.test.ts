import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { makeConfig } from '../../test/helpers/config.ts';
import { checkSemantics } from '../config/validate.ts';
import { assertDeliveryReady, assertSelfServiceAvailable, deliveryStatus } from './status.ts';

const smtp = (smtpOverrides: Record<string, string>) =>
  makeConfig({
    delivery: {
      kind: 'smtp',
      from: 'Acme <no-reply@acme.dev>',
      smtp: {
        host: 'smtp.acme.dev',
        username: 'mailer',
        password_file: '/etc/gatehouse/secrets/smtp-password',
        ...smtpOverrides,
      },
    },
  });

const expectNotConfigured = (config: ReturnType<typeof makeConfig>) =>
  assert.throws(
    () => assertDeliveryReady(config),
    (error: Error & { code?: string; status?: number; publicDescription?: string }) => {
      assert.equal(error.code, 'delivery_not_configured');
      assert.equal(error.status, 503);
      // The operator reason stays in the log; the client sees the catalogue text.
      assert.equal(
        error.publicDescription,
        'Verification messages cannot be sent: message delivery is not configured.',
      );
      return true;
    },
  );

describe('deliveryStatus and assertDeliveryReady', () => {
  test('kind none is not_configured and the guard answers delivery_not_configured', () => {
    const config = makeConfig();
    assert.deepEqual(deliveryStatus(config), { state: 'not_configured', reason: 'delivery.kind is "none"' });
    expectNotConfigured(config);
  });

  test('a placeholder word is deferred', () => {
    const config = smtp({ username: 'dummy' });
    assert.deepEqual(deliveryStatus(config), {
      state: 'deferred',
      reason: 'delivery.smtp credentials are placeholders',
    });
    expectNotConfigured(config);
  });

  test('a placeholder host is deferred', () => {
    const config = smtp({ host: 'mail.example.com' });
    assert.deepEqual(deliveryStatus(config), {
      state: 'deferred',
      reason: 'delivery.smtp.host "mail.example.com" is a placeholder host',
    });
    expectNotConfigured(config);
  });

  test('a webhook on a placeholder host is deferred', () => {
    const config = makeConfig({
      delivery: { kind: 'webhook', from: 'a@acme.dev', webhook: { url: 'https://hooks.test/x' } },
    });
    assert.deepEqual(deliveryStatus(config), {
      state: 'deferred',
      reason: 'delivery.webhook.url host "hooks.test" is a placeholder host',
    });
  });

  test('direct MX from a placeholder sender domain is deferred', () => {
    const config = makeConfig({
      delivery: {
        kind: 'direct_mx',
        from: 'Acme <no-reply@example.org>',
        direct_mx: {
          helo_name: 'mx.acme.dev',
          dkim_domain: 'acme.dev',
          dkim_selector: 's1',
          dkim_private_key_file: '/k.pem',
        },
      },
    });
    assert.deepEqual(deliveryStatus(config), {
      state: 'deferred',
      reason: 'delivery.from domain "example.org" is a placeholder host',
    });
  });

  test('a real relay is ready and the guard passes', () => {
    const config = smtp({});
    assert.deepEqual(deliveryStatus(config), { state: 'ready', reason: 'SMTP relay smtp.acme.dev:587 (starttls)' });
    assert.doesNotThrow(() => assertDeliveryReady(config));
  });

  test('self-service disabled answers self_service_disabled before looking at delivery', () => {
    assert.throws(() => assertSelfServiceAvailable(smtp({})), { code: 'self_service_disabled', status: 403 });
    assert.doesNotThrow(() => assertSelfServiceAvailable({ ...smtp({}), self_service: { enabled: true } }));
  });

  const mx = (overrides: Record<string, string>, from = 'Acme <no-reply@acme.dev>') =>
    makeConfig({
      delivery: {
        kind: 'direct_mx',
        from,
        direct_mx: {
          helo_name: 'mx.acme.dev',
          dkim_domain: 'acme.dev',
          dkim_selector: 's1',
          dkim_private_key_file: '/k.pem',
          ...overrides,
        },
      },
    });
  const deferrals: [string, ReturnType<typeof makeConfig>][] = [
    ['placeholder from', makeConfig({ ...smtp({}), delivery: { ...smtp({}).delivery, from: 'placeholder' } })],
    ['placeholder relay host', smtp({ host: 'smtp.example.net' })],
    ['placeholder relay user', smtp({ username: 'test' })],
    ['placeholder webhook', makeConfig({ delivery: { kind: 'webhook', from: 'a@acme.dev', webhook: { url: '0' } } })],
    ['placeholder HELO name', mx({ helo_name: 'mx.example.com' })],
    ['placeholder DKIM domain', mx({ dkim_domain: 'acme.invalid' })],
    ['placeholder sender domain', mx({}, 'no-reply@example.org')],
  ];
  for (const [name, config] of deferrals)
    test(`a ${name} is deferred with the same reason the config check reports (gatehouse info)`, () => {
      const status = deliveryStatus(config);
      assert.equal(status.state, 'deferred');
      assert.deepEqual(checkSemantics(config), {
        problems: [],
        deferred: [{ key: 'delivery', reason: status.reason }],
      });
    });
});
