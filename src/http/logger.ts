// Logger options. SPEC.md Authentication 12 lists what must never be logged; we never log bodies or query strings,
// and redact every known secret-bearing key anyway in case a future log call passes one.
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

export const REDACT_PATHS = [
  ...SECRET_KEYS.map((k) => `["${k}"]`),
  ...SECRET_KEYS.map((k) => `*["${k}"]`),
  ...SECRET_KEYS.map((k) => `*.*["${k}"]`),
  ...SECRET_KEYS.map((k) => `*.*.*["${k}"]`),
];

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
    redact: { paths: REDACT_PATHS, censor: '[redacted]' },
    serializers: { err: serializeError, error: serializeError },
    base: { service: 'gatehouse' },
    timestamp: () => `,"time":"${new Date().toISOString()}"`,
  };
}
