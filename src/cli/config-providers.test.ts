import assert from 'node:assert/strict';
import { existsSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { describe, test } from 'node:test';
import { commandValues } from '../../test/helpers/cli.ts';
import { scratchDir } from '../../test/helpers/config.ts';
import { startStandIn } from '../../test/helpers/oidc-stand-in.ts';
import { generateSecretFiles } from '../crypto/secret-files.ts';
import type { ConfigIo } from './config-io.ts';
import { runConfigProviders } from './config-providers.ts';

describe('gatehouse config providers', async () => {
  const dir = scratchDir();
  const secretsDir = path.join(dir, 'secrets');
  generateSecretFiles(secretsDir);
  const upstream = await startStandIn((base) => ({
    '': { issuer: base },
    '/liar': { issuer: 'https://elsewhere.dev' },
  }));
  const original = `[server]\nissuer = "https://id.acme.dev"\n\n[organization]\nid = "acme"\nname = "Acme"\nowner_subject = "owner@acme.dev"\n\n[secrets]\ndir = "${secretsDir}"\n`;
  let count = 0;
  const fresh = () => {
    const file = path.join(dir, `gatehouse-${++count}.toml`);
    writeFileSync(file, original, { mode: 0o600 });
    return file;
  };
  const run = async (args: string[], stdin = '') => {
    let out = '';
    const io: ConfigIo = {
      write: (text) => {
        out += text;
      },
      readStdin: async () => stdin,
      resolver: {} as ConfigIo['resolver'],
      now: () => new Date(Date.UTC(2026, 10, 25, 21, 0, count)),
    };
    return { code: await runConfigProviders(await commandValues(['config', 'providers'], args), io), out };
  };

  test('adds a generic OpenID Connect provider: settings in the TOML, the secret only in its 0600 file', async () => {
    const file = fresh();
    const args = ['--config', file, '--provider', 'corp', '--name', 'Corp SSO', '--issuer', upstream.base];
    const { code, out } = await run([...args, '--client-id', 'gatehouse', '--client-secret-stdin'], 'corp-secret-8\n');
    assert.equal(code, 0, out);
    const text = readFileSync(file, 'utf8');
    assert.match(text, /\[\[providers\.oidc\]\]/);
    assert.match(text, /id = "corp"/);
    assert.doesNotMatch(text, /corp-secret-8/);
    const secret = path.join(secretsDir, 'provider-corp.secret');
    assert.equal(readFileSync(secret, 'utf8'), 'corp-secret-8\n');
    assert.equal(statSync(secret).mode & 0o777, 0o600);
    assert.match(out, /corp: enabled/);
    assert.match(out, /Register https:\/\/id\.acme\.dev\/auth\/federated\/callback at the provider/);
  });

  test('a discovery document naming another issuer restores the previous configuration and removes the new secret', async () => {
    const file = fresh();
    const { code, out } = await run(
      [
        '--config',
        file,
        '--provider',
        'gitlab',
        '--enable',
        '--issuer',
        `${upstream.base}/liar`,
        '--client-id',
        'gl-1',
        '--client-secret-stdin',
      ],
      'gitlab-secret-1',
    );
    assert.equal(code, 1);
    assert.match(out, /discovery names issuer https:\/\/elsewhere\.dev/);
    assert.match(out, /restored the previous configuration/);
    assert.equal(readFileSync(file, 'utf8'), original);
    assert.equal(existsSync(path.join(secretsDir, 'provider-gitlab.secret')), false);
  });

  test('a placeholder client id is written but reported deferred, without a discovery check', async () => {
    const file = fresh();
    const { code, out } = await run([
      '--config',
      file,
      '--provider',
      'google',
      '--enable',
      '--client-id',
      'placeholder',
    ]);
    assert.equal(code, 0);
    assert.match(out, /google: deferred: client_id is a placeholder/);
  });

  test('refuses a secret on the command line and unknown combinations, changing nothing', async () => {
    const file = fresh();
    await assert.rejects(run(['--config', file, '--provider', 'github', '--client-secret', 'x']));
    await assert.rejects(
      run(['--config', file, '--provider', 'github', '--name', 'Hub']),
      /--name is only for a generic/,
    );
    await assert.rejects(run(['--config', file, '--provider', 'ethereum', '--enable']), /not a redirect provider/);
    assert.equal(readFileSync(file, 'utf8'), original);
  });
});
