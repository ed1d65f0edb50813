// Addresses someone typed are held to the delivery rule (src/delivery/recipient.ts) before anything is counted or
// stored; the route schemas bound only the length. Refusing here makes an address no mail system takes (a local part
// past 64 characters, a quoted local part) the caller's 400, not a 500 from deep inside the outbox.
// A loopback instance also takes `name@localhost` (its development owner is `owner@localhost`).

import type { Config } from '../config/schema.ts';
import { acceptsLocalAddresses, checkRecipient, InvalidRecipient } from '../delivery/recipient.ts';
import { InvalidRequest } from '../http/errors.ts';
import { describeField } from '../http/validation-messages.ts';

/** The address trimmed, or 400 invalid_request naming `field`. */
export function acceptTypedAddress(config: Config, address: string, field: string): string {
  try {
    // Typed input is taken as sent: an address with spaces around it was not copied cleanly.
    if (address !== address.trim()) throw new InvalidRecipient();
    return checkRecipient(address, { localAddresses: acceptsLocalAddresses(config.server.issuer) });
  } catch (error) {
    if (!(error instanceof InvalidRecipient)) throw error;
    const problem = {
      path: field,
      problem: 'Enter a plain address like name@example.org: at most 64 characters before the @, no quotes or spaces.',
    };
    throw new InvalidRequest(describeField(problem), { fields: [problem], cause: error });
  }
}
