// Addresses someone typed are held to the delivery rule (src/delivery/recipient.ts) before anything is counted or
// stored. The schema's `format: email` admits addresses no mail system takes (a local part past 64 characters, a
// quoted local part); refusing them here makes them the caller's 400, not a 500 from deep inside the outbox.

import { checkRecipient, InvalidRecipient } from '../delivery/recipient.ts';
import { InvalidRequest } from '../http/errors.ts';

/** The address trimmed, or 400 invalid_request naming `field`. */
export function acceptTypedAddress(address: string, field: string): string {
  try {
    return checkRecipient(address);
  } catch (error) {
    if (!(error instanceof InvalidRecipient)) throw error;
    const problem = 'must be a plain address: at most 64 characters before the @, no quotes or spaces';
    throw new InvalidRequest(`${field} ${problem}`, { fields: [{ path: field, problem }], cause: error });
  }
}
