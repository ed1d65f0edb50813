// Builds the configured transport and runs the worker inside `gatehouse serve`. When delivery is not ready
// (none, or deferred placeholders) the worker sends no mail: the account routes refuse before queueing anything, and
// a message left from an earlier configuration waits in the outbox until delivery works again. Back-channel logout
// tokens (backchannel.ts) need no mail transport, so a worker runs for them whenever a signer is given.
import { promises as dns } from 'node:dns';
import type { Logger } from 'pino';
import type { Config } from '../config/schema.ts';
import type { Sql } from '../db/pool.ts';
import type { LogoutTokenSigner } from './backchannel.ts';
import { createDevMailboxTransport } from './dev-mailbox.ts';
import { createDirectMxTransport, type MxResolver } from './direct-mx.ts';
import { purgeDeliveryRecords } from './retention.ts';
import { createSmtpRelayTransport } from './smtp-relay.ts';
import { deliveryStatus } from './status.ts';
import type { Transport } from './transport.ts';
import { createWebhookTransport } from './webhook.ts';
import { createDeliveryWorker, type DeliveryWorker } from './worker.ts';

export interface TransportDeps {
  deliveryKey: Buffer;
  resolver?: MxResolver;
  /** dev_mailbox only: where kept messages go, and how each is announced on the terminal. */
  mailbox?: { sql: Sql; clock: () => Date; notice: (line: string) => void };
}

/** The transport for delivery.kind, or null when delivery is not ready. */
export function createConfiguredTransport(config: Config, deps: TransportDeps): Transport | null {
  if (deliveryStatus(config).state !== 'ready') return null;
  switch (config.delivery.kind) {
    case 'smtp':
      return createSmtpRelayTransport(config.delivery.smtp);
    case 'direct_mx':
      return createDirectMxTransport(config.delivery, { resolver: deps.resolver ?? new dns.Resolver() });
    case 'webhook':
      return createWebhookTransport(config.delivery.webhook, { deliveryKey: deps.deliveryKey });
    case 'dev_mailbox':
      if (!deps.mailbox) throw new Error('the development mailbox needs its database and notice deps');
      return createDevMailboxTransport({ deliveryKey: deps.deliveryKey, ...deps.mailbox });
    case 'none':
      return null;
  }
}

export interface DeliveryRunDeps {
  config: Config;
  sql: Sql;
  deliveryKey: Buffer;
  log: Logger;
  clock?: () => Date;
  /** dev_mailbox: prints the one-line notice of a kept message; stderr by default. */
  notice?: (line: string) => void;
  /** Signs back-channel logout tokens (the OAuth module's signer). */
  backchannel?: LogoutTokenSigner;
}

/** Starts the worker if delivery is ready; returns it (stop it before closing the pool) or null. */
export function startDelivery(deps: DeliveryRunDeps): DeliveryWorker | null {
  const status = deliveryStatus(deps.config);
  const clock = deps.clock ?? (() => new Date());
  const notice = deps.notice ?? ((line: string) => process.stderr.write(`${line}\n`));
  const transport = createConfiguredTransport(deps.config, {
    deliveryKey: deps.deliveryKey,
    mailbox: { sql: deps.sql, clock, notice },
  });
  if (!transport && !deps.backchannel) {
    deps.log.info({ delivery: status.state, reason: status.reason }, 'delivery worker not started');
    return null;
  }
  if (!transport)
    deps.log.info({ delivery: status.state, reason: status.reason }, 'delivery worker sends back-channel logouts only');
  const worker = createDeliveryWorker({
    sql: deps.sql,
    transport,
    ...(deps.backchannel ? { backchannel: deps.backchannel } : {}),
    deliveryKey: deps.deliveryKey,
    from: deps.config.delivery.from,
    clock,
    log: deps.log.child({ component: 'delivery' }),
    housekeeping: (now) => purgeDeliveryRecords(deps.sql, now),
  });
  worker.start();
  deps.log.info({ delivery: deps.config.delivery.kind, worker: worker.id }, 'delivery worker started');
  return worker;
}
