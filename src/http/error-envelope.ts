// The one place errors become responses (DESIGN.md "Error envelope"):
// {"error": code, "error_description": text, "request_id": id, "fields"?: [...]}.

import type { FastifyError, FastifyReply, FastifyRequest } from 'fastify';
import { DATABASE_RETRY_AFTER_SECONDS, isDatabaseUnavailable } from './database-unavailable.ts';
import type { ErrorCode } from './error-catalogue.ts';
import { type FieldProblem, GatehouseError } from './errors.ts';
import { frameworkError } from './framework-error-codes.ts';
import { type AjvError, describeFields, fieldsFromValidation } from './validation-messages.ts';

export interface ErrorEnvelope {
  error: ErrorCode;
  error_description: string;
  request_id: string;
  fields?: FieldProblem[];
}

/** A PostgreSQL data exception (SQLSTATE class 22), as the `postgres` driver reports it. */
export function isDataException(error: unknown): error is { code: string } {
  const { name, code } = (error ?? {}) as { name?: unknown; code?: unknown };
  return name === 'PostgresError' && typeof code === 'string' && code.startsWith('22');
}

/** Maps anything thrown to a GatehouseError. Unknown errors become server_error; their cause goes only to the log. */
export function toGatehouseError(error: unknown): GatehouseError {
  if (error instanceof GatehouseError) return error;
  // PostgreSQL class 22 (data exception): a value the schemas let through that the database cannot hold or compare,
  // e.g. a NUL character in text or a date beyond its range. It came from the request, so it is the caller's 400,
  // never a 500 (DESIGN.md "bad input gets a 4xx"); the SQLSTATE alone is logged (plugin.ts), never the value.
  if (isDatabaseUnavailable(error))
    return new GatehouseError('temporarily_unavailable', undefined, {
      cause: error,
      headers: { 'retry-after': String(DATABASE_RETRY_AFTER_SECONDS) },
    });
  if (isDataException(error))
    return new GatehouseError('invalid_request', 'A value in the request is out of range or not valid text', {
      cause: error,
    });
  const fastifyError = error as FastifyError & { validation?: AjvError[]; validationContext?: string };
  if (Array.isArray(fastifyError.validation)) {
    const fields = fieldsFromValidation(fastifyError.validationContext, fastifyError.validation);
    return new GatehouseError('invalid_request', describeFields(fields), {
      fields,
      cause: error,
    });
  }
  const known = typeof fastifyError.code === 'string' ? frameworkError(fastifyError.code) : undefined;
  if (known) return new GatehouseError(known.code, known.description, { cause: error });
  switch (fastifyError.statusCode) {
    case 413:
      return new GatehouseError('payload_too_large', undefined, { cause: error });
    case 415:
      return new GatehouseError('unsupported_media_type', undefined, { cause: error });
    case 404:
      return new GatehouseError('not_found', undefined, { cause: error });
  }
  // A parser's own error (ours throw GatehouseErrors, so this is JSON.parse's or a library's): its text quotes input.
  if (error instanceof SyntaxError)
    return new GatehouseError('invalid_request', 'The request body is not valid JSON', { cause: error });
  // Anything else Fastify or Node raised about the request (e.g. a client that aborted mid-body): the catalogue's
  // text only, since its message may quote what was sent.
  if (typeof fastifyError.statusCode === 'number' && fastifyError.statusCode >= 400 && fastifyError.statusCode < 500)
    return new GatehouseError('invalid_request', undefined, { cause: error });
  return new GatehouseError('server_error', undefined, { cause: error });
}

/**
 * What the one error handler and the pages' own handlers (federated and SAML sign-in) do with anything thrown: map
 * it, and log a server fault with its cause or a data exception by its SQLSTATE alone (never the value).
 */
export function reportError(request: FastifyRequest, error: unknown): GatehouseError {
  const mapped = toGatehouseError(error);
  if (mapped.status >= 500) request.log.error({ err: error }, 'request failed');
  else if (isDataException(error)) request.log.warn({ sqlstate: error.code }, 'request refused: data exception');
  return mapped;
}

export function sendError(request: FastifyRequest, reply: FastifyReply, error: GatehouseError): FastifyReply {
  const envelope: ErrorEnvelope = {
    error: error.code,
    error_description: error.publicDescription,
    request_id: request.id,
  };
  if (error.fields) envelope.fields = error.fields;
  request.errorCode = error.code;
  reply.headers(error.headers);
  // Error bodies can echo what a client sent; never let a cache keep them.
  reply.header('cache-control', 'no-store');
  return reply.code(error.status).type('application/json; charset=utf-8').send(envelope);
}
