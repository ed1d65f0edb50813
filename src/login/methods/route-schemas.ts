// GET /auth/providers's answer (available.ts SignInMethods), for the published contract.
import { Type } from '../../schema/type.ts';

export const SignInMethodsAnswer = Type.Object(
  {
    providers: Type.Array(
      Type.Object(
        {
          id: Type.String(),
          name: Type.String(),
          kind: Type.Enum(['redirect', 'web3', 'saml'], {
            description: 'saml: a `[saml.<id>]` connection; its id is the connection id, apart from the providers ids.',
          }),
          start_url: Type.Union([Type.String(), Type.Null()], {
            description:
              'Where the browser goes (redirect: add &return_to=; saml: add ?return_to=) or the JSON route the page POSTs to (web3); null: no flow.',
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
