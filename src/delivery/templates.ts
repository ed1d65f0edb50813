// The messages Gatehouse sends: plain text plus minimal HTML, with the organization name, in the recipient's language
// (the words are in src/i18n/messages/, under `mail.`). A verification
// secret appears only in the body (link and code), never in the subject, which relays and clients log.
// The link carries the id and secret in the URL fragment: browsers never send a fragment to a server, so the
// secret stays out of access logs and Referer headers; the account page reads it and POSTs it.
import { htmlMessage } from '../http/html-page.ts';
import { type Locale, textDirection } from '../i18n/locales.ts';
import { type MessageKey, type Translate, translator } from '../i18n/translate.ts';

export type TemplateName =
  | 'signup_verification'
  | 'email_change_verification'
  | 'email_change_notice'
  | 'password_reset'
  | 'signup_attempt_notice'
  | 'invitation'
  | 'enrollment_link';

export interface VerificationVariables {
  verificationId: string;
  secret: string;
  expiresAt: Date;
}

type VerificationTemplate = 'signup_verification' | 'email_change_verification' | 'password_reset';
type NoticeTemplate = 'email_change_notice' | 'signup_attempt_notice';

/** An administrator's invitation: the one-use enrollment link (its token rides in the fragment) and its expiry. */
export interface InvitationVariables {
  url: string;
  expiresAt: Date;
}

/**
 * What the account routes pass to Outbox.enqueue: one member per template, so variables match the template, and the
 * language it is written in (the recipient's choice, else the language of the request that caused it).
 */
export type MessageRequest = { locale: Locale } & (
  | { [T in VerificationTemplate]: { template: T; to: string; variables: VerificationVariables } }[VerificationTemplate]
  | { [T in NoticeTemplate]: { template: T; to: string } }[NoticeTemplate]
  | { template: 'invitation' | 'enrollment_link'; to: string; variables: InvitationVariables }
);

export interface RenderContext {
  organizationName: string;
  issuer: string;
  now: Date;
}

export interface RenderedMessage {
  subject: string;
  text: string;
  html: string;
}

/** Where the account UI lets a person finish each verification. */
const VERIFY_PAGES = {
  signup_verification: '/account/email/verify',
  email_change_verification: '/account/email/change/verify',
  password_reset: '/account/password/reset',
} as const;

const MAX_VARIABLE_LENGTH = 128;

interface Parts {
  subject: string;
  lines: string[];
  /** `code` is for verifications, which a person may type instead of following the link. */
  action?: { label: string; url: string; code?: string; expires: string };
}

/** "3 hours", "2 days": the largest unit that reads naturally, in the message's language and plural rules. */
function expiresIn(t: Translate, expiresAt: Date, now: Date): string {
  const minutes = Math.max(1, Math.round((expiresAt.getTime() - now.getTime()) / 60_000));
  if (minutes >= 2880) return t('mail.expires', { unit: 'days', count: Math.round(minutes / 1440) });
  return minutes >= 120
    ? t('mail.expires', { unit: 'hours', count: Math.round(minutes / 60) })
    : t('mail.expires', { unit: 'minutes', count: minutes });
}

function verificationAction(
  t: Translate,
  request: Extract<MessageRequest, { template: VerificationTemplate }>,
  context: RenderContext,
  label: string,
): Parts['action'] {
  const { verificationId, secret, expiresAt } = request.variables;
  if (verificationId.length > MAX_VARIABLE_LENGTH || secret.length > MAX_VARIABLE_LENGTH)
    throw new RangeError('verification variables are too long');
  const fragment = new URLSearchParams({ verification_id: verificationId, secret }).toString();
  return {
    label,
    url: `${context.issuer}${VERIFY_PAGES[request.template]}#${fragment}`,
    code: secret,
    expires: expiresIn(t, expiresAt, context.now),
  };
}

/** Each template's words: subject, paragraphs and the action's label, by catalogue key. */
const WORDS = {
  // The link proves only the mailbox; the page asks for the sign-up's password (docs/account.md).
  signup_verification: {
    subject: 'mail.signupVerification.subject',
    lines: ['mail.signupVerification.why', 'mail.signupVerification.how'],
    action: 'mail.signupVerification.action',
  },
  // Only the account that asked can finish the change (account/email-change.ts).
  email_change_verification: {
    subject: 'mail.emailChangeVerification.subject',
    lines: ['mail.emailChangeVerification.why', 'mail.emailChangeVerification.how'],
    action: 'mail.emailChangeVerification.action',
  },
  password_reset: {
    subject: 'mail.passwordReset.subject',
    lines: ['mail.passwordReset.why'],
    action: 'mail.passwordReset.action',
  },
  email_change_notice: {
    subject: 'mail.emailChangeNotice.subject',
    lines: ['mail.emailChangeNotice.why', 'mail.emailChangeNotice.how'],
    action: null,
  },
  invitation: {
    subject: 'mail.invitation.subject',
    lines: ['mail.invitation.why', 'mail.invitation.how'],
    action: 'mail.invitation.action',
  },
  enrollment_link: {
    subject: 'mail.enrollmentLink.subject',
    lines: ['mail.enrollmentLink.why', 'mail.enrollmentLink.how'],
    action: 'mail.enrollmentLink.action',
  },
  signup_attempt_notice: {
    subject: 'mail.signupAttemptNotice.subject',
    lines: ['mail.signupAttemptNotice.why', 'mail.signupAttemptNotice.how'],
    action: null,
  },
} as const satisfies Record<TemplateName, { subject: MessageKey; lines: MessageKey[]; action: MessageKey | null }>;

function parts(request: MessageRequest, context: RenderContext): Parts {
  const t = translator(request.locale);
  const org = { org: context.organizationName };
  const words = WORDS[request.template];
  const text = { subject: t(words.subject, org), lines: words.lines.map((key) => t(key, org)) };
  switch (request.template) {
    case 'signup_verification':
    case 'email_change_verification':
    case 'password_reset':
      return { ...text, action: verificationAction(t, request, context, t(WORDS[request.template].action)) };
    case 'invitation':
    case 'enrollment_link': {
      const { url, expiresAt } = request.variables;
      if (url.length > 2 * MAX_VARIABLE_LENGTH + 200) throw new RangeError(`${request.template} link is too long`);
      return {
        ...text,
        action: { label: t(WORDS[request.template].action), url, expires: expiresIn(t, expiresAt, context.now) },
      };
    }
    case 'email_change_notice':
    case 'signup_attempt_notice':
      return text;
  }
}

const escapeHtml = (value: string) =>
  value.replace(/[&<>"']/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[c] ?? c);

export function renderMessage(request: MessageRequest, context: RenderContext): RenderedMessage {
  if (context.organizationName.length > 200) throw new RangeError('organization name is too long');
  const t = translator(request.locale);
  const { subject, lines, action } = parts(request, context);
  const textParts = [...lines];
  const htmlParts = lines.map((line) => `<p>${escapeHtml(line)}</p>`);
  if (action) {
    textParts.push(`${action.label}: ${action.url}`);
    htmlParts.push(`<p><a href="${escapeHtml(action.url)}">${escapeHtml(action.label)}</a></p>`);
    if (action.code !== undefined) {
      textParts.push(t('mail.orEnterCode', { code: action.code }));
      htmlParts.push(
        `<p>${htmlMessage(t, 'mail.orEnterCode', { code: { html: `<code>${escapeHtml(action.code)}</code>` } })}</p>`,
      );
    }
    const ending = `${action.expires} ${t('mail.ignore')}`;
    textParts.push(ending);
    htmlParts.push(`<p>${escapeHtml(ending)}</p>`);
  }
  textParts.push(`-- ${context.organizationName}`);
  htmlParts.push(`<p>&mdash; ${escapeHtml(context.organizationName)}</p>`);
  const dir = textDirection(request.locale);
  return {
    subject,
    text: `${textParts.join('\n\n')}\n`,
    html: `<!doctype html><html lang="${request.locale}" dir="${dir}"><body>${htmlParts.join('')}</body></html>\n`,
  };
}
