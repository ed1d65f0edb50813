// What the account self-service routes answer (routes.ts), for the published contract. Lists name the members a
// client relies on and allow more (docs/api.md lists which answers are described in part).

import type { TSchema } from 'typebox';
import { type DocumentedError, errorResponses, SIGNED_IN_ERRORS } from '../http/error-responses.ts';
import { SESSION } from '../http/route-schema.ts';
import { LOCALES } from '../i18n/locales.ts';
import { Type } from '../schema/type.ts';

const closed = <T extends Type.TProperties>(properties: T) => Type.Object(properties, { additionalProperties: false });
const open = <T extends Type.TProperties>(properties: T) => Type.Object(properties, { additionalProperties: true });

/** What every account route can answer before it runs (routes.ts onRequest). */
const AVAILABILITY: readonly DocumentedError[] = ['self_service_disabled', 'delivery_not_configured'];

/** A route reached without a session: the CSRF rule still applies (account/routes.ts `anonymous`). */
export const anonymousDoc = (summary: string, ok: Record<number, TSchema>, ...errors: DocumentedError[]) => ({
  summary,
  tags: ['account'],
  response: { ...ok, ...errorResponses(...AVAILABILITY, 'csrf_rejected', ...errors) },
});

/** A route behind the session cookie. */
export const signedInDoc = (summary: string, ok: Record<number, TSchema>, ...errors: DocumentedError[]) => ({
  summary,
  tags: ['account'],
  security: SESSION,
  response: { ...ok, ...errorResponses(...AVAILABILITY, ...SIGNED_IN_ERRORS, ...errors) },
});

export const VERIFICATION_ERRORS: readonly DocumentedError[] = [
  'verification_invalid',
  'verification_expired',
  'verification_attempts_exceeded',
  'rate_limited',
];

export const SignedUp = closed({ identity_id: Type.String(), verification_required: Type.Literal(true) });
export const EmailVerified = closed({
  identity_id: Type.String(),
  email_verified: Type.Literal(true),
  // False when the request showed no password: the account has none anyone knows until a reset sets one.
  password_set: Type.Boolean(),
});
export const ResetSent = closed({ status: Type.Literal('sent_if_registered') });
export const PasswordReset = closed({ status: Type.Literal('password_reset') });
export const PasswordChanged = closed({ sessions_revoked: Type.Integer() });
export const Profile = closed({
  identity_id: Type.String(),
  display_name: Type.String(),
  email: Type.Union([Type.String(), Type.Null()]),
  email_verified: Type.Boolean(),
  assurance: Type.Enum(['ial1', 'ial2']),
  /** Whether the account has a password sign-in method; without one, changes are confirmed by signing in again. */
  password_set: Type.Boolean(),
  /** The language chosen for hosted pages and messages; null follows the browser (Accept-Language). */
  locale: Type.Union([Type.Enum([...LOCALES]), Type.Null()]),
  created_at: Type.String({ format: 'date-time' }),
});
export const EmailChangeStarted = closed({ verification_required: Type.Literal(true) });
export const EmailChanged = closed({ email: Type.String() });
export const TotpStatus = closed({ enabled: Type.Boolean(), recovery_codes_remaining: Type.Integer() });
export const TotpDisabled = closed({
  enrollment_required: Type.Boolean({
    description:
      'True: the session may only enroll a second factor again. False: the account still has a passkey, which the session now waits for.',
  }),
});
export const RecoveryCodes = closed({ recovery_codes: Type.Array(Type.String()) });
const Nullable = <T extends TSchema>(schema: T) => Type.Union([schema, Type.Null()]);
const Instant = Type.String({ format: 'date-time' });
export const Connections = closed({
  connections: Type.Array(
    closed({
      id: Type.String(),
      kind: Type.String(),
      provider: Nullable(Type.String()),
      provider_name: Nullable(
        Type.String({ description: "An LDAP directory's configured name; null for other kinds or when it has none." }),
      ),
      label: Nullable(Type.String()),
      subject: Nullable(Type.String({ description: "The password method's email; null for other kinds." })),
      created_at: Instant,
      last_used_at: Nullable(Instant),
    }),
  ),
});
export const Sessions = closed({
  sessions: Type.Array(
    closed({
      id: Type.String(),
      current: Type.Boolean(),
      aal: Type.Enum(['aal1', 'aal2']),
      created_at: Instant,
      last_seen_at: Instant,
      client_ip: Nullable(Type.String()),
      user_agent: Nullable(Type.String()),
      device: Nullable(Type.String({ description: 'The browser and system in words.' })),
    }),
  ),
});
export const OthersRevoked = closed({ revoked: Type.Integer() });
export const Grants = closed({ grants: Type.Array(open({ client_id: Type.String() })) });
