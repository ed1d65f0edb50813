import assert from 'node:assert/strict';
import { existsSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { after, describe, test } from 'node:test';
import { type ConfigIo, runConfigDelivery } from '../../src/cli/config.ts';
import { parseConfig } from '../../src/config/load.ts';
import { generateSecretFiles, loadSecrets } from '../../src/crypto/secret-files.ts';
import { webhookSecret } from '../../src/delivery/keys.ts';
import { scratchDir } from '../helpers/config.ts';
import { makeCertificate, TestSmtpServer } from './smtp-server.ts';

const dir = scratchDir();
const secretsDir = path.join(dir, 'secrets');
generateSecretFiles(secretsDir);
const credentials = { username: 'mailer', password: 'relay-password-7Qx' };
const certificate = await makeCertificate(dir);
const relay = await new TestSmtpServer({ certificate, credentials }).start();
after(() => relay.stop());

const ORIGINAL = `[server]
issuer = "https://id.acme.dev"

[organization]
id = "acme"
name = "Acme"
owner_subject = "owner@acme.dev"

[secrets]
dir = "${secretsDir}"
`;

let fileCount = 0;
function freshConfigFile(): string {
  const folder = path.join(dir, `case-${++fileCount}`);
  const file = path.join(folder, 'gatehouse.toml');
  mkdirSync(folder, { recursive: true });
  writeFileSync(file, ORIGINAL, { mode: 0o600 });
  return file;
}

function io(stdin = ''): ConfigIo & { output: string } {
  const state = {
    output: '',
    write(text: string) {
      state.output += text;
    },
    readStdin: async () => stdin,
    resolver: {
      resolveMx: () => Promise.reject(new Error('no DNS')),
      resolveTxt: () => Promise.reject(new Error('no DNS')),
      resolve4: () => Promise.reject(new Error('no DNS')),
      reverse: () => Promise.reject(new Error('no DNS')),
    },
    now: () => new Date('2026-05-01T12:00:00Z'),
  };
  return state;
}

const smtpFlags = (file: string) => [
  '--config',
  file,
  '--kind',
  'smtp',
  '--from',
  'Acme <no-reply@acme.dev>',
  '--smtp-host',
  'localhost',
  '--smtp-port',
  String(relay.port),
  '--smtp-username',
  'mailer',
  '--smtp-ca-file',
  certificate.caFile,
  '--smtp-password-stdin',
];

describe('gatehouse config delivery', () => {
  test('writes a working relay configuration after a backup and says to restart', async () => {
    const file = freshConfigFile();
    const terminal = io(`${credentials.password}\n`);
    assert.equal(await runConfigDelivery(smtpFlags(file), terminal), 0);
    const written = parseConfig(readFileSync(file, 'utf8'), file, { baseDir: dir, development: false, env: {} }).config;
    assert.equal(written.delivery.kind, 'smtp');
    assert.equal(written.delivery.smtp.password, credentials.password);
    assert.equal(written.organization.name, 'Acme', 'other sections are kept');
    const backup = `${file}.bak-2026-05-01T12-00-00-000Z`;
    assert.equal(readFileSync(backup, 'utf8'), ORIGINAL);
    assert.match(terminal.output, /ok {4}smtp {7}localhost:\d+ accepted TLS and the login/);
    assert.match(terminal.output, /Restart the service to use the new delivery settings\.\n$/);
    assert.ok(!terminal.output.includes(credentials.password));
  });

  test('restores the previous file when the new relay refuses the login', async () => {
    const file = freshConfigFile();
    const terminal = io('wrong-password-9Zr\n');
    assert.equal(await runConfigDelivery(smtpFlags(file), terminal), 1);
    assert.equal(readFileSync(file, 'utf8'), ORIGINAL);
    assert.match(terminal.output, /fail {2}smtp {7}localhost:\d+: SMTP 535: /);
    assert.match(terminal.output, /restored the previous configuration\. Use --force to keep it anyway\.\n$/);
  });

  test('--force keeps a configuration whose check failed', async () => {
    const file = freshConfigFile();
    const terminal = io('wrong-password-9Zr\n');
    assert.equal(await runConfigDelivery([...smtpFlags(file), '--force'], terminal), 0);
    assert.match(readFileSync(file, 'utf8'), /kind = "smtp"/);
    assert.match(terminal.output, /Kept the new configuration although its check failed \(--force\)\.\n$/);
  });

  test('an invalid value is refused before anything is written or backed up', async () => {
    const file = freshConfigFile();
    await assert.rejects(runConfigDelivery(['--config', file, '--kind', 'carrier-pigeon'], io()), {
      name: 'ConfigError',
    });
    assert.equal(readFileSync(file, 'utf8'), ORIGINAL);
    assert.deepEqual(readdirSync(path.dirname(file)), ['gatehouse.toml']);
  });

  test('--show-webhook-secret prints the Standard Webhooks secret receivers verify with', async () => {
    const file = freshConfigFile();
    const terminal = io();
    assert.equal(await runConfigDelivery(['--config', file, '--show-webhook-secret'], terminal), 0);
    assert.equal(terminal.output, `${webhookSecret(loadSecrets(secretsDir).delivery)}\n`);
    assert.match(terminal.output, /^whsec_[A-Za-z0-9+/]{43}=\n$/);
    assert.ok(existsSync(file));
  });
});
