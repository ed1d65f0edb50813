import assert from 'node:assert/strict';
import { generateKeyPairSync } from 'node:crypto';
import { once } from 'node:events';
import { chmodSync, existsSync, mkdirSync, readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:http';
import path from 'node:path';
import { after, describe, test } from 'node:test';
import { type ConfigIo, runConfigDelivery } from '../../src/cli/config.ts';
import { parseConfig } from '../../src/config/load.ts';
import { generateSecretFiles, loadSecrets } from '../../src/crypto/secret-files.ts';
import { webhookSecret } from '../../src/delivery/keys.ts';
import { commandValues, runCli } from '../helpers/cli.ts';
import { scratchDir } from '../helpers/config.ts';
import { freePort, makeCertificate, TestSmtpServer } from './smtp-server.ts';

const dir = scratchDir();
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
dir = "secrets"
`;

const receiver = createServer((_request, response) => response.writeHead(204).end());
receiver.listen(0, '127.0.0.1');
await once(receiver, 'listening');
after(() => receiver.close());
const receiverAddress = receiver.address();
const receiverPort = typeof receiverAddress === 'object' && receiverAddress ? receiverAddress.port : 0;

const dkimKeyFile = path.join(dir, 'dkim.pem');
writeFileSync(
  dkimKeyFile,
  generateKeyPairSync('rsa', { modulusLength: 2048 }).privateKey.export({ type: 'pkcs8', format: 'pem' }),
  { mode: 0o600 },
);

let fileCount = 0;
function freshConfigFile(): string {
  const folder = path.join(dir, `case-${++fileCount}`);
  const file = path.join(folder, 'gatehouse.toml');
  // Each case has a secrets directory of its own (relative to the config file), so the relay password one case
  // stores is not another case's starting point.
  mkdirSync(path.join(folder, 'secrets'), { recursive: true, mode: 0o700 });
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
  test('writes a working relay configuration after a backup, the password only in a 0600 secret file', async () => {
    const file = freshConfigFile();
    const terminal = io(`${credentials.password}\n`);
    assert.equal(await runConfigDelivery(await commandValues(['config', 'delivery'], smtpFlags(file)), terminal), 0);
    const text = readFileSync(file, 'utf8');
    assert.ok(!text.includes(credentials.password), 'the TOML never holds the password');
    assert.match(text, /\npassword_file = "smtp-password"\n/);
    const written = parseConfig(text, file, { baseDir: path.dirname(file), development: false, env: {} }).config;
    assert.equal(written.delivery.kind, 'smtp');
    const secret = path.join(path.dirname(file), 'secrets', 'smtp-password');
    assert.equal(written.delivery.smtp.password_file, secret);
    assert.equal(readFileSync(secret, 'utf8'), credentials.password);
    assert.equal(statSync(secret).mode & 0o777, 0o600);
    assert.deepEqual(readdirSync(path.dirname(secret)), ['smtp-password'], 'no temporary or backup file is left');
    assert.equal(written.organization.name, 'Acme', 'other sections are kept');
    const backup = path.join(path.dirname(file), 'config-backups', 'gatehouse.toml.2026-05-01T12-00-00-000Z');
    assert.equal(readFileSync(backup, 'utf8'), ORIGINAL);
    assert.match(terminal.output, new RegExp(`\nStored the relay password in ${secret} \\(mode 0600\\)\\.\n`));
    assert.match(terminal.output, /ok {4}smtp {7}localhost:\d+ accepted TLS and the login/);
    assert.match(
      terminal.output,
      /Restart the service to use the new delivery settings \(gatehouse\.service is not installed here\)\n$/,
    );
    assert.ok(!terminal.output.includes(credentials.password));
  });

  test('gatehouse serve refuses a relay password file that group or others can read, before it listens', async () => {
    const file = freshConfigFile();
    assert.equal(
      await runConfigDelivery(
        await commandValues(['config', 'delivery'], smtpFlags(file)),
        io(`${credentials.password}\n`),
      ),
      0,
    );
    const secret = path.join(path.dirname(file), 'secrets', 'smtp-password');
    chmodSync(secret, 0o644);
    const result = await runCli(['serve', '--config', file], { env: { GATEHOUSE_LISTEN: '127.0.0.1:0' } });
    assert.equal(result.code, 78);
    assert.equal(
      result.stderr,
      `gatehouse serve: Secret file ${secret} is accessible to group or others (mode 644); run chmod 600 ${secret}\n`,
    );
    assert.equal(result.stdout, '', 'nothing started: no log line');
  });

  test('--smtp-password-file copies the password into the secrets directory and names only that file', async () => {
    const file = freshConfigFile();
    const source = path.join(path.dirname(file), 'relay-password.txt');
    writeFileSync(source, `${credentials.password}\n`, { mode: 0o600 });
    const flags = smtpFlags(file).filter((flag) => flag !== '--smtp-password-stdin');
    const terminal = io();
    assert.equal(
      await runConfigDelivery(
        await commandValues(['config', 'delivery'], [...flags, '--smtp-password-file', source]),
        terminal,
      ),
      0,
      terminal.output,
    );
    const text = readFileSync(file, 'utf8');
    assert.ok(!text.includes(credentials.password));
    assert.ok(!text.includes(source), 'the TOML names the copy in the secrets directory, not the operator’s file');
    const secret = path.join(path.dirname(file), 'secrets', 'smtp-password');
    assert.equal(readFileSync(secret, 'utf8'), credentials.password);
    assert.equal(statSync(secret).mode & 0o777, 0o600);
    assert.match(terminal.output, /ok {4}smtp {7}localhost:\d+ accepted TLS and the login/);
  });

  test('moves a password an earlier version kept inline in the TOML into the secrets directory', async () => {
    const file = freshConfigFile();
    const inline = `${ORIGINAL}\n[delivery]\nkind = "smtp"\nfrom = "no-reply@acme.dev"\n\n[delivery.smtp]\nhost = "localhost"\nport = ${relay.port}\nusername = "mailer"\npassword = "${credentials.password}"\nca_file = "${certificate.caFile}"\n`;
    writeFileSync(file, inline, { mode: 0o600 });
    // The service and every command refuse the old key, saying what to run.
    const refused = await runCli(['info', '--config', file]);
    assert.equal(refused.code, 78);
    assert.equal(
      refused.stderr,
      `gatehouse info: Invalid configuration in ${file}:\n  delivery.smtp.password: is no longer read: the password belongs in a 0600 file named by delivery.smtp.password_file; \`gatehouse config delivery --smtp-password-stdin\` moves it there\n`,
    );
    const terminal = io();
    assert.equal(
      await runConfigDelivery(await commandValues(['config', 'delivery'], ['--config', file]), terminal),
      0,
      terminal.output,
    );
    const text = readFileSync(file, 'utf8');
    assert.ok(!text.includes(credentials.password));
    assert.match(text, /\npassword_file = "smtp-password"\n/);
    assert.equal(readFileSync(path.join(path.dirname(file), 'secrets', 'smtp-password'), 'utf8'), credentials.password);
    assert.match(terminal.output, /ok {4}smtp {7}localhost:\d+ accepted TLS and the login/);
  });

  test('restores the previous file and the previous password when the new relay refuses the login', async () => {
    const file = freshConfigFile();
    assert.equal(
      await runConfigDelivery(
        await commandValues(['config', 'delivery'], smtpFlags(file)),
        io(`${credentials.password}\n`),
      ),
      0,
    );
    const working = readFileSync(file, 'utf8');
    const secret = path.join(path.dirname(file), 'secrets', 'smtp-password');
    const terminal = io('wrong-password-9Zr\n');
    assert.equal(await runConfigDelivery(await commandValues(['config', 'delivery'], smtpFlags(file)), terminal), 1);
    assert.equal(readFileSync(file, 'utf8'), working);
    assert.equal(readFileSync(secret, 'utf8'), credentials.password);
    assert.deepEqual(readdirSync(path.dirname(secret)), ['smtp-password']);
    assert.match(terminal.output, /fail {2}smtp {7}localhost:\d+: SMTP 535: /);
    assert.match(terminal.output, /restored the previous configuration\. Use --force to keep it anyway\.\n$/);
  });

  test('a refused first relay leaves neither the configuration nor a password file behind', async () => {
    const file = freshConfigFile();
    const terminal = io('wrong-password-9Zr\n');
    assert.equal(await runConfigDelivery(await commandValues(['config', 'delivery'], smtpFlags(file)), terminal), 1);
    assert.equal(readFileSync(file, 'utf8'), ORIGINAL);
    assert.deepEqual(readdirSync(path.join(path.dirname(file), 'secrets')), []);
  });

  test('--force keeps a configuration whose check failed', async () => {
    const file = freshConfigFile();
    const terminal = io('wrong-password-9Zr\n');
    assert.equal(
      await runConfigDelivery(await commandValues(['config', 'delivery'], [...smtpFlags(file), '--force']), terminal),
      0,
    );
    assert.match(readFileSync(file, 'utf8'), /kind = "smtp"/);
    assert.equal(readFileSync(path.join(path.dirname(file), 'secrets', 'smtp-password'), 'utf8'), 'wrong-password-9Zr');
    assert.match(
      terminal.output,
      /Kept the new configuration although its check failed \(--force\)\.\nRestart the service/,
    );
  });

  test('an invalid value is refused before anything is written or backed up', async () => {
    const file = freshConfigFile();
    await assert.rejects(
      runConfigDelivery(
        await commandValues(['config', 'delivery'], ['--config', file, '--kind', 'carrier-pigeon']),
        io(),
      ),
      {
        name: 'ConfigError',
      },
    );
    assert.equal(readFileSync(file, 'utf8'), ORIGINAL);
    assert.deepEqual(readdirSync(path.dirname(file)).sort(), ['gatehouse.toml', 'secrets']);
    assert.deepEqual(readdirSync(path.join(path.dirname(file), 'secrets')), []);
  });

  test('--kind webhook writes the receiver and keeps it because it answers', async () => {
    const file = freshConfigFile();
    const url = `http://localhost:${receiverPort}/gatehouse`;
    const terminal = io();
    const args = ['--config', file, '--kind', 'webhook', '--from', 'no-reply@acme.dev', '--webhook-url', url];
    assert.equal(
      await runConfigDelivery(
        await commandValues(['config', 'delivery'], [...args, '--webhook-timeout', '15']),
        terminal,
      ),
      0,
    );
    const written = parseConfig(readFileSync(file, 'utf8'), file, { baseDir: dir, development: false, env: {} }).config;
    assert.equal(written.delivery.kind, 'webhook');
    assert.deepEqual({ ...written.delivery.webhook }, { url, timeout_seconds: 15, ca_file: '' });
    assert.match(terminal.output, new RegExp(`ok {4}webhook {4}${url} answers \\(HTTP 204 to HEAD\\)`));
    assert.match(
      terminal.output,
      /Restart the service to use the new delivery settings \(gatehouse\.service is not installed here\)\n$/,
    );
  });

  test('--kind webhook restores the previous file when nothing answers at the URL', async () => {
    const file = freshConfigFile();
    const url = `http://localhost:${await freePort()}/gatehouse`;
    const terminal = io();
    const args = ['--config', file, '--kind', 'webhook', '--from', 'no-reply@acme.dev', '--webhook-url', url];
    assert.equal(await runConfigDelivery(await commandValues(['config', 'delivery'], args), terminal), 1);
    assert.equal(readFileSync(file, 'utf8'), ORIGINAL);
    assert.match(terminal.output, new RegExp(`fail {2}webhook {4}${url} is unreachable: ECONNREFUSED`));
  });

  test('--webhook-timeout above the 60 s cap is refused before anything is written', async () => {
    const file = freshConfigFile();
    const args = ['--config', file, '--kind', 'webhook', '--from', 'no-reply@acme.dev'];
    await assert.rejects(
      runConfigDelivery(
        await commandValues(
          ['config', 'delivery'],
          [...args, '--webhook-url', `http://localhost:${receiverPort}/x`, '--webhook-timeout', '121'],
        ),
        io(),
      ),
      { name: 'ConfigError' },
    );
    assert.equal(readFileSync(file, 'utf8'), ORIGINAL);
  });

  const directFlags = (file: string, keyFile: string) => [
    '--config',
    file,
    '--kind',
    'direct_mx',
    '--from',
    'Acme <no-reply@acme.dev>',
    '--helo-name',
    'mx1.acme.dev',
    '--dkim-domain',
    'acme.dev',
    '--dkim-selector',
    'gh2026',
    '--dkim-private-key-file',
    keyFile,
  ];

  test('--kind direct_mx keeps a readable DKIM key and prints the DNS report as advice', async () => {
    const file = freshConfigFile();
    const terminal = io();
    assert.equal(
      await runConfigDelivery(await commandValues(['config', 'delivery'], directFlags(file, dkimKeyFile)), terminal),
      0,
    );
    const written = parseConfig(readFileSync(file, 'utf8'), file, { baseDir: dir, development: false, env: {} }).config;
    assert.equal(written.delivery.kind, 'direct_mx');
    assert.equal(written.delivery.direct_mx.dkim_private_key_file, dkimKeyFile);
    // No DNS answers here: the lookups are warnings to act on, not a reason to restore.
    assert.match(terminal.output, /ok {4}delivery {3}direct MX as mx1\.acme\.dev, DKIM gh2026\._domainkey\.acme\.dev/);
    assert.match(terminal.output, /warn {2}PTR {8}lookup of mx1\.acme\.dev failed/);
    assert.match(
      terminal.output,
      /Restart the service to use the new delivery settings \(gatehouse\.service is not installed here\)\n$/,
    );
  });

  test('--kind direct_mx restores the previous file when the DKIM key cannot be read', async () => {
    const file = freshConfigFile();
    const missing = path.join(dir, 'missing-dkim.pem');
    const terminal = io();
    assert.equal(
      await runConfigDelivery(await commandValues(['config', 'delivery'], directFlags(file, missing)), terminal),
      1,
    );
    assert.equal(readFileSync(file, 'utf8'), ORIGINAL);
    assert.match(terminal.output, new RegExp(`fail {2}dkim key {3}cannot read ${missing} \\(ENOENT\\)`));
  });

  test('--show-webhook-secret prints the Standard Webhooks secret receivers verify with', async () => {
    const file = freshConfigFile();
    const secretsDir = path.join(path.dirname(file), 'secrets');
    generateSecretFiles(secretsDir);
    const terminal = io();
    assert.equal(
      await runConfigDelivery(
        await commandValues(['config', 'delivery'], ['--config', file, '--show-webhook-secret']),
        terminal,
      ),
      0,
    );
    assert.equal(terminal.output, `${webhookSecret(loadSecrets(secretsDir).delivery)}\n`);
    assert.match(terminal.output, /^whsec_[A-Za-z0-9+/]{43}=\n$/);
    assert.ok(existsSync(file));
  });
});
