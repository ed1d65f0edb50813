// Whether verification messages can leave the service. SPEC.md Errors: "Signup or recovery cannot deliver mail
// when delivery is unconfigured or points to a placeholder host." The account routes call
// assertDeliveryReady before they store anything; the worker only starts when the state is ready.
import { isPlaceholderHost, isPlaceholderValue } from '../config/placeholders.ts';
import type { Config } from '../config/schema.ts';
import { senderDomain } from '../config/validate.ts';
import { GatehouseError } from '../http/errors.ts';

export type DeliveryState = 'ready' | 'not_configured' | 'deferred';

export interface DeliveryStatus {
  state: DeliveryState;
  /** Operator-facing explanation; never sent to clients (the envelope carries the catalogue text). */
  reason: string;
}

/** What doctor, info and the status page say about the development mailbox. */
export const DEV_MAILBOX_NOTE =
  'development mailbox: messages are kept, not sent; read them on the console Mailbox page and the terminal';

const ready = (reason: string): DeliveryStatus => ({ state: 'ready', reason });
const deferred = (reason: string): DeliveryStatus => ({ state: 'deferred', reason });
const notConfigured = (reason: string): DeliveryStatus => ({ state: 'not_configured', reason });

function hostOf(url: string): string | null {
  try {
    return new URL(url).hostname.replace(/^\[|\]$/g, '');
  } catch {
    return null;
  }
}

/**
 * Where a link for a person (an invitation, a reset link) goes: mailed, kept in the development mailbox (which sends
 * nothing, so saying "emailed" would send the operator looking in the wrong place), or shown once to the sender.
 */
export type LinkDelivery = 'email' | 'dev_mailbox' | 'shown';

export function linkDelivery(config: Config): LinkDelivery {
  if (deliveryStatus(config).state !== 'ready') return 'shown';
  return config.delivery.kind === 'dev_mailbox' ? 'dev_mailbox' : 'email';
}

export function deliveryStatus(config: Config): DeliveryStatus {
  const { delivery } = config;
  if (delivery.kind === 'none') return notConfigured('delivery.kind is "none"');
  // Loopback-only (config/validate.ts) and needs no sender: nothing leaves the machine.
  if (delivery.kind === 'dev_mailbox') return ready(DEV_MAILBOX_NOTE);
  if (isPlaceholderValue(delivery.from)) return deferred('delivery.from is a placeholder');
  if (delivery.from.trim() === '') return notConfigured('delivery.from is empty');
  switch (delivery.kind) {
    case 'smtp': {
      // The password is in a file, read when the relay transport is made; here only whether one is named.
      const { host, username, password_file: passwordFile } = delivery.smtp;
      if (host.trim() === '') return notConfigured('delivery.smtp.host is empty');
      if (isPlaceholderHost(host)) return deferred(`delivery.smtp.host "${host}" is a placeholder host`);
      if (isPlaceholderValue(username)) return deferred('delivery.smtp credentials are placeholders');
      if (username === '' || passwordFile === '')
        return notConfigured('delivery.smtp.username and password_file are required');
      return ready(`SMTP relay ${host}:${delivery.smtp.port} (${delivery.smtp.security})`);
    }
    case 'direct_mx': {
      const mx = delivery.direct_mx;
      const missing = (['helo_name', 'dkim_domain', 'dkim_selector', 'dkim_private_key_file'] as const).find(
        (key) => mx[key].trim() === '',
      );
      if (missing) return notConfigured(`delivery.direct_mx.${missing} is empty`);
      for (const key of ['helo_name', 'dkim_domain'] as const)
        if (isPlaceholderHost(mx[key])) return deferred(`delivery.direct_mx.${key} "${mx[key]}" is a placeholder host`);
      if (isPlaceholderHost(senderDomain(delivery.from)))
        return deferred(`delivery.from domain "${senderDomain(delivery.from)}" is a placeholder host`);
      return ready(`direct MX as ${mx.helo_name}, DKIM ${mx.dkim_selector}._domainkey.${mx.dkim_domain}`);
    }
    case 'webhook': {
      const { url } = delivery.webhook;
      if (url.trim() === '') return notConfigured('delivery.webhook.url is empty');
      if (isPlaceholderValue(url)) return deferred('delivery.webhook.url is a placeholder');
      const host = hostOf(url);
      if (host === null) return notConfigured('delivery.webhook.url is not a URL');
      if (isPlaceholderHost(host)) return deferred(`delivery.webhook.url host "${host}" is a placeholder host`);
      return ready(`webhook ${new URL(url).origin}`);
    }
  }
}

/** The guard the account routes call before issuing anything that needs a message. */
export function assertDeliveryReady(config: Config): void {
  const status = deliveryStatus(config);
  if (status.state !== 'ready') throw new GatehouseError('delivery_not_configured', status.reason);
}

/** The guard for every self-service route: enabled, and able to deliver. */
export function assertSelfServiceAvailable(config: Config): void {
  if (!config.self_service.enabled) throw new GatehouseError('self_service_disabled');
  assertDeliveryReady(config);
}
