// What a successful sign-in answers, whatever the method (local, passkey, wallet): the session's assurance and how
// it was reached, and which step it still waits for. The session cookie itself is set in the same answer.
import type { Static } from 'typebox';
import { Type } from '../schema/type.ts';
import type { Session } from './types.ts';

export const SessionStarted = Type.Object(
  {
    aal: Type.Enum(['aal1', 'aal2']),
    amr: Type.Array(Type.String(), { description: 'Authentication methods (RFC 8176 values).' }),
    enrollment_required: Type.Boolean({
      description: 'True while the session may only enroll a second factor (DESIGN.md).',
    }),
    second_factor_required: Type.Boolean({
      description:
        'True while the session waits for the second factor the account has (POST /auth/second-factor, or a passkey); it can do nothing else until then.',
    }),
  },
  { additionalProperties: false },
);

export const sessionStarted = (session: Session): Static<typeof SessionStarted> => ({
  aal: session.aal,
  amr: session.amr,
  enrollment_required: session.pending === 'enrollment',
  second_factor_required: session.pending === 'second_factor',
});
