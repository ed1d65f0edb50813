// The parsed form body of an OAuth endpoint. A body of another type, or none, never gets here: each endpoint declares
// a form body, so the HTTP layer answers anything else 415 (http/body-media-type.ts). The shared parser already
// refused repeated parameters (RFC 6749 §3.1) and control characters; here over-long values are refused.
import type { FastifyRequest } from 'fastify';
import { echoInput, GatehouseError, InvalidRequest } from '../http/errors.ts';

// Large enough for an ID token hint; bounded all the same.
const MAX_VALUE = 8192;
/** The longest query a POST is passed on with to its GET: Node refuses a request head over 16 KB. */
const MAX_FORWARDED = 12_000;

/** The form's parameters, each at most MAX_VALUE characters unless `longer` allows a parameter more. */
export function formParams(
  request: FastifyRequest,
  longer: Readonly<Record<string, number>> = {},
): Record<string, string | undefined> {
  const body = (request.body ?? {}) as Record<string, string>;
  for (const name of Object.keys(body)) {
    // `longer`'s own keys only: a parameter named "constructor" must not find Object.prototype's.
    const limit = Object.hasOwn(longer, name) ? (longer[name] as number) : MAX_VALUE;
    if ((body[name] as string).length > limit)
      throw new GatehouseError('invalid_request', `Parameter ${echoInput(name)} is too long`);
  }
  return body;
}

/** The `token` parameter of introspection (RFC 7662 §2.1) and revocation (RFC 7009 §2.1): required. */
export function tokenParameter(form: { token?: string | undefined }): string {
  if (!form.token) throw new InvalidRequest('token is required');
  return form.token;
}

/**
 * The query that passes a form POST on to the GET of the same endpoint: only `names` when given. Refused when it
 * would make a URL the GET could not take.
 */
export function forwardedQuery(params: Record<string, string | undefined>, names?: readonly string[]): string {
  const query = new URLSearchParams();
  for (const [name, value] of Object.entries(params))
    if (value !== undefined && (!names || names.includes(name))) query.append(name, value);
  const text = query.toString();
  if (text.length > MAX_FORWARDED) throw new GatehouseError('invalid_request', 'The request is too long');
  return text;
}

/** The raw query string of a request URL: everything after the first `?`, which may itself hold more (RFC 3986 §3.4). */
export function rawQuery(url: string): string {
  const at = url.indexOf('?');
  return at === -1 ? '' : url.slice(at + 1);
}
