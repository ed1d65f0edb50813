// The one place errors become responses (DESIGN.md "Error envelope"):
// {"error": code, "error_description": text, "request_id": id, "fields"?: [...]}.
import type { FastifyError, FastifyReply, FastifyRequest } from 'fastify';
import type { ErrorCode } from './error-catalogue.ts';
import { type FieldProblem, GatehouseError } from './errors.ts';

export interface ErrorEnvelope {
  error: ErrorCode;
  error_description: string;
  request_id: string;
  fields?: FieldProblem[];
}

interface AjvError {
  keyword: string;
  instancePath: string;
  message?: string;
  params: Record<string, unknown>;
}

function fieldsFromValidation(context: string | undefined, errors: AjvError[]): FieldProblem[] {
  return errors.map((e) => {
    const base = `${context ?? 'body'}${e.instancePath.replace(/\//g, '.')}`;
    if (e.keyword === 'additionalProperties')
      return { path: `${base}.${e.params.additionalProperty}`, problem: 'unknown field' };
    if (e.keyword === 'required') return { path: `${base}.${e.params.missingProperty}`, problem: 'is required' };
    return { path: base, problem: e.message ?? e.keyword };
  });
}

/** Maps anything thrown to a GatehouseError. Unknown errors become server_error; their cause goes only to the log. */
/** A PostgreSQL data exception (SQLSTATE class 22), as the `postgres` driver reports it. */
export function isDataException(error: unknown): error is { code: string } {
  const { name, code } = (error ?? {}) as { name?: unknown; code?: unknown };
  return name === 'PostgresError' && typeof code === 'string' && code.startsWith('22');
}

export function toGatehouseError(error: unknown): GatehouseError {
  if (error instanceof GatehouseError) return error;
  // PostgreSQL class 22 (data exception): a value the schemas let through that the database cannot hold or compare,
  // e.g. a NUL character in text or a date beyond its range. It came from the request, so it is the caller's 400,
  // never a 500 (DESIGN.md "bad input gets a 4xx"); the SQLSTATE alone is logged (plugin.ts), never the value.
  if (isDataException(error))
    return new GatehouseError('invalid_request', 'A value in the request is out of range or not valid text', {
      cause: error,
    });
  const fastifyError = error as FastifyError & { validation?: AjvError[]; validationContext?: string };
  if (Array.isArray(fastifyError.validation)) {
    const fields = fieldsFromValidation(fastifyError.validationContext, fastifyError.validation);
    const first = fields[0];
    return new GatehouseError('invalid_request', first ? `${first.path} ${first.problem}` : undefined, {
      fields,
      cause: error,
    });
  }
  switch (fastifyError.statusCode) {
    case 413:
      return new GatehouseError('payload_too_large', undefined, { cause: error });
    case 415:
      return new GatehouseError('unsupported_media_type', undefined, { cause: error });
    case 404:
      return new GatehouseError('not_found', undefined, { cause: error });
  }
  if (fastifyError.code === 'FST_ERR_CTP_INVALID_JSON_BODY' || error instanceof SyntaxError)
    return new GatehouseError('invalid_request', 'The request body is not valid JSON', { cause: error });
  if (fastifyError.code === 'FST_ERR_CTP_EMPTY_JSON_BODY')
    return new GatehouseError('invalid_request', 'The request body is empty', { cause: error });
  if (typeof fastifyError.statusCode === 'number' && fastifyError.statusCode >= 400 && fastifyError.statusCode < 500)
    return new GatehouseError('invalid_request', undefined, { cause: error });
  return new GatehouseError('server_error', undefined, { cause: error });
}

export function sendError(request: FastifyRequest, reply: FastifyReply, error: GatehouseError): FastifyReply {
  const envelope: ErrorEnvelope = {
    error: error.code,
    error_description: error.publicDescription,
    request_id: request.id,
  };
  if (error.fields) envelope.fields = error.fields;
  reply.headers(error.headers);
  // Error bodies can echo what a client sent; never let a cache keep them.
  reply.header('cache-control', 'no-store');
  return reply.code(error.status).type('application/json; charset=utf-8').send(envelope);
}
