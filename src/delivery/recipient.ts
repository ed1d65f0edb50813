// Recipient addresses are bounded and plain before they reach a verification row, the outbox or an SMTP
// envelope: RFC 5321 §4.5.3.1.3 caps a path at 256 octets with its angle brackets (254 without), §4.5.3.1.1
// the local part at 64. Control characters, spaces and angle brackets are refused so no header or SMTP
// command can be injected through an address.
import { GatehouseError } from '../http/errors.ts';

export const MAX_ADDRESS_LENGTH = 254;

// The local part's characters: RFC 5322 §3.2.3 atext and dots, ASCII only (no SMTPUTF8), so no control, format
// (right-to-left override) or look-alike characters, no quotes, spaces or angle brackets.
const LOCAL = "[A-Za-z0-9!#$%&'*+\\-/=?^_`{|}~.]{1,64}";

// One DNS label (RFC 1035 §2.3.1: letters, digits, inner hyphens, at most 63).
const LABEL = '[A-Za-z0-9](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?';
const ADDRESS = new RegExp(String.raw`^${LOCAL}@${LABEL}(?:\.${LABEL})+$`);
// The same with a single-label domain allowed (`owner@localhost`): only where the instance itself is local.
const LOCAL_ADDRESS = new RegExp(String.raw`^${LOCAL}@${LABEL}(?:\.${LABEL})*$`);

const LOOPBACK_HOSTS = new Set(['localhost', '127.0.0.1', '[::1]']);

/**
 * True when the issuer is a loopback address (the development instance, a local trial): there, addresses on a
 * single-label host such as `owner@localhost` are accepted, since the development owner is one and mail goes to
 * a local mailbox. A public issuer keeps the deliverable rule (a dotted domain).
 */
export function acceptsLocalAddresses(issuer: string): boolean {
  try {
    return LOOPBACK_HOSTS.has(new URL(issuer).hostname);
  } catch {
    return false;
  }
}

export interface RecipientRule {
  /** Accept a single-label domain (`name@localhost`); see acceptsLocalAddresses. */
  localAddresses?: boolean;
}

/** A 400 wherever it reaches the error handler: the address came from a request. */
export class InvalidRecipient extends GatehouseError {
  constructor() {
    super('invalid_request', 'The email address is not a plain deliverable address');
    this.name = 'InvalidRecipient';
  }
}

/** Returns the address trimmed, or throws InvalidRecipient. */
export function checkRecipient(address: string, rule: RecipientRule = {}): string {
  const trimmed = address.trim();
  const pattern = rule.localAddresses ? LOCAL_ADDRESS : ADDRESS;
  if (trimmed.length > MAX_ADDRESS_LENGTH || !pattern.test(trimmed)) throw new InvalidRecipient();
  return trimmed;
}

/** The domain part, lower-cased: where direct MX delivery looks up the MX. */
export function recipientDomain(address: string): string {
  return address.slice(address.lastIndexOf('@') + 1).toLowerCase();
}
