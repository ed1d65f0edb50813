// The messages Gatehouse sends: plain text plus minimal HTML, with the organization name. A verification
// secret appears only in the body (link and code), never in the subject, which relays and clients log.
// The link carries the id and secret in the URL fragment: browsers never send a fragment to a server, so the
// secret stays out of access logs and Referer headers; the account page reads it and POSTs it.
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

/** What the account routes pass to Outbox.enqueue: one member per template, so variables match the template. */
export type MessageRequest =
  | { [T in VerificationTemplate]: { template: T; to: string; variables: VerificationVariables } }[VerificationTemplate]
  | { [T in NoticeTemplate]: { template: T; to: string } }[NoticeTemplate]
  | { template: 'invitation' | 'enrollment_link'; to: string; variables: InvitationVariables };

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

function expiresIn(expiresAt: Date, now: Date): string {
  const minutes = Math.max(1, Math.round((expiresAt.getTime() - now.getTime()) / 60_000));
  if (minutes >= 2880) return `${Math.round(minutes / 1440)} days`;
  return minutes >= 120 ? `${Math.round(minutes / 60)} hours` : `${minutes} minutes`;
}

function verificationAction(
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
    expires: expiresIn(expiresAt, context.now),
  };
}

function parts(request: MessageRequest, context: RenderContext): Parts {
  const org = context.organizationName;
  switch (request.template) {
    case 'signup_verification':
      return {
        subject: `Confirm your email address for ${org}`,
        lines: [
          `Someone, hopefully you, created an account at ${org} with this email address.`,
          // The link proves only the mailbox; the page asks for the sign-up's password (docs/account.md).
          'To confirm it, open the link and type the password you chose. If you did not sign up, ignore this message.',
        ],
        action: verificationAction(request, context, 'Confirm your email address'),
      };
    case 'email_change_verification':
      return {
        subject: `Confirm your new email address for ${org}`,
        lines: [
          `Someone asked to use this address for their ${org} account.`,
          // Only the account that asked can finish the change (account/email-change.ts).
          'If it was you, open the link while signed in to that account. If not, ignore this message: nothing changes.',
        ],
        action: verificationAction(request, context, 'Confirm the new address'),
      };
    case 'password_reset':
      return {
        subject: `Reset your ${org} password`,
        lines: [`Someone asked to reset the password of the ${org} account that uses this address.`],
        action: verificationAction(request, context, 'Choose a new password'),
      };
    case 'email_change_notice':
      return {
        subject: `The email address of your ${org} account is changing`,
        lines: [
          `Someone asked to move your ${org} account to a different email address.`,
          'If this was not you, sign in and change your password now, then contact your administrator.',
        ],
      };
    case 'invitation': {
      const { url, expiresAt } = request.variables;
      if (url.length > 2 * MAX_VARIABLE_LENGTH + 200) throw new RangeError('invitation link is too long');
      return {
        subject: `You are invited to ${org}`,
        lines: [
          `An administrator of ${org} created an account for you with this email address.`,
          'Open the link to choose a password and set up two-factor sign-in. It works once.',
        ],
        action: { label: 'Set up your account', url, expires: expiresIn(expiresAt, context.now) },
      };
    }
    case 'enrollment_link': {
      const { url, expiresAt } = request.variables;
      if (url.length > 2 * MAX_VARIABLE_LENGTH + 200) throw new RangeError('enrollment link is too long');
      return {
        subject: `Set a new password for ${org}`,
        lines: [
          `An administrator of ${org} sent you a link to set a new password and two-factor sign-in for your account.`,
          'Using it replaces your current password, authenticator and recovery codes, and signs you out everywhere. It works once.',
        ],
        action: { label: 'Set a new password', url, expires: expiresIn(expiresAt, context.now) },
      };
    }
    case 'signup_attempt_notice':
      return {
        subject: `Sign-up attempt at ${org}`,
        lines: [
          `Someone tried to create an account at ${org} with this email address, which already has one.`,
          'If this was you, sign in or reset your password instead. Otherwise you can ignore this message.',
        ],
      };
  }
}

const escapeHtml = (value: string) =>
  value.replace(/[&<>"']/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[c] ?? c);

export function renderMessage(request: MessageRequest, context: RenderContext): RenderedMessage {
  if (context.organizationName.length > 200) throw new RangeError('organization name is too long');
  const { subject, lines, action } = parts(request, context);
  const ignore = 'If you did not ask for this, you can ignore this message.';
  const textParts = [...lines];
  const htmlParts = lines.map((line) => `<p>${escapeHtml(line)}</p>`);
  if (action) {
    textParts.push(`${action.label}: ${action.url}`);
    htmlParts.push(`<p><a href="${escapeHtml(action.url)}">${escapeHtml(action.label)}</a></p>`);
    if (action.code !== undefined) {
      textParts.push(`Or enter this code: ${action.code}`);
      htmlParts.push(`<p>Or enter this code: <code>${escapeHtml(action.code)}</code></p>`);
    }
    textParts.push(`This expires in ${action.expires}. ${ignore}`);
    htmlParts.push(`<p>This expires in ${escapeHtml(action.expires)}. ${escapeHtml(ignore)}</p>`);
  }
  textParts.push(`-- ${context.organizationName}`);
  htmlParts.push(`<p>&mdash; ${escapeHtml(context.organizationName)}</p>`);
  return {
    subject,
    text: `${textParts.join('\n\n')}\n`,
    html: `<!doctype html><html><body>${htmlParts.join('')}</body></html>\n`,
  };
}
