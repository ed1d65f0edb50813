// The parsed form body of an OAuth endpoint. The shared parser already refused repeated parameters (RFC 6749 §3.1);
// here a body of another type, or none, is refused with the envelope.
import type { FastifyRequest } from 'fastify';
import { echoInput, GatehouseError } from '../http/errors.ts';

// Large enough for an ID token hint; bounded all the same.
const MAX_VALUE = 8192;
/** No OAuth parameter's syntax allows one (RFC 6749 Appendix A: VSCHAR and NQCHAR are %x20-7E and beyond), and
 * PostgreSQL refuses a NUL in text: refused here, the answer names the parameter instead of a database error. */
// biome-ignore lint/suspicious/noControlCharactersInRegex: finding control characters is what it is for.
export const CONTROL = /[\x00-\x1f\x7f]/;

/**
 * The form's parameters, each at most MAX_VALUE characters unless `longer` allows a parameter more. Refused with the
 * envelope: another body type, an over-long value, a control character.
 */
export function formParams(
  request: FastifyRequest,
  longer: Readonly<Record<string, number>> = {},
): Record<string, string | undefined> {
  const type = (request.headers['content-type'] ?? '').split(';')[0]?.trim().toLowerCase();
  if (type !== 'application/x-www-form-urlencoded')
    throw new GatehouseError('unsupported_media_type', 'Send the parameters as application/x-www-form-urlencoded');
  const body = (request.body ?? {}) as Record<string, string>;
  for (const [name, value] of Object.entries(body)) {
    if (value.length > (longer[name] ?? MAX_VALUE))
      throw new GatehouseError('invalid_request', `Parameter ${echoInput(name)} is too long`);
    if (CONTROL.test(value))
      throw new GatehouseError('invalid_request', `Parameter ${echoInput(name)} contains a control character`);
  }
  return body;
}

/** The raw query string of a request URL: everything after the first `?`, which may itself hold more (RFC 3986 §3.4). */
export function rawQuery(url: string): string {
  const at = url.indexOf('?');
  return at === -1 ? '' : url.slice(at + 1);
}
