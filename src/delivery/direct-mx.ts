// Direct MX delivery from this host: look up the recipient domain's MX hosts (RFC 5321 §5.1), try them in
// preference order on port 25, use STARTTLS whenever offered (opportunistic, RFC 7435: certificates of MX
// hosts are not verified, as MTAs do without MTA-STS or DANE), and sign every message with DKIM (RFC 6376)
// using the operator's key so receivers can check it against the published selector record.
import { readFileSync } from 'node:fs';
import type { Config } from '../config/schema.ts';
import { nodemailer } from './nodemailer.ts';
import { recipientDomain } from './recipient.ts';
import { messageFields } from './smtp-relay.ts';
import { DeliveryFailure, smtpFailure, type Transport } from './transport.ts';

/** The part of node:dns/promises direct MX needs; tests pass a fake because no DNS server exists for them. */
export interface MxResolver {
  resolveMx(domain: string): Promise<{ exchange: string; priority: number }[]>;
}

export interface DirectMxOptions {
  resolver: MxResolver;
  /** 25 everywhere but in tests and unusual networks. */
  port?: number;
}

const dnsCode = (error: unknown) => (error as { code?: string }).code;

/** MX hosts in preference order; the domain itself when it has none (implicit MX, RFC 5321 §5.1). */
export async function mxHosts(resolver: MxResolver, domain: string): Promise<string[]> {
  let records: { exchange: string; priority: number }[];
  try {
    records = await resolver.resolveMx(domain);
  } catch (error) {
    if (dnsCode(error) === 'ENOTFOUND') throw new DeliveryFailure(`domain ${domain} does not exist`, true);
    if (dnsCode(error) !== 'ENODATA')
      throw new DeliveryFailure(`MX lookup for ${domain} failed: ${dnsCode(error) ?? error}`, false);
    return [domain];
  }
  if (records.length === 0) return [domain];
  // RFC 7505: a single MX of "." says the domain accepts no mail.
  if (records.every((r) => r.exchange === '' || r.exchange === '.'))
    throw new DeliveryFailure(`domain ${domain} accepts no mail (null MX)`, true);
  return [...records].sort((a, b) => a.priority - b.priority).map((r) => r.exchange.replace(/\.$/, ''));
}

export function createDirectMxTransport(delivery: Config['delivery'], options: DirectMxOptions): Transport {
  const mx = delivery.direct_mx;
  const privateKey = readFileSync(mx.dkim_private_key_file, 'utf8');
  const transporterFor = (host: string) =>
    nodemailer().createTransport({
      host,
      port: options.port ?? 25,
      secure: false,
      name: mx.helo_name,
      tls: { rejectUnauthorized: false, minVersion: 'TLSv1.2' },
      dkim: { domainName: mx.dkim_domain, keySelector: mx.dkim_selector, privateKey },
      connectionTimeout: 30_000,
      greetingTimeout: 30_000,
      socketTimeout: 60_000,
      logger: false,
      debug: false,
    });
  return {
    kind: 'direct_mx',
    async send(message, signal) {
      const hosts = await mxHosts(options.resolver, recipientDomain(message.to));
      let last: DeliveryFailure | null = null;
      for (const host of hosts) {
        // A cut-off send tries no further host.
        if (signal.aborted) throw smtpFailure(signal.reason);
        const transporter = transporterFor(host);
        try {
          await transporter.sendMail(messageFields(message, signal));
          return;
        } catch (error) {
          last = smtpFailure(error);
          // A 5xx to the message is the domain's answer; another MX of the same domain would say the same.
          if (last.permanent) throw last;
        } finally {
          transporter.close();
        }
      }
      throw new DeliveryFailure(`no MX host accepted the message: ${last?.message ?? 'none tried'}`, false);
    },
    close() {},
  };
}
