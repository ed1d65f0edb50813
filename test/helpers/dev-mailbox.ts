// An app whose delivery is the development mailbox (delivery.kind = "dev_mailbox"), with the real outbox worker, for
// flows that need "the message the person received" read as the console's Mailbox page (GET /admin/mailbox) shows it.
import assert from 'node:assert/strict';
import type { LightMyRequestResponse } from 'fastify';
import pino from 'pino';
import { createConfiguredTransport } from '../../src/delivery/run.ts';
import { createDeliveryWorker } from '../../src/delivery/worker.ts';
import { loggerOptions } from '../../src/http/logger.ts';
import { JSON_HEADERS } from './accounts.ts';
import { startTestApp, type TestApp } from './app.ts';
import { makeConfig } from './config.ts';
import { makeAdmin } from './oauth-fixtures.ts';

export interface KeptMessage {
  to: string;
  template: string;
  text: string;
}

export interface DevMailboxApp {
  t: TestApp;
  /** An owner's session, which reads the mailbox and may call the administration API. */
  admin: { sub: string; cookie: string };
  /**
   * Delivers what is queued and returns the mailbox's messages to `to`, newest first. Each delivery is a second after
   * the last (test clock), so "newest" is the order in which the messages arrived.
   */
  mailbox(to: string): Promise<KeptMessage[]>;
  /** A JSON POST from the issuer's own origin, with the session cookie when one is given. */
  post(url: string, payload: object, cookie?: string): Promise<LightMyRequestResponse>;
}

export async function startDevMailboxApp(): Promise<DevMailboxApp> {
  const t = await startTestApp({
    config: makeConfig({
      organization: { name: 'Acme Robotics' },
      self_service: { enabled: true },
      delivery: { kind: 'dev_mailbox' },
    }),
  });
  return await devMailboxOf(t);
}

/** The mailbox, an owner and a same-origin POST for an app already configured with delivery.kind = "dev_mailbox". */
/** The real outbox worker over the development-mailbox transport; the terminal's notice lines go to `notice`. */
export function devMailboxWorker(t: TestApp, notice: (line: string) => void = () => {}) {
  const transport = createConfiguredTransport(t.config, {
    deliveryKey: t.secrets.delivery,
    mailbox: { sql: t.sql, clock: t.clock.now, notice },
  });
  assert.ok(transport, 'the development mailbox is ready delivery');
  return createDeliveryWorker({
    sql: t.sql,
    transport,
    deliveryKey: t.secrets.delivery,
    from: t.config.delivery.from,
    clock: t.clock.now,
    log: pino(loggerOptions('debug'), t.logs),
  });
}

export async function devMailboxOf(t: TestApp): Promise<DevMailboxApp> {
  const worker = devMailboxWorker(t);
  const admin = await makeAdmin(t);
  const headers = { ...JSON_HEADERS, origin: new URL(t.config.server.issuer).origin };
  return {
    t,
    admin,
    async mailbox(to) {
      await worker.runOnce();
      t.clock.advance(1);
      const response = await t.app.inject({ method: 'GET', url: '/admin/mailbox', headers: { cookie: admin.cookie } });
      const { messages } = response.json() as { messages: KeptMessage[] };
      return messages.filter((m) => m.to === to);
    },
    post: (url, payload, cookie = '') =>
      t.app.inject({ method: 'POST', url, headers: { ...headers, ...(cookie ? { cookie } : {}) }, payload }),
  };
}

/** Asserts the whole error envelope. */
export function assertEnvelope(response: LightMyRequestResponse, status: number, error: string, description: string) {
  assert.equal(response.statusCode, status, response.body);
  assert.deepEqual(response.json(), {
    error,
    error_description: description,
    request_id: response.headers['x-request-id'],
  });
}
