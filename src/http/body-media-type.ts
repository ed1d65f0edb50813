// The one content-type rule (docs/api.md "Request bodies"): every operation of the published contract takes the one
// body media type its schema names — JSON where it has `schema.body`, a form where it has `handlerParses.form` — or
// none. A request that names another type, or none, for an operation that takes a body, and a request that carries a
// body to an operation that takes none, is answered 415 unsupported_media_type before the body is read (RFC 9110
// §15.5.16); an operation whose body is optional also takes a request that sends nothing at all (no body, no type), so no parser, hook or handler ever sees a body it was not written for. Routes the contract leaves out
// (`hide`: the gateway, which streams any body through) keep their own rule.
import type { FastifySchema, preParsingHookHandler, RouteOptions } from 'fastify';
import { GatehouseError } from './errors.ts';

export const JSON_MEDIA_TYPE = 'application/json';
export const FORM_MEDIA_TYPE = 'application/x-www-form-urlencoded';

/** The methods whose body Fastify reads; GET and HEAD bodies are never read, so the rule leaves them alone. */
export const BODY_READING_METHODS: ReadonlySet<string> = new Set(['POST', 'PUT', 'PATCH', 'DELETE', 'OPTIONS']);

/** The media type of the body a route takes, or null when it takes none. */
export function declaredBodyType(schema: FastifySchema | undefined): string | null {
  if (schema?.handlerParses?.form) return FORM_MEDIA_TYPE;
  return schema?.body ? JSON_MEDIA_TYPE : null;
}

/** `type/subtype` of a Content-Type value, lower-cased, without parameters (RFC 9110 §8.3.1). */
export const mediaTypeOf = (header: string | undefined): string => (header?.split(';')[0] ?? '').trim().toLowerCase();

/** Whether the request carries a body at all: a Transfer-Encoding, or a Content-Length above 0. */
export const carriesBody = (headers: Record<string, string | string[] | undefined>): boolean =>
  headers['transfer-encoding'] !== undefined ||
  (headers['content-length'] !== undefined && headers['content-length'] !== '0');

/** A body schema that also accepts JSON null, or no body: `Type.Union([..., Type.Null()])`. */
export function acceptsNoBody(body: unknown): boolean {
  const anyOf = (body as { anyOf?: { type?: string }[] } | undefined)?.anyOf;
  return Array.isArray(anyOf) && anyOf.some((member) => member.type === 'null');
}

/** A request with no body and no Content-Type: nothing was sent, so there is no media type to be wrong. */
const sendsNothing = (headers: Record<string, string | string[] | undefined>): boolean =>
  headers['content-type'] === undefined && !carriesBody(headers);

// The JSON text is the catalogue's, as csrf.ts's check for cookie-authenticated requests answers; the form text is
// the one OAuth clients have always been told (RFC 6749 §3.2).
const REFUSALS: Readonly<Record<string, string | undefined>> = {
  [JSON_MEDIA_TYPE]: undefined,
  [FORM_MEDIA_TYPE]: 'Send the parameters as application/x-www-form-urlencoded',
};

/** Puts the rule in front of `route`'s other preParsing hooks; called for every route as it is registered. */
export function enforceBodyMediaType(route: RouteOptions): void {
  const schema = route.schema;
  if (!schema || schema.hide) return;
  if (![route.method].flat().some((method) => BODY_READING_METHODS.has(method))) return;
  const declared = declaredBodyType(schema);
  // An operation whose body is optional (a DELETE that may carry a password, say) takes a request without one.
  const optional = declared === JSON_MEDIA_TYPE && acceptsNoBody(schema.body);
  const check: preParsingHookHandler = (request, _reply, payload, done) => {
    if (!BODY_READING_METHODS.has(request.method)) done(null, payload);
    else if (optional && sendsNothing(request.headers)) done(null, payload);
    else if (declared === null)
      done(
        carriesBody(request.headers)
          ? new GatehouseError('unsupported_media_type', 'This operation takes no request body')
          : null,
        payload,
      );
    else if (mediaTypeOf(request.headers['content-type']) !== declared)
      done(new GatehouseError('unsupported_media_type', REFUSALS[declared]), payload);
    else done(null, payload);
  };
  route.preParsing = [check, ...[route.preParsing ?? []].flat()];
}
