// Logger options. SPEC.md Authentication 12 lists what must never be logged; we never log bodies or query strings,
// and redact every known secret-bearing key anyway in case a future log call passes one.
//
// Redaction is our own walk in the `log` formatter rather than pino's `redact` paths: pino applies wildcard paths
// through a stringifier that also runs on every child logger's bindings, and Fastify makes a child logger for
// every request, so pino's redaction cost about 3% of the userinfo endpoint's CPU time even with nothing logged.
// The walk runs only for lines that are written, and reaches deeper than the old paths (any depth up to 8).
import type { LoggerOptions } from 'pino';

const SECRET_KEYS = [
  'password',
  'new_password',
  'current_password',
  'totp',
  'recovery_code',
  'code',
  'code_verifier',
  'secret',
  'client_secret',
  'access_token',
  'refresh_token',
  'id_token',
  'id_token_hint',
  'token',
  'authorization',
  'cookie',
  'set-cookie',
  'dpop',
  'private_key',
  'privateKey',
  'signature',
];

const SECRET = new Set(SECRET_KEYS.map((k) => k.toLowerCase()));
const CENSOR = '[redacted]';
const MAX_DEPTH = 8;

/** Dictionary-like objects: plain ones, null-prototype ones, and those (like parsed query strings) whose prototype
 * has a null prototype. Class instances, errors and buffers are left to the serializers. */
const isRecord = (value: unknown): value is Record<string, unknown> => {
  if (typeof value !== 'object' || value === null) return false;
  const prototype = Object.getPrototypeOf(value);
  return prototype === Object.prototype || prototype === null || Object.getPrototypeOf(prototype) === null;
};

/**
 * A copy of `value` with every secret-bearing key's value replaced by "[redacted]", in dictionary-like objects and
 * arrays down to MAX_DEPTH (deeper levels are dropped, not walked). Unchanged parts are shared, never mutated: callers
 * pass live objects such as request headers.
 */
export function redactSecrets(value: unknown, depth = 0): unknown {
  if (Array.isArray(value)) {
    if (depth >= MAX_DEPTH) return CENSOR;
    let copy: unknown[] | null = null;
    value.forEach((item, i) => {
      const redacted = redactSecrets(item, depth + 1);
      if (redacted !== item) {
        copy ??= [...value];
        copy[i] = redacted;
      }
    });
    return copy ?? value;
  }
  if (!isRecord(value)) return value;
  if (depth >= MAX_DEPTH) return CENSOR;
  let copy: Record<string, unknown> | null = null;
  for (const key of Object.keys(value)) {
    const item = value[key];
    const redacted = SECRET.has(key.toLowerCase()) ? CENSOR : redactSecrets(item, depth + 1);
    if (redacted !== item) {
      copy ??= { ...value };
      copy[key] = redacted;
    }
  }
  return copy ?? value;
}

/** Error serializer that drops query parameters a database driver attaches to errors (they may hold secrets). */
function serializeError(error: unknown): Record<string, unknown> {
  if (!(error instanceof Error)) return { message: String(error) };
  const base: Record<string, unknown> = { type: error.name, message: error.message, stack: error.stack };
  const extra = error as unknown as Record<string, unknown>;
  for (const key of ['code', 'statusCode', 'severity', 'routine', 'table_name', 'constraint_name'])
    if (extra[key] !== undefined) base[key] = extra[key];
  if (error.cause !== undefined) base.cause = serializeError(error.cause);
  return base;
}

export function loggerOptions(level: string): LoggerOptions {
  return {
    level,
    formatters: { log: (object) => redactSecrets(object) as Record<string, unknown> },
    serializers: { err: serializeError, error: serializeError },
    // The pid tells apart the workers of one node (server.workers), which share one log stream.
    base: { service: 'gatehouse', pid: process.pid },
    timestamp: () => `,"time":"${new Date().toISOString()}"`,
  };
}
