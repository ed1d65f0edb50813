import assert from 'node:assert/strict';
import { generateKeyPairSync } from 'node:crypto';
import { existsSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { describe, test } from 'node:test';
import { parse } from 'smol-toml';
import { commandValues } from '../../test/helpers/cli.ts';
import { scratchDir } from '../../test/helpers/config.ts';
import { startStandIn } from '../../test/helpers/oidc-stand-in.ts';
import { generateSecretFiles } from '../crypto/secret-files.ts';
import { UsageError } from './args.ts';
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
    assert.deepEqual(JSON.parse(JSON.stringify((parse(text) as { providers: unknown }).providers)), {
      oidc: [{ id: 'corp', enabled: true, name: 'Corp SSO', issuer: upstream.base, client_id: 'gatehouse' }],
    });
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

  test('adds Apple: team and key ids in the TOML, the .p8 key only in its 0600 file in secrets.dir', async () => {
    const file = fresh();
    const pem = generateKeyPairSync('ec', { namedCurve: 'P-256' })
      .privateKey.export({ type: 'pkcs8', format: 'pem' })
      .toString();
    const keyFile = path.join(dir, 'AuthKey_7M2QX4K9ZB.p8');
    writeFileSync(keyFile, pem, { mode: 0o644 });
    const { code, out } = await run([
      '--config',
      file,
      '--provider',
      'apple',
      '--enable',
      '--issuer',
      upstream.base,
      '--client-id',
      'dev.acme.signin',
      '--team-id',
      'A1B2C3D4E5',
      '--key-id',
      '7M2QX4K9ZB',
      '--client-secret-file',
      keyFile,
    ]);
    assert.equal(code, 0, out);
    const text = readFileSync(file, 'utf8');
    const apple = (parse(text) as { providers: { apple: Record<string, unknown> } }).providers.apple;
    assert.deepEqual(
      { ...apple },
      {
        enabled: true,
        issuer: upstream.base,
        client_id: 'dev.acme.signin',
        team_id: 'A1B2C3D4E5',
        key_id: '7M2QX4K9ZB',
      },
    );
    assert.doesNotMatch(text, /PRIVATE KEY|-----/);
    assert.ok(!text.includes(pem.split('\n')[1] ?? 'no key line'), 'no line of the key is in the TOML');
    const stored = path.join(secretsDir, 'provider-apple.p8');
    assert.equal(readFileSync(stored, 'utf8'), pem);
    assert.equal(statSync(stored).mode & 0o777, 0o600);
    assert.match(out, /Wrote .*provider-apple\.p8 \(mode 0600\)/);
    assert.match(out, /apple: enabled/);
  });

  test('--team-id or --key-id for a provider other than Apple is a usage error, changing nothing', async () => {
    const file = fresh();
    for (const flag of ['--team-id', '--key-id'])
      await assert.rejects(
        run(['--config', file, '--provider', 'google', '--enable', '--client-id', 'g-1', flag, 'A1B2C3D4E5']),
        (error: Error) =>
          error instanceof UsageError && /--team-id and --key-id are for apple only/.test(error.message),
      );
    assert.equal(readFileSync(file, 'utf8'), original);
  });

  test('refuses a secret on the command line and unknown combinations, changing nothing', async () => {
    const file = fresh();
    await assert.rejects(run(['--config', file, '--provider', 'github', '--client-secret', 'x']));
    await assert.rejects(
      run(['--config', file, '--provider', 'github', '--name', 'Hub']),
      /--name is only for a generic/,
    );
    assert.equal(readFileSync(file, 'utf8'), original);
  });

  test('turns the web3 providers on and off: no secret, no discovery, no callback to register', async () => {
    const file = fresh();
    const on = await run(['--config', file, '--provider', 'ethereum', '--enable', '--no-restart']);
    assert.equal(on.code, 0, on.out);
    assert.match(
      on.out,
      /\nethereum: enabled\nRestart the service to use the new provider settings \(--no-restart\)\n$/,
    );
    const farcaster = await run(['--config', file, '--provider', 'farcaster', '--enable', '--no-restart']);
    assert.equal(farcaster.code, 0, farcaster.out);
    assert.match(farcaster.out, /\nfarcaster: enabled\n/);
    const off = await run(['--config', file, '--provider', 'ethereum', '--disable', '--no-restart']);
    assert.equal(off.code, 0, off.out);
    assert.match(off.out, /\nethereum: off \(not enabled\)\n/);
    assert.deepEqual(
      JSON.parse(JSON.stringify((parse(readFileSync(file, 'utf8')) as { providers: unknown }).providers)),
      {
        ethereum: { enabled: false },
        farcaster: { enabled: true },
      },
    );
    assert.equal(existsSync(path.join(secretsDir, 'provider-ethereum.secret')), false);
  });

  test('refuses client settings or a secret for a web3 provider, changing nothing', async () => {
    const file = fresh();
    const expected = (id: string) =>
      `${id} takes only --enable or --disable here; set its other keys with \`gatehouse config main --set providers.${id}.KEY=VALUE\``;
    for (const [id, flags] of [
      ['ethereum', ['--client-id', 'x']],
      ['farcaster', ['--issuer', 'https://relay.example']],
      ['ethereum', ['--client-secret-stdin']],
    ] as const)
      await assert.rejects(
        run(['--config', file, '--provider', id, '--enable', ...flags], 'a secret\n'),
        (error: Error) => error instanceof UsageError && error.message === expected(id),
      );
    assert.equal(readFileSync(file, 'utf8'), original);
    assert.equal(existsSync(path.join(secretsDir, 'provider-ethereum.secret')), false);
  });
});
