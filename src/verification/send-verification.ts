// The one call the account routes make to start a verification: issue it and queue the message carrying its
// secret, on the caller's transaction, so both commit or neither does. The secret is returned to no one:
// it exists in the sealed outbox body until the message is sent, and nowhere else.
import type { Executor } from '../db/pool.ts';
import type { Outbox } from '../delivery/outbox.ts';
import type { TemplateName } from '../delivery/templates.ts';
import type { Locale } from '../i18n/locales.ts';
import {
  type IssueRequest,
  issueVerification,
  rehearseVerification,
  type VerificationPurpose,
} from './verification.ts';

const TEMPLATES = {
  signup: 'signup_verification',
  email_change: 'email_change_verification',
  password_reset: 'password_reset',
} as const satisfies Record<VerificationPurpose, TemplateName>;

export interface SentVerification {
  verificationId: string;
  messageId: string;
  expiresAt: Date;
}

/** `locale` is the language of the message (src/i18n/request-locale.ts recipientLocale). */
export async function sendVerification(
  tx: Executor,
  outbox: Outbox,
  request: IssueRequest,
  now: Date,
  locale: Locale,
): Promise<SentVerification> {
  const issued = await issueVerification(tx, request, now);
  const messageId = await outbox.enqueue(tx, {
    locale,
    template: TEMPLATES[request.purpose],
    to: request.email,
    variables: { verificationId: issued.verificationId, secret: issued.secret, expiresAt: issued.expiresAt },
  });
  return { verificationId: issued.verificationId, messageId, expiresAt: issued.expiresAt };
}

/**
 * What sendVerification does, for a request that must leave no trace: the same hashing, rendering, sealing and
 * statement count, nothing stored and nothing sent. Enumeration-safe routes call it for unknown addresses
 * (DESIGN.md "Enumeration safety": comparable time whether or not the account exists).
 */
export async function rehearseSendVerification(
  tx: Executor,
  outbox: Outbox,
  request: IssueRequest,
  now: Date,
  locale: Locale,
): Promise<void> {
  const issued = await rehearseVerification(tx, request, now);
  outbox.rehearse({
    locale,
    template: TEMPLATES[request.purpose],
    to: request.email,
    variables: { verificationId: issued.verificationId, secret: issued.secret, expiresAt: issued.expiresAt },
  });
}
