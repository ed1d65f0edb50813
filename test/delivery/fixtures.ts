// Shared pieces of the delivery tests: a database with an identity, a captured logger, and the account-route
// sequence the outbox exists for (guard, issue a verification, enqueue its message, all in one transaction).
import pino from 'pino';
import type { Config } from '../../src/config/schema.ts';
import type { Executor, Sql } from '../../src/db/pool.ts';
import { createOutbox } from '../../src/delivery/outbox.ts';
import { assertDeliveryReady } from '../../src/delivery/status.ts';
import { loggerOptions } from '../../src/http/logger.ts';
import { ensureBootstrap } from '../../src/identity/bootstrap.ts';
import type { Sub } from '../../src/identity/ids.ts';
import { issueVerification } from '../../src/verification/verification.ts';
import { LogCapture, type TestClock } from '../helpers/app.ts';

export function captureLogger() {
  const logs = new LogCapture();
  return { logs, log: pino(loggerOptions('debug'), logs) };
}

export async function makeOwner(sql: Sql): Promise<Sub> {
  const installation = await ensureBootstrap(sql, {
    organizationId: 'acme',
    organizationName: 'Acme',
    ownerSubject: 'owner@acme.dev',
  });
  return installation.ownerId;
}

/**
 * The outbox's part of an account request, without the route: refuse early, then verification + message in one
 * transaction, with a hook to fail after the enqueue. Delivery tests use it to stay independent of the account
 * module; the real POST /account/signup is rolled back end to end in test/account/registration-rules.test.ts.
 */
export async function signupLike(
  sql: Sql,
  context: { config: Config; deliveryKey: Buffer; clock: TestClock; identityId: Sub },
  email: string,
  afterEnqueue: (tx: Executor) => Promise<void> = async () => {},
) {
  const outbox = createOutbox({ config: context.config, deliveryKey: context.deliveryKey, clock: context.clock.now });
  return sql.begin(async (tx) => {
    assertDeliveryReady(context.config);
    const issued = await issueVerification(
      tx,
      { purpose: 'signup', identityId: context.identityId, email },
      context.clock.now(),
    );
    const messageId = await outbox.enqueue(tx, {
      locale: 'en',
      template: 'signup_verification',
      to: email,
      variables: { verificationId: issued.verificationId, secret: issued.secret, expiresAt: issued.expiresAt },
    });
    await afterEnqueue(tx);
    return { ...issued, messageId };
  });
}

export async function outboxRow(sql: Sql, id: string) {
  const [row] = await sql<{ state: string; attempts: number; sealed_body: string | null; last_error: string | null }[]>`
    select state, attempts, sealed_body, last_error from outbox_messages where id = ${id}`;
  if (!row) throw new Error(`no outbox row ${id}`);
  return row;
}
