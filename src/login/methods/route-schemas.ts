// GET /auth/providers's answer (available.ts SignInMethods), for the published contract.
import { Type } from 'typebox';

export const SignInMethodsAnswer = Type.Object(
  {
    providers: Type.Array(
      Type.Object(
        {
          id: Type.String(),
          name: Type.String(),
          kind: Type.Enum(['redirect', 'web3']),
          start_url: Type.Union([Type.String(), Type.Null()], {
            description: 'Where the browser goes (redirect) or the JSON route the page POSTs to (web3); null: no flow.',
          }),
        },
        { additionalProperties: false },
      ),
    ),
    passkeys: Type.Boolean(),
    self_service: Type.Boolean(),
    dev_mailbox: Type.Boolean(),
  },
  { additionalProperties: false },
);
