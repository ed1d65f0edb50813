// Recipient addresses are bounded and plain before they reach a verification row, the outbox or an SMTP
// envelope: RFC 5321 §4.5.3.1.3 caps a path at 256 octets with its angle brackets (254 without), §4.5.3.1.1
// the local part at 64. Control characters, spaces and angle brackets are refused so no header or SMTP
// command can be injected through an address.
import { GatehouseError } from '../http/errors.ts';

export const MAX_ADDRESS_LENGTH = 254;

const ADDRESS =
  /^[^\s<>()",;:\\@\p{Cc}]{1,64}@[A-Za-z0-9](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?(?:\.[A-Za-z0-9](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?)+$/u;

/** A 400 wherever it reaches the error handler: the address came from a request. */
export class InvalidRecipient extends GatehouseError {
  constructor() {
    super('invalid_request', 'The email address is not a plain deliverable address');
    this.name = 'InvalidRecipient';
  }
}

/** Returns the address trimmed, or throws InvalidRecipient. */
export function checkRecipient(address: string): string {
  const trimmed = address.trim();
  if (trimmed.length > MAX_ADDRESS_LENGTH || !ADDRESS.test(trimmed)) throw new InvalidRecipient();
  return trimmed;
}

/** The domain part, lower-cased: where direct MX delivery looks up the MX. */
export function recipientDomain(address: string): string {
  return address.slice(address.lastIndexOf('@') + 1).toLowerCase();
}
