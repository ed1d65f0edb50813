// A real SMTP server plus the real delivery worker, for flows that need "the message the person received":
// tests call deliver() to run the worker and then read the decoded text of what arrived.
import { decode as decodeQuotedPrintable } from 'libqp';
import pino from 'pino';
import type { Config } from '../../src/config/schema.ts';
import type { Sql } from '../../src/db/pool.ts';
import { createConfiguredTransport } from '../../src/delivery/run.ts';
import { createDeliveryWorker, type DeliveryWorker } from '../../src/delivery/worker.ts';
import { loggerOptions } from '../../src/http/logger.ts';
import { makeCertificate, TestSmtpServer } from '../delivery/smtp-server.ts';
import type { LogCapture } from './app.ts';
import { makeConfig, scratchDir, smtpPasswordFile } from './config.ts';

export interface Mail {
  to: string[];
  subject: string;
  text: string;
}

const CREDENTIALS = { username: 'gatehouse', password: 'relay password 7731' };

/** Starts the SMTP server and returns a config whose delivery points at it (self-service on). */
export async function startMailbox(): Promise<{ smtp: TestSmtpServer; config: Config }> {
  const certificate = await makeCertificate(scratchDir());
  const smtp = await new TestSmtpServer({ certificate, credentials: CREDENTIALS }).start();
  const config = makeConfig({
    organization: { name: 'Acme Robotics' },
    self_service: { enabled: true },
    delivery: {
      kind: 'smtp',
      from: 'Acme Robotics <no-reply@acme-robotics.dev>',
      smtp: {
        host: '127.0.0.1',
        port: smtp.port,
        security: 'starttls',
        username: CREDENTIALS.username,
        password_file: smtpPasswordFile(CREDENTIALS.password),
        ca_file: certificate.caFile,
      },
    },
  });
  return { smtp, config };
}

export function deliveryWorker(
  sql: Sql,
  config: Config,
  deliveryKey: Buffer,
  clock: () => Date,
  logs: LogCapture,
): DeliveryWorker {
  const transport = createConfiguredTransport(config, { deliveryKey });
  if (!transport) throw new Error('delivery is not ready in this config');
  return createDeliveryWorker({
    sql,
    transport,
    deliveryKey,
    from: config.delivery.from,
    clock,
    log: pino(loggerOptions('debug'), logs),
  });
}

/** A header value with its RFC 2047 encoded words decoded (a subject in German or Japanese arrives that way). */
function decodeHeader(value: string): string {
  return value
    .replace(/\?=\s+=\?/g, '?==?')
    .replace(/=\?([\w-]+)\?([BQ])\?([^?]*)\?=/gi, (_m, _charset: string, encoding: string, text: string) =>
      encoding.toUpperCase() === 'B'
        ? Buffer.from(text, 'base64').toString('utf8')
        : // RFC 2047 §4.2 "Q": _ is a space, =XX a byte (a QP decoder would drop a trailing space).
          Buffer.from(
            text
              .replace(/_/g, ' ')
              .replace(/=([0-9A-F]{2})/gi, (_h, hex: string) => String.fromCharCode(parseInt(hex, 16))),
            'latin1',
          ).toString('utf8'),
    );
}

/** The decoded text/plain part and subject of a raw RFC 5322 message. */
export function readMail(raw: string, to: string[]): Mail {
  const [folded = '', ...rest] = raw.split(/\r?\n\r?\n/);
  // Long headers are folded onto continuation lines (RFC 5322 §2.2.3).
  const head = folded.replace(/\r?\n[ \t]+/g, ' ');
  const subject = decodeHeader(/^Subject: (.*)$/im.exec(head)?.[1]?.trim() ?? '');
  const body = rest.join('\n\n');
  const plain = /Content-Type: text\/plain[\s\S]*?\r?\n\r?\n([\s\S]*?)(?:\r?\n--|$)/i.exec(body);
  const part = plain?.[1] ?? body;
  const encoding = /Content-Transfer-Encoding: ([\w-]+)/i.exec(plain?.[0] ?? head)?.[1]?.toLowerCase();
  const text =
    encoding === 'quoted-printable'
      ? decodeQuotedPrintable(part).toString('utf8')
      : encoding === 'base64'
        ? Buffer.from(part, 'base64').toString('utf8')
        : part;
  return { to, subject, text };
}

/** The verification id and secret from the link in a message (they travel in the URL fragment). */
export function verificationLink(text: string): { path: string; verification_id: string; secret: string } {
  const match = /(https?:\/\/\S+?)(\/account\/[a-z/]+)#(\S+)/.exec(text);
  if (!match?.[2] || !match[3]) throw new Error(`no verification link in:\n${text}`);
  const fragment = new URLSearchParams(match[3]);
  return {
    path: match[2],
    verification_id: fragment.get('verification_id') ?? '',
    secret: fragment.get('secret') ?? '',
  };
}

/** The two fields the verify endpoints take. */
export const proof = (link: { verification_id: string; secret: string }) => ({
  verification_id: link.verification_id,
  secret: link.secret,
});

export class Inbox {
  readonly #smtp: TestSmtpServer;
  readonly #worker: DeliveryWorker;
  #read = 0;

  constructor(smtp: TestSmtpServer, worker: DeliveryWorker) {
    this.#smtp = smtp;
    this.#worker = worker;
  }

  /** Runs the worker and returns the messages that arrived since the last call. */
  async deliver(expected: number): Promise<Mail[]> {
    await this.#worker.runOnce();
    await this.#smtp.waitFor(this.#read + expected);
    const fresh = this.#smtp.received.slice(this.#read);
    this.#read = this.#smtp.received.length;
    return fresh.map((m) => readMail(m.raw, m.to));
  }
}
