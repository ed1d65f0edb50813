import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { parse } from 'smol-toml';
import { editedToml } from './toml-edit.ts';

describe('editedToml', () => {
  const previous = [
    '# Acme: ask ops first',
    '[server]',
    'issuer = "https://id.acme.test" # public',
    '',
    '[[providers.oidc]]',
    'id = "corp"',
    'issuer = "https://sso.acme.test"',
    '',
  ].join('\n');

  test('changes values in place and adds new tables as sections, keeping every comment', () => {
    const wanted = parse(previous) as Record<string, Record<string, unknown>>;
    (wanted.server as Record<string, unknown>).workers = 2;
    wanted.tokens = { access_token_ttl_seconds: 600 };
    const text = editedToml(previous, wanted);
    assert.equal(
      text,
      [
        '# Acme: ask ops first',
        '[server]',
        'issuer = "https://id.acme.test" # public',
        'workers = 2',
        '',
        '[[providers.oidc]]',
        'id = "corp"',
        'issuer = "https://sso.acme.test"',
        '',
        '[tokens]',
        'access_token_ttl_seconds = 600',
        '',
      ].join('\n'),
    );
  });

  test('a removed key goes, and the result always parses to exactly what was asked', () => {
    const wanted = { server: { issuer: 'https://id.acme.test' } };
    const text = editedToml(previous, wanted);
    assert.deepEqual(JSON.parse(JSON.stringify(parse(text))), wanted);
    assert.match(text, /^# Acme: ask ops first\n/);
  });

  test('a new table whose sub-tables the patcher writes in another order keeps the comments (config delivery)', () => {
    const wanted = parse(previous) as Record<string, unknown>;
    wanted.delivery = { kind: 'webhook', smtp: {}, direct_mx: {}, webhook: { url: 'https://hooks.acme.test/in' } };
    const text = editedToml(previous, wanted);
    assert.match(text, /^# Acme: ask ops first\n/);
    assert.match(text, /issuer = "https:\/\/id\.acme\.test" # public/);
    assert.deepEqual(JSON.parse(JSON.stringify(parse(text))).delivery.webhook, { url: 'https://hooks.acme.test/in' });
  });

  test('values that differ from what was asked are still refused: the plain values are written', () => {
    const wanted = { server: { issuer: 'https://id.acme.test', workers: 2 } };
    assert.deepEqual(JSON.parse(JSON.stringify(parse(editedToml(previous, wanted)))), wanted);
  });
});
