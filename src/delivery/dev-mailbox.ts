// The development mailbox (delivery.kind = "dev_mailbox"): a transport that keeps each message instead of sending it,
// so a newcomer can sign up, verify and reset without a mail server. Messages still go through the real outbox and
// worker, so the development instance exercises the same path production does; only the last hop differs. Each kept
// message is announced in one line on the terminal with its link. The line bypasses the JSON log on purpose: the
// link carries a one-time secret that the log's redaction must keep out of log records (docs/decisions.md).
import { open, seal } from '../crypto/seal.ts';
import type { Executor } from '../db/pool.ts';
import { deleteKeptMessages, insertKeptMessage, listKeptMessages } from './dev-mailbox-store.ts';
import { outboxSealKey } from './keys.ts';
import type { RenderedMessage } from './templates.ts';
import type { OutgoingMessage, Transport } from './transport.ts';

export interface DevMailboxDeps {
  sql: Executor;
  /** secrets.delivery: kept bodies are sealed like outbox bodies, since they carry links and codes. */
  deliveryKey: Buffer;
  clock: () => Date;
  /** Prints one line for the person at the terminal (stderr in `gatehouse serve`). */
  notice: (line: string) => void;
}

/** Kept messages older than this are purged with the outbox's housekeeping: a development aid, not an archive. */
export const DEV_MAILBOX_RETENTION_DAYS = 7;

const keptPurpose = (id: string) => `dev-mailbox:${id}`;

/** The first link in a message's text: the action the message asks for (verify, reset, enroll). */
export function firstLink(text: string): string | null {
  return /https?:\/\/[^\s<>"]+/.exec(text)?.[0] ?? null;
}

/** The terminal line for a kept message. */
export function mailboxNotice(message: Pick<OutgoingMessage, 'subject' | 'to' | 'text'>): string {
  const link = firstLink(message.text);
  return `mailbox: "${message.subject}" for ${message.to}: ${link ?? '(no link; read it on the console Mailbox page)'}`;
}

export function createDevMailboxTransport(deps: DevMailboxDeps): Transport {
  const key = outboxSealKey(deps.deliveryKey);
  return {
    kind: 'dev_mailbox',
    async send(message) {
      const body: RenderedMessage = { subject: message.subject, text: message.text, html: message.html };
      const kept = await insertKeptMessage(deps.sql, {
        id: message.id,
        template: message.template,
        recipient: message.to,
        sealed_body: seal(key, JSON.stringify(body), keptPurpose(message.id)),
        kept_at: deps.clock(),
      });
      if (kept) deps.notice(mailboxNotice(message));
    },
    close() {},
  };
}

export interface KeptMessage {
  id: string;
  template: string;
  to: string;
  subject: string;
  text: string;
  /** The message's first link, so the console can offer it as a link. */
  link: string | null;
  kept_at: string;
}

/** The newest kept messages, opened, for GET /admin/mailbox. */
export async function readMailbox(sql: Executor, deliveryKey: Buffer, limit: number): Promise<KeptMessage[]> {
  const key = outboxSealKey(deliveryKey);
  const rows = await listKeptMessages(sql, limit);
  return rows.map((row) => {
    const body = JSON.parse(open(key, row.sealed_body, keptPurpose(row.id)).toString('utf8')) as RenderedMessage;
    return {
      id: row.id,
      template: row.template,
      to: row.recipient,
      subject: body.subject,
      text: body.text,
      link: firstLink(body.text),
      kept_at: row.kept_at.toISOString(),
    };
  });
}

export async function purgeMailbox(sql: Executor, now: Date): Promise<number> {
  return deleteKeptMessages(sql, new Date(now.getTime() - DEV_MAILBOX_RETENTION_DAYS * 86_400_000));
}
