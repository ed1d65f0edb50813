// Request headers that must come once (docs/gateway.md "Failures"). Node keeps the first of two Host or
// Authorization headers and drops the second without a word (only rawHeaders shows it), while a proxy in front of
// Gatehouse or a server behind it may act on the other one: a request carrying two is refused, never judged by
// one and read by another. Two Content-Length headers, or Content-Length with Transfer-Encoding, are already
// refused by Node's parser before anything runs (RFC 9112 §6.3), and stay so (test/gateway/exact-forwarding.test.ts).
import { InvalidRequest } from '../http/errors.ts';

/** RFC 9110 §7.2 (Host), §11.6.2 (Authorization), RFC 9449 §4.3 (DPoP: one proof). */
const SINGLE = new Map([
  ['host', 'Host'],
  ['authorization', 'Authorization'],
  ['dpop', 'DPoP'],
]);

/** `rawHeaders` as Node gives them: name, value, name, value... in the order received. */
export function refuseRepeatedHeaders(rawHeaders: readonly string[]): void {
  let seen: Set<string> | null = null;
  for (let i = 0; i < rawHeaders.length; i += 2) {
    const name = (rawHeaders[i] as string).toLowerCase();
    const shown = SINGLE.get(name);
    if (shown === undefined) continue;
    seen ??= new Set();
    if (seen.has(name)) throw new InvalidRequest(`The request has more than one ${shown} header`);
    seen.add(name);
  }
}
