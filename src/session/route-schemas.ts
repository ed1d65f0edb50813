// What a successful sign-in answers, whatever the method (local, passkey, wallet): the session's assurance and how
// it was reached. The session cookie itself is set in the same answer.
import { Type } from 'typebox';

export const SessionStarted = Type.Object(
  {
    aal: Type.Enum(['aal1', 'aal2']),
    amr: Type.Array(Type.String(), { description: 'Authentication methods (RFC 8176 values).' }),
    enrollment_required: Type.Boolean({
      description: 'True while the session may only enroll a second factor (DESIGN.md).',
    }),
  },
  { additionalProperties: false },
);
