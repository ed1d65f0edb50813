// The one rule for the path a gateway request is judged by and forwarded with (docs/gateway.md "Matching",
// DESIGN.md "The gateway forwards exactly the path and headers it judged"). A plain function of the raw request
// target, so the built-in proxy and any other caller (a forward-auth endpoint given X-Original-URI) judge alike.
//
// Every trick is either normalised into one canonical path, which is then both judged and forwarded, or refused:
// - normalised: empty segments (`//`) and `.`/`..` segments (RFC 3986 §5.2.4); escapes of unreserved characters are
//   decoded and other escapes get upper-case hex (RFC 3986 §6.2.2.1-2), so `%61dmin` is forwarded as `admin`;
// - refused (400 invalid_request), because servers disagree about what they mean and any reading we picked could be
//   the wrong one for the upstream: a target not in origin form (RFC 9112 §3.2.1), a fragment, a character outside
//   RFC 3986 §3.3 `pchar` (space, `\`, `{`, non-ASCII bytes...), `;` path parameters (Tomcat and Spring drop them),
//   an encoded `/`, `\`, `.`, `%`, `;`, `?`, `#` or control character (decoded before routing by some servers, double
//   encoding included), a segment ending in `.` or with white space at either end (Windows and IIS strip them, so
//   `admin.` is `admin` there) or starting with `..` (path-traversal filters, reply-from's among them, refuse it),
//   malformed, overlong or non-UTF-8 escapes, and Unicode an upstream could fold into other characters
//   (compatibility forms NFKC maps, a case mapping into ASCII such as `ı`, `ſ`, the Kelvin sign, invisible format
//   characters).
// Letter case is judged by the route table (route-table.ts): a path that matches a policy prefix only when case is
// ignored is refused there.
import { InvalidRequest } from '../http/errors.ts';

export interface JudgedTarget {
  /** The canonical path: what the policy judges and exactly what the upstream receives. */
  path: string;
  /** `path` percent-decoded: what route prefixes are compared with. */
  decoded: string;
  /** The query as sent, from its `?`, or "". Not part of the judgement; forwarded as it came. */
  query: string;
}

const refuse = (why: string) => new InvalidRequest(`The request path ${why}`);

/** RFC 3986 §3.3: pchar = unreserved / pct-encoded / sub-delims / ":" / "@", plus the "/" between segments. */
const PATH_CHARACTERS = /^[A-Za-z0-9\-._~!$&'()*+,;=:@/%]*$/;
const ESCAPE = /%(..)?/g;
const HEX_PAIR = /^[0-9A-Fa-f]{2}$/;
const UNRESERVED = /^[A-Za-z0-9\-_~]$/; // "." is unreserved too, but an encoded one is refused below
/** Decoded, these change how a server splits the path: separators, dots, escapes, parameters, query, fragment. */
const STRUCTURAL = new Set(['/', '\\', '.', '%', ';', '?', '#']);
/** Characters some servers drop or trim: controls, invisible format characters. */
const INVISIBLE = /[\p{Cc}\p{Cf}]/u;
const NON_ASCII = /\P{ASCII}/u;
const TRIMMED_EDGE = /^\s|^\.\.|[\s.]$/u;

function refuseCharacters(rawPath: string): void {
  if (!rawPath.startsWith('/')) throw refuse('must be in origin form, starting with "/"');
  if (rawPath.includes('#')) throw refuse('must not contain a fragment ("#")');
  if (rawPath.includes('\\')) throw refuse('must not contain a backslash');
  if (!PATH_CHARACTERS.test(rawPath)) throw refuse('has a character that must be percent-encoded (RFC 3986 §3.3)');
  if (rawPath.includes(';')) throw refuse('must not contain ";" (path parameters)');
}

/** Escapes of unreserved characters decoded, the others with upper-case hex; structural ones refused. */
function canonicalEscapes(rawPath: string): string {
  return rawPath.replace(ESCAPE, (_escape, hex: string | undefined) => {
    if (hex === undefined || !HEX_PAIR.test(hex)) throw refuse('has a malformed percent-escape');
    const code = Number.parseInt(hex, 16);
    const character = String.fromCharCode(code);
    if (STRUCTURAL.has(character) || code < 0x20 || code === 0x7f)
      throw refuse('must not percent-encode "/", "\\", ".", "%", ";", "?", "#" or control characters');
    return UNRESERVED.test(character) ? character : `%${hex.toUpperCase()}`;
  });
}

/** RFC 3986 §5.2.4 on a path with no encoded dots or slashes left: `.`, `..` and empty segments resolved. */
export function resolveSegments(path: string): string {
  const segments: string[] = [];
  const parts = path.split('/');
  for (let i = 1; i < parts.length; i += 1) {
    const part = parts[i] as string;
    if (part === '' || part === '.') continue;
    if (part === '..') segments.pop();
    else segments.push(part);
  }
  const last = parts[parts.length - 1];
  // A trailing slash (also one left by a final `.` or `..`) is part of the resource's name; keep it.
  const trailing = segments.length > 0 && (last === '' || last === '.' || last === '..');
  return `/${segments.join('/')}${trailing ? '/' : ''}`;
}

function decodedPath(path: string): string {
  let decoded: string;
  try {
    // Rejects overlong forms (%C0%AE), surrogates and truncated sequences: only well-formed UTF-8 decodes.
    decoded = decodeURIComponent(path);
  } catch {
    throw refuse('has a percent-escape that is not UTF-8');
  }
  if (INVISIBLE.test(decoded)) throw refuse('must not contain control or invisible characters');
  if (decoded.split('/').some((segment) => TRIMMED_EDGE.test(segment)))
    throw refuse('must not have a segment that ends in ".", starts with "..", or starts or ends with white space');
  if (NON_ASCII.test(decoded) && foldsIntoOtherCharacters(decoded))
    throw refuse('has Unicode characters a server could read as other characters (compatibility or case forms)');
  return decoded;
}

/** Whether an upstream normalising Unicode (NFKC) or comparing without case could read `text` as something else. */
function foldsIntoOtherCharacters(text: string): boolean {
  if (text.normalize('NFKC') !== text) return true;
  for (const character of text) {
    if (!NON_ASCII.test(character)) continue;
    if (/\p{ASCII}/u.test(character.toLowerCase() + character.toUpperCase())) return true;
  }
  return false;
}

/**
 * Judges a raw request target (origin form, as received: path and query): returns the canonical path to judge and
 * forward, or throws InvalidRequest saying why the target has no single safe reading.
 */
export function judgeTarget(rawTarget: string): JudgedTarget {
  const queryAt = rawTarget.indexOf('?');
  const rawPath = queryAt < 0 ? rawTarget : rawTarget.slice(0, queryAt);
  const query = queryAt < 0 ? '' : rawTarget.slice(queryAt);
  if (query.includes('#')) throw refuse('must not contain a fragment ("#")');
  refuseCharacters(rawPath);
  const path = resolveSegments(canonicalEscapes(rawPath));
  return { path, decoded: decodedPath(path), query };
}
