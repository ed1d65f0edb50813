// fillDefaults makes of a configuration exactly what TypeBox's Value.Default made of it, for valid and invalid input.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import Value from 'typebox/value';
import { ConfigSchema, LdapDirectorySchema } from '../config/schema.ts';
import { fillDefaults } from './defaults.ts';
import { Type } from './type.ts';

const INPUTS: Record<string, unknown>[] = [
  {},
  { server: { issuer: 'https://id.example', workers: 'auto' } },
  { server: { workers: 3 }, logging: { level: 'debug' }, unknown_table: { a: 1 } },
  { gateway: { enabled: true, routes: [{ prefix: '/api', upstream: 'http://127.0.0.1:9' }, {}] } },
  { ldap: { corp: { url: 'ldaps://ldap.example' } }, saml: { okta: { name: 'Okta' } } },
  // Wrong types where tables and arrays belong: left for the validator to report.
  { server: 'not a table', gateway: { routes: 'nope' }, tls: [1, 2] },
  { delivery: { kind: 'smtp', smtp: { host: 'mail.example', port: 'x' } } },
];

describe('fillDefaults', () => {
  for (const [i, input] of INPUTS.entries())
    test(`configuration input ${i} gets TypeBox's defaults`, () => {
      assert.deepEqual(
        fillDefaults(ConfigSchema, structuredClone(input)),
        Value.Default(ConfigSchema, structuredClone(input)),
      );
    });

  test('a record entry, an array of objects and a union', () => {
    const schema = Type.Object({
      list: Type.Array(Type.Object({ a: Type.Integer({ default: 1 }), b: Type.Optional(Type.String()) })),
      choice: Type.Union([Type.Object({ x: Type.String({ default: 'x' }) }), Type.Null()], { default: null }),
      records: Type.Record(Type.String({ pattern: '^[a-z]+$' }), Type.Object({}, { default: {} }), { default: {} }),
    });
    for (const input of [{}, { list: [{}, { a: 5 }], choice: {}, records: { ab: undefined, Bad: 1 } }])
      assert.deepEqual(fillDefaults(schema, structuredClone(input)), Value.Default(schema, structuredClone(input)));
    assert.deepEqual(fillDefaults(LdapDirectorySchema, {}), Value.Default(LdapDirectorySchema, {}));
  });
});
