// Every error Fastify 5 raises while it handles a request, before or around our handlers, by its code: its router
// (find-my-way), its body parsers and its ajv validation (FST_ERR_VALIDATION, mapped field by field in
// error-envelope.ts). Fastify's own messages quote what was sent (the path, the content type), so each gets the
// envelope with our text instead. Node's HTTP parser errors come to client-error.ts instead.
// From node_modules/fastify/lib/errors.js, at the places that throw them (fastify.js, lib/handle-request.js,
// lib/content-type-parser.js, lib/four-oh-four.js, lib/validation.js); errors.js's others are raised at startup
// or are programming errors, which stay server_error.
import type { ErrorCode } from './error-catalogue.ts';

export interface FrameworkError {
  code: ErrorCode;
  /** Our client-safe text; the catalogue's when absent. */
  description?: string;
}

const FRAMEWORK_ERRORS: Readonly<Record<string, FrameworkError>> = {
  // Router (fastify.js onBadUrl / onMaxParamLength / onAsyncConstraintError, through `frameworkErrors`).
  FST_ERR_BAD_URL: { code: 'invalid_request', description: 'The request path is not valid percent-encoded UTF-8' },
  FST_ERR_MAX_PARAM_LENGTH: { code: 'uri_too_long' },
  FST_ERR_ASYNC_CONSTRAINT: { code: 'server_error' },
  // lib/four-oh-four.js, only if a request escaped our not-found handler (Fastify calls that a bug of its own).
  FST_ERR_NOT_FOUND: { code: 'not_found' },
  // Content-type parsing and body reading.
  FST_ERR_CTP_INVALID_MEDIA_TYPE: { code: 'unsupported_media_type' },
  FST_ERR_CTP_BODY_TOO_LARGE: { code: 'payload_too_large' },
  FST_ERR_CTP_EMPTY_JSON_BODY: { code: 'invalid_request', description: 'The request body is empty' },
  FST_ERR_CTP_INVALID_JSON_BODY: { code: 'invalid_request', description: 'The request body is not valid JSON' },
  FST_ERR_CTP_INVALID_CONTENT_LENGTH: {
    code: 'invalid_request',
    description: 'The request body does not match its Content-Length',
  },
  // HTTP QUERY (RFC 10008 §2) without a Content-Type.
  FST_ERR_ROUTE_MISSING_CONTENT_TYPE: { code: 'invalid_request', description: 'The request needs a Content-Type' },
};

export const frameworkError = (code: string): FrameworkError | undefined =>
  Object.hasOwn(FRAMEWORK_ERRORS, code) ? FRAMEWORK_ERRORS[code] : undefined;

/** The codes above, for the test that sends each. */
export const frameworkErrorCodes: readonly string[] = Object.keys(FRAMEWORK_ERRORS);
