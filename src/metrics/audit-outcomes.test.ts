// Which gatehouse_sign_ins_total and gatehouse_token_exchanges_total series each audited event counts under.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import type { Audit } from '../audit/audit.ts';
import type { Sql } from '../db/pool.ts';
import { countAuditedOutcomes } from './audit-outcomes.ts';
import { createMetrics } from './registry.ts';

describe('audited events as metrics', () => {
  test('counts a failure under the method its record names, and a password failure under password', async () => {
    const metrics = createMetrics({} as Sql);
    const sink: Audit = { record: async () => {}, recordIn: async () => {}, chainPending: async () => 0 };
    const audit = countAuditedOutcomes(sink, metrics);
    await audit.record({ event: 'signin.failed', details: { reason: 'credentials' } });
    await audit.record({ event: 'signin.failed', details: { method: 'passkey', reason: 'credentials' } });
    await audit.record({ event: 'signin.failed', details: { method: 'saml', reason: 'invalid_saml_response' } });
    await audit.record({ event: 'signin.succeeded', details: { method: 'passkey' } });
    const counted = (await metrics.registry.getSingleMetric('gatehouse_sign_ins_total')?.get())?.values ?? [];
    assert.deepEqual(counted.map((v) => `${v.labels.method} ${v.labels.outcome} ${v.value}`).sort(), [
      'other credentials 2',
      'other success 1',
      'password credentials 1',
    ]);
  });

  test('token exchange records count as gatehouse_token_exchanges_total by where and how they ended', async () => {
    const metrics = createMetrics({} as Sql);
    const sink: Audit = { record: async () => {}, recordIn: async () => {}, chainPending: async () => 0 };
    const audit = countAuditedOutcomes(sink, metrics);
    await audit.record({ event: 'oauth.token_exchanged', details: { via: 'token_endpoint' } });
    await audit.record({ event: 'oauth.token_exchanged', details: { via: 'gateway' } });
    await audit.record({ event: 'oauth.token_exchange_refused', details: { via: 'gateway', error: 'invalid_scope' } });
    await audit.record({ event: 'oauth.token_exchange_refused', details: { via: 'token_endpoint', error: 'odd' } });
    // A record without a known `via` grows no label set.
    await audit.record({ event: 'oauth.token_exchanged', details: { via: 'elsewhere' } });
    const counted = (await metrics.registry.getSingleMetric('gatehouse_token_exchanges_total')?.get())?.values ?? [];
    assert.deepEqual(counted.map((v) => `${v.labels.via} ${v.labels.outcome} ${v.value}`).sort(), [
      'gateway invalid_scope 1',
      'gateway issued 1',
      'token_endpoint issued 1',
      'token_endpoint other 1',
    ]);
  });

  test('device authorization records count as gatehouse_device_authorizations_total by step', async () => {
    const metrics = createMetrics({} as Sql);
    const sink: Audit = { record: async () => {}, recordIn: async () => {}, chainPending: async () => 0 };
    const audit = countAuditedOutcomes(sink, metrics);
    for (const event of [
      'oauth.device_authorization_requested',
      'oauth.device_authorization_requested',
      'oauth.device_authorization_approved',
      'oauth.device_authorization_denied',
      'oauth.device_code_redeemed',
      'oauth.device_user_code_throttled',
    ])
      await audit.record({ event });
    const counted =
      (await metrics.registry.getSingleMetric('gatehouse_device_authorizations_total')?.get())?.values ?? [];
    assert.deepEqual(counted.map((v) => `${v.labels.step} ${v.value}`).sort(), [
      'approved 1',
      'denied 1',
      'redeemed 1',
      'requested 2',
      'user_code_throttled 1',
    ]);
  });
});
