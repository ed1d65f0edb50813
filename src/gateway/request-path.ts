// The path a gateway request is judged and forwarded by (docs/gateway.md "Matching"). Two kinds of trick are
// handled differently, so that the path a policy is checked against is exactly the path the upstream serves:
// - normalised: empty segments (`//`), `.` and `..` segments (RFC 3986 §5.2.4), letter case, and percent-encoded
//   characters other than those below, which every upstream decodes the same way (RFC 3986 §6.2.2.2);
// - refused (400): an encoded `/`, `\`, `.` or `%`, a literal `\` or `;`, control characters and malformed or
//   non-UTF-8 escapes. Servers disagree about what these mean (one decodes `%2F` before routing, another does not;
//   Tomcat drops `;params`; IIS reads `\` as `/`), so no single reading could be both matched and forwarded safely.
// The upstream receives the normalised path in its original encoding; matching uses its decoded, lower-case form.
import { InvalidRequest } from '../http/errors.ts';

export interface GatewayPath {
  /** Sent to the upstream: dot segments resolved, empty segments removed, escapes kept as the client sent them. */
  forward: string;
  /** Compared with policy prefixes: `forward` percent-decoded, ASCII letters in lower case. */
  match: string;
}

const AMBIGUOUS_ESCAPE = /%(?:2f|5c|2e|25|[01][0-9a-f]|7f)/i;
const MALFORMED_ESCAPE = /%(?![0-9a-f]{2})/i;

const refuse = (why: string) => new InvalidRequest(`The request path ${why}`);

/** `rawPath` is the request target's path (before `?`), exactly as received. */
export function gatewayPath(rawPath: string): GatewayPath {
  if (!rawPath.startsWith('/')) throw refuse('must start with "/"');
  if (rawPath.includes('\\')) throw refuse('must not contain a backslash');
  if (MALFORMED_ESCAPE.test(rawPath)) throw refuse('has a malformed percent-escape');
  if (AMBIGUOUS_ESCAPE.test(rawPath)) throw refuse('must not percent-encode "/", "\\", ".", "%" or control characters');
  const segments: string[] = [];
  const parts = rawPath.split('/');
  for (let i = 1; i < parts.length; i += 1) {
    const part = parts[i] as string;
    if (part === '' || part === '.') continue;
    if (part === '..') segments.pop();
    else segments.push(part);
  }
  const last = parts[parts.length - 1];
  // A trailing slash (also one left by a final `.` or `..`) is part of the resource's name; keep it.
  const trailing = segments.length > 0 && (last === '' || last === '.' || last === '..');
  const forward = `/${segments.join('/')}${trailing ? '/' : ''}`;
  let decoded: string;
  try {
    decoded = decodeURIComponent(forward);
  } catch {
    throw refuse('has a percent-escape that is not UTF-8');
  }
  if (decoded.includes(';')) throw refuse('must not contain ";" (path parameters)');
  return { forward, match: decoded.replace(/[A-Z]+/g, (letters) => letters.toLowerCase()) };
}
