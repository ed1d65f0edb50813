// Route schemas for error answers: the envelope (error-envelope.ts) with the codes a route can give, grouped by the
// status each code answers with. Routes list only their own codes; src/openapi/document.ts adds the ones any route
// can give (COMMON_ERRORS) so the published contract names every status a route answers with.
import type { TSchema } from 'typebox';
import { Type } from '../schema/type.ts';
import { type ErrorCode, errorCatalogue } from './error-catalogue.ts';

/** A code, or a code with the status it answers with where its RFC gives it another (GatehouseErrorOptions.status). */
export type DocumentedError = ErrorCode | readonly [code: ErrorCode, status: number];

const FieldProblemSchema = Type.Object(
  { path: Type.String(), problem: Type.String() },
  { additionalProperties: false },
);

/** The envelope whose `error` is one of `codes`. */
export function errorEnvelopeSchema(codes: readonly ErrorCode[]): TSchema {
  return Type.Object(
    {
      error: Type.String({ enum: [...new Set(codes)].sort() }),
      error_description: Type.String(),
      request_id: Type.String(),
      fields: Type.Optional(Type.Array(FieldProblemSchema, { description: 'Which input failed validation, and why.' })),
    },
    { additionalProperties: false, title: 'ErrorEnvelope' },
  );
}

const codeOf = (entry: DocumentedError): ErrorCode => (typeof entry === 'string' ? entry : entry[0]);
const statusOf = (entry: DocumentedError): number =>
  typeof entry === 'string' ? errorCatalogue[entry].status : entry[1];

/** Codes grouped by status. */
export function errorCodesByStatus(errors: readonly DocumentedError[]): Map<number, ErrorCode[]> {
  const byStatus = new Map<number, ErrorCode[]>();
  for (const entry of errors) {
    const status = statusOf(entry);
    byStatus.set(status, [...(byStatus.get(status) ?? []), codeOf(entry)]);
  }
  return byStatus;
}

/** `schema.response` entries for these error codes: one envelope per status, naming that status's codes. */
export function errorResponses(...errors: DocumentedError[]): Record<number, TSchema> {
  const responses: Record<number, TSchema> = {};
  for (const [status, codes] of errorCodesByStatus(errors)) responses[status] = errorEnvelopeSchema(codes);
  return responses;
}

/**
 * Codes any routed request can get from the HTTP layer (http/plugin.ts, error-envelope.ts), whatever the route:
 * malformed input or a refused X-Forwarded-For, a body too slow, large or of the wrong type, a fault, a database out
 * of reach, a node shutting down. Answers given before routing (404, 405, 414, 431) belong to no route and are
 * described in the document's introduction instead.
 */
export const COMMON_ERRORS: readonly ErrorCode[] = [
  'invalid_request',
  'invalid_forwarded_for',
  'request_timeout',
  'server_error',
  'temporarily_unavailable',
  'not_ready',
];

/** Codes only a request with a body can get. */
export const BODY_ERRORS: readonly ErrorCode[] = ['payload_too_large', 'unsupported_media_type'];

/** What a route behind the session cookie can answer (session/http.ts require; csrf.ts for state changes). */
export const SIGNED_IN_ERRORS: readonly ErrorCode[] = [
  'login_required',
  'enrollment_required',
  'second_factor_required',
  'csrf_rejected',
];

/** What an /admin route can answer before it runs (admin/guard.ts after the session check). */
export const ADMIN_ERRORS: readonly ErrorCode[] = [...SIGNED_IN_ERRORS, 'admin_required'];
