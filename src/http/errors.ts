import { type CatalogueEntry, type ErrorCode, errorCatalogue } from './error-catalogue.ts';

const ECHO_MAX = 64;

/**
 * A client-sent value quoted in an error description: RFC 6749 §5.2 limits `error_description` to %x20-21 / %x23-5B /
 * %x5D-7E, so every other character (a quote, a backslash, control and non-ASCII characters) becomes "?", and a long
 * value is cut short.
 */
export function echoInput(value: string): string {
  const shown = value.length > ECHO_MAX ? `${value.slice(0, ECHO_MAX)}...` : value;
  return shown.replace(/[^\x20-\x21\x23-\x5b\x5d-\x7e]/g, '?');
}

export interface FieldProblem {
  path: string;
  problem: string;
}

export interface GatehouseErrorOptions {
  cause?: unknown;
  fields?: FieldProblem[];
  /** Extra response headers, e.g. Retry-After or WWW-Authenticate. */
  headers?: Record<string, string>;
  /** A status other than the catalogue's, for a code whose RFC gives it two (RFC 9449 §7.1, §9: 401 at a resource). */
  status?: number;
}

/**
 * The one error type routes throw. The error handler turns it into the envelope
 * `{error, error_description, request_id, fields?}`; `expose` is false at 500 and above (unless the catalogue marks
 * the code safe) so the description sent is the catalogue's generic text and the cause goes only to the log.
 */
export class GatehouseError extends Error {
  readonly code: ErrorCode;
  readonly status: number;
  readonly expose: boolean;
  readonly fields: FieldProblem[] | undefined;
  readonly headers: Record<string, string>;

  constructor(code: ErrorCode, description?: string, options: GatehouseErrorOptions = {}) {
    const entry: CatalogueEntry = errorCatalogue[code];
    super(description ?? entry.description, options.cause === undefined ? undefined : { cause: options.cause });
    this.name = 'GatehouseError';
    this.code = code;
    this.status = options.status ?? entry.status;
    this.expose = entry.expose ?? this.status < 500;
    this.fields = options.fields;
    this.headers = options.headers ?? {};
  }

  /** The description a client may see. */
  get publicDescription(): string {
    return this.expose ? this.message : errorCatalogue[this.code].description;
  }
}

export class InvalidRequest extends GatehouseError {
  constructor(description?: string, options?: GatehouseErrorOptions) {
    super('invalid_request', description, options);
  }
}

export class NotFound extends GatehouseError {
  constructor(description?: string) {
    super('not_found', description);
  }
}

export class RateLimited extends GatehouseError {
  constructor(retryAfterSeconds: number, description?: string) {
    super('rate_limited', description, {
      headers: { 'retry-after': String(Math.max(1, Math.ceil(retryAfterSeconds))) },
    });
  }
}
