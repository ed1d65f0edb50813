// fits() answers exactly as TypeBox's Check wherever it answers, and answers (true) for the configurations that start.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { Check } from 'typebox/schema';
import { ClientCreate, EmptyBody, IdParams, Invitation } from '../admin/schemas.ts';
import { ConfigSchema, LdapDirectorySchema, SamlConnectionSchema } from '../config/schema.ts';
import { fillDefaults } from './defaults.ts';
import { check, fits } from './fits.ts';
import { Type } from './type.ts';

const config = (input: Record<string, unknown>) => fillDefaults(ConfigSchema, structuredClone(input));

const CONFIGS: [string, unknown][] = [
  ['the defaults', config({})],
  [
    'a production server',
    config({ server: { issuer: 'https://id.example', workers: 3 }, logging: { level: 'debug' } }),
  ],
  [
    'gateway routes',
    config({ gateway: { enabled: true, routes: [{ prefix: '/api', upstream: 'http://127.0.0.1:9' }] } }),
  ],
  ['an unknown table', config({ unknown_table: { a: 1 } })],
  ['wrong types', config({ server: 'not a table', gateway: { routes: 'nope' }, tls: [1, 2] })],
  ['a string port', config({ delivery: { kind: 'smtp', smtp: { host: 'mail.example', port: 'x' } } })],
  ['workers below the minimum', config({ server: { workers: 0 } })],
  ['a float for an integer', config({ server: { workers: 1.5 } })],
  ['an enum miss', config({ logging: { level: 'loud' } })],
  ['an empty array where one item is required', config({ gateway: { routes: [] } })],
];

const SCHEMAS = { LdapDirectorySchema, SamlConnectionSchema, ClientCreate, EmptyBody, IdParams, Invitation };
const VALUES: unknown[] = [
  undefined,
  null,
  {},
  [],
  'x',
  '',
  3,
  Number.NaN,
  { id: 'a'.repeat(64) },
  { id: 'a'.repeat(65) },
  { id: '😀'.repeat(64) },
  { email: 'a@example.org' },
  { email: 'a@example.org', extra: true },
  { name: 'n', redirect_uris: ['https://app.example/cb'] },
  { url: 'ldaps://ldap.example' },
  { url: 'ldaps://ldap.example', port: 70000 },
];

describe('fits', () => {
  for (const [name, value] of CONFIGS)
    test(`answers as TypeBox's Check for a configuration: ${name}`, () => {
      const answer = fits(ConfigSchema, value);
      assert.notEqual(answer, undefined, 'a configuration read from TOML is always decided here');
      assert.equal(answer, Check(ConfigSchema, value));
    });

  test('confirms the default configuration without TypeBox', () => {
    assert.equal(fits(ConfigSchema, config({})), true);
  });

  for (const [name, schema] of Object.entries(SCHEMAS))
    test(`never contradicts TypeBox's Check: ${name}`, () => {
      for (const value of [...VALUES, fillDefaults(schema, {})]) {
        const answer = fits(schema, value);
        if (answer !== undefined) assert.equal(answer, Check(schema, value), JSON.stringify(value));
        assert.equal(check(schema, value), Check(schema, value));
      }
    });

  test('leaves to TypeBox what it does not decide: undefined values and unknown keywords', () => {
    const optional = Type.Object({ a: Type.Optional(Type.String()) });
    assert.equal(fits(optional, { a: undefined }), undefined);
    assert.equal(check(optional, { a: undefined }), Check(optional, { a: undefined }));
    assert.equal(fits({ type: 'string', format: 'email' }, 'x'), undefined);
    assert.equal(check({ type: 'string', format: 'email' }, 'x'), Check({ type: 'string', format: 'email' }, 'x'));
  });

  test('counts string lengths in code points and matches patterns as Unicode', () => {
    const schema = Type.String({ maxLength: 2, pattern: '^.{2}$' });
    for (const value of ['😀😀', '😀😀😀', 'ab', 'a']) assert.equal(fits(schema, value), Check(schema, value), value);
  });
});
