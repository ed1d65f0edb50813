// Authenticated SMTP relay. STARTTLS is required when security is "starttls" (nodemailer's requireTLS: a
// relay that does not offer it fails instead of falling back to plaintext, RFC 3207 §6); "tls" speaks TLS
// from the first byte (RFC 8314 §3.3). The relay's certificate is always verified, against ca_file if set.
import { readFileSync } from 'node:fs';
import type Mail from 'nodemailer/lib/mailer/index.js';
import type SMTPTransport from 'nodemailer/lib/smtp-transport/index.js';
import type { Config } from '../config/schema.ts';
import { readConfiguredSecret } from '../crypto/secret-files.ts';
import { nodemailer } from './nodemailer.ts';
import { type OutgoingMessage, smtpFailure, type Transport } from './transport.ts';

type SmtpConfig = Config['delivery']['smtp'];

/** The relay password from delivery.smtp.password_file (resolved against secrets.dir when the config loads). */
export function readSmtpPassword(smtp: SmtpConfig): string {
  const file = smtp.password_file;
  return readConfiguredSecret(
    file,
    `delivery.smtp.password_file ${file} does not exist: \`gatehouse config delivery --smtp-password-stdin\` (or --smtp-password-file F) writes it`,
  ).replace(/\r?\n$/, '');
}

export function smtpRelayOptions(smtp: SmtpConfig): SMTPTransport.Options {
  return {
    host: smtp.host,
    port: smtp.port,
    secure: smtp.security === 'tls',
    requireTLS: smtp.security === 'starttls',
    auth: { user: smtp.username, pass: readSmtpPassword(smtp) },
    tls: {
      minVersion: 'TLSv1.2',
      rejectUnauthorized: true,
      ...(smtp.ca_file ? { ca: readFileSync(smtp.ca_file) } : {}),
    },
    connectionTimeout: 30_000,
    greetingTimeout: 30_000,
    socketTimeout: 60_000,
    // nodemailer's own logger would print the SMTP dialogue, which holds the message and the AUTH exchange.
    logger: false,
    debug: false,
  };
}

/** nodemailer (10.x) ends the SMTP connection and rejects when `signal` aborts; its typings do not name it yet. */
export type AbortableMail = Mail.Options & { signal: AbortSignal };

export function messageFields(message: OutgoingMessage, signal: AbortSignal): AbortableMail {
  return {
    signal,
    from: message.from,
    to: message.to,
    subject: message.subject,
    text: message.text,
    html: message.html,
    messageId: `<${message.id}@gatehouse>`,
  };
}

export function createSmtpRelayTransport(smtp: SmtpConfig): Transport {
  const transporter = nodemailer().createTransport(smtpRelayOptions(smtp));
  return {
    kind: 'smtp',
    async send(message, signal) {
      try {
        await transporter.sendMail(messageFields(message, signal));
      } catch (error) {
        throw smtpFailure(error);
      }
    },
    close: () => transporter.close(),
  };
}

/** Connects, upgrades to TLS and logs in without sending anything: doctor's and `config delivery`'s check. */
export async function verifySmtpRelay(smtp: SmtpConfig): Promise<{ ok: true } | { ok: false; error: string }> {
  let options: SMTPTransport.Options;
  try {
    options = smtpRelayOptions(smtp);
  } catch (error) {
    return { ok: false, error: (error as Error).message };
  }
  const transporter = nodemailer().createTransport(options);
  try {
    await transporter.verify();
    return { ok: true };
  } catch (error) {
    return { ok: false, error: smtpFailure(error).message };
  } finally {
    transporter.close();
  }
}
