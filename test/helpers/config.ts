// One base configuration for tests; suites override what they exercise.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { after } from 'node:test';
import Value from 'typebox/value';
import { type Config, ConfigSchema } from '../../src/config/schema.ts';

export type DeepPartial<T> = {
  [K in keyof T]?: T[K] extends (infer U)[] ? U[] : T[K] extends object ? DeepPartial<T[K]> : T[K];
};

/** A temporary directory removed when the test file ends. */
export function scratchDir(prefix = 'gatehouse-test-'): string {
  const dir = mkdtempSync(path.join(tmpdir(), prefix));
  after(() => rmSync(dir, { recursive: true, force: true }));
  return dir;
}

/** A relay password file as `gatehouse config delivery` writes it (0600), for delivery.smtp.password_file. */
export function smtpPasswordFile(password: string): string {
  const file = path.join(scratchDir('gatehouse-smtp-'), 'smtp-password');
  writeFileSync(file, `${password}\n`, { mode: 0o600 });
  return file;
}

export function makeConfig(overrides: DeepPartial<Config> = {}): Config {
  const base = Value.Default(ConfigSchema, {
    server: { issuer: 'http://localhost:8080', listen: '127.0.0.1:0' },
    organization: { id: 'acme', name: 'Acme', owner_subject: 'owner@acme.test' },
    logging: { level: 'info' },
  }) as Config;
  return merge(base, overrides) as Config;
}

function merge(target: unknown, source: unknown): unknown {
  if (source === undefined) return target;
  if (Array.isArray(source) || typeof source !== 'object' || source === null) return source;
  const result = { ...(target as Record<string, unknown>) };
  for (const [key, value] of Object.entries(source)) result[key] = merge(result[key], value);
  return result;
}

type GenericOidc = Config['providers']['oidc'][number];

/** A `[[providers.oidc]]` entry with the schema's defaults for what the test does not state. */
export function genericOidc(o: Pick<GenericOidc, 'id' | 'issuer'> & Partial<GenericOidc>): GenericOidc {
  return {
    name: o.id,
    enabled: true,
    client_id: 'gatehouse',
    scopes: ['openid', 'email', 'profile'],
    trust_upstream_mfa: false,
    ...o,
  };
}
