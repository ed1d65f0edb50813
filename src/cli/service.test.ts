// start, stop, restart, status and the config commands' restart and rollback, against a stubbed systemd whose
// gatehouse.service is a real `gatehouse serve` (test/helpers/systemd-stub.ts).
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { appendFileSync, existsSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { after, before, describe, test } from 'node:test';
import { freePort, MAIN, runCli, writeCliConfig } from '../../test/helpers/cli.ts';
import { scratchDir } from '../../test/helpers/config.ts';
import { createTestDatabase } from '../../test/helpers/database.ts';
import { systemdStub } from '../../test/helpers/systemd-stub.ts';
import { loadConfig } from '../config/load.ts';
import { VERSION } from '../version.ts';

/** Points the config at a fresh database and a free port for the service (the file itself is made beforehand, at
 * suite level, so it lives as long as the suite). */
async function serveFrom(file: string, serverLines = ''): Promise<{ port: number; drop: () => Promise<void> }> {
  // Dropped by the suite: a hook's own after() would run as soon as the hook ends.
  const { url, drop } = await createTestDatabase({ autoDrop: false });
  const port = await freePort();
  const text = readFileSync(file, 'utf8').replace(
    'issuer = "http://localhost:8080"',
    `issuer = "http://localhost:${port}"\nlisten = "127.0.0.1:${port}"\n${serverLines}`,
  );
  writeFileSync(file, `${text}[database]\nurl = "${url}"\n`, { mode: 0o600 });
  return { port, drop };
}

/**
 * A config whose gatehouse.service is the systemd stub's, stopped and its database dropped when the suite ends;
 * `serve()` (in the suite's before hook) gives it a database and a port, and returns the port.
 */
function serviceUnderStub(serverLines = '') {
  const file = writeCliConfig();
  let dropDatabase = async () => {};
  const systemd = systemdStub(file);
  after(async () => {
    await runCli(['stop'], { env: systemd.env });
    await dropDatabase();
  });
  return {
    file,
    systemd,
    cli: (args: string[]) => runCli([...args, '--config', file], { env: systemd.env }),
    serve: async () => {
      const service = await serveFrom(file, serverLines);
      dropDatabase = service.drop;
      return service.port;
    },
  };
}

const backups = (file: string) =>
  existsSync(path.join(path.dirname(file), 'config-backups'))
    ? readdirSync(path.join(path.dirname(file), 'config-backups')).filter((f) => f.startsWith('gatehouse.toml.'))
    : [];

describe('gatehouse start, status, config and stop with systemd', () => {
  // One service through its life: each step is a test of its own (they run in order), so a slow start on a busy
  // machine counts against one step's time limit, not the whole sequence's.
  const { file, systemd, cli, serve } = serviceUnderStub();
  let port = 0;
  before(async () => {
    port = await serve();
  });
  let good = '';

  test('status before start: not ready, exit 1', async () => {
    const down = await cli(['status', '--json']);
    assert.equal(down.code, 1, 'not ready before it started');
    const report = JSON.parse(down.stdout);
    assert.equal(report.service.state, 'inactive (dead)');
    assert.equal(report.listener.ready, false);
    assert.match(report.listener.detail, /^not answering: ECONNREFUSED/);
  });

  test('start waits until ready', async () => {
    const started = await cli(['start']);
    assert.equal(started.code, 0, `${started.stderr}\n${systemd.serviceLog()}`);
    assert.equal(started.stdout, `Started gatehouse.service: ready at http://127.0.0.1:${port}/health/ready\n`);
  });

  test('status --full reports the service, listener, database, migrations, TLS and keys', async () => {
    const status = await cli(['status', '--full', '--json']);
    assert.equal(status.code, 0, status.stderr);
    const report = JSON.parse(status.stdout);
    assert.equal(report.version, VERSION);
    assert.equal(report.service.manager, 'systemd');
    assert.equal(report.service.state, 'active (running)');
    assert.ok(Number.isInteger(report.service.pid) && report.service.pid > 0);
    assert.ok(report.service.uptime_seconds >= 0 && report.service.uptime_seconds < 120);
    assert.deepEqual(report.listener, { url: `http://127.0.0.1:${port}`, ready: true, detail: 'ready' });
    assert.equal(report.full.database.reachable, true);
    assert.deepEqual(report.full.migrations.pending, []);
    assert.equal(report.full.tls.mode, 'external');
    assert.equal(report.full.signing_keys.length, 1);
    assert.equal(report.full.signing_keys[0].signing, true);

    const lines = await cli(['status', '--full']);
    assert.equal(lines.code, 0);
    assert.match(
      lines.stdout,
      new RegExp(
        `^version: +${VERSION.replaceAll('.', '\\.')}\\nservice: +active \\(running\\) \\[gatehouse\\.service\\], pid \\d+\\nuptime: +\\d+[smhd]( \\d+[smh])? \\(since `,
      ),
    );
    assert.match(lines.stdout, new RegExp(`\\nlistener: +http://127\\.0\\.0\\.1:${port} ready\\n`));
    assert.match(lines.stdout, /\ndatabase: +reachable postgres:\/\/.*\nmigrations: +all \d+ applied\n/);
  });

  test('config self-service on saves, backs up and restarts the service', async () => {
    const on = await cli(['config', 'self-service', 'on']);
    assert.equal(on.code, 0, on.stdout + on.stderr);
    assert.equal(loadConfig({ configPath: file, env: {} }).config.self_service.enabled, true);
    assert.equal(backups(file).length, 1);
    assert.match(
      on.stdout,
      /^Wrote .*gatehouse\.toml \(previous configuration saved as .*\/config-backups\/gatehouse\.toml\..*\)\.\nRestarting gatehouse\.service\.\.\.\nRestarted gatehouse\.service: ready at /,
    );
  });

  test('a change the service cannot start with is rolled back and the service restarted on the previous file', async () => {
    // Valid, but the service cannot start on it: nothing answers, so the previous file comes back.
    good = readFileSync(file, 'utf8');
    const broken = await cli([
      'config',
      'main',
      '--set',
      'database.url="postgres://127.0.0.1:1/none"',
      '--timeout',
      '5',
    ]);
    assert.equal(broken.code, 1, broken.stdout + broken.stderr);
    assert.match(
      broken.stdout,
      /gatehouse\.service did not come back healthy within 5 s \(not answering: ECONNREFUSED\)\.\n/,
    );
    assert.match(
      broken.stdout,
      /Restored the previous configuration from .*\/config-backups\/gatehouse\.toml\..*; restarting gatehouse\.service again\.\.\.\nRestarted gatehouse\.service on the previous configuration: ready\.\n$/,
    );
    assert.equal(readFileSync(file, 'utf8'), good);
    assert.equal((await cli(['status'])).code, 0, 'ready again on the previous file');
  });

  test('an invalid change is refused before anything is written or restarted', async () => {
    const restarts = systemd.calls().filter((c) => c === 'systemctl restart gatehouse.service').length;
    const refused = await cli(['config', 'main', '--set', 'server.listen=everywhere']);
    assert.equal(refused.code, 78);
    assert.match(refused.stderr, /server\.listen/);
    assert.equal(readFileSync(file, 'utf8'), good, 'nothing written');
    assert.equal(systemd.calls().filter((c) => c === 'systemctl restart gatehouse.service').length, restarts);
  });

  test('restart and stop', async () => {
    const restarted = await cli(['restart']);
    assert.equal(restarted.code, 0);
    assert.equal(restarted.stdout, `Restarted gatehouse.service: ready at http://127.0.0.1:${port}/health/ready\n`);

    const stopped = await runCli(['stop'], { env: systemd.env });
    assert.equal(stopped.code, 0);
    assert.equal(stopped.stdout, 'Stopped gatehouse.service.\n');
    assert.equal((await cli(['status'])).code, 1);
  });

  test('every start and restart the CLI asked of systemd came after a reset-failed (the start limit counts them all)', () => {
    const calls = systemd.calls();
    const starts = calls.flatMap((call, i) => (/^systemctl (start|restart) /.test(call) ? [i] : []));
    assert.ok(starts.length >= 4, calls.join('\n'));
    for (const i of starts) assert.equal(calls[i - 1], 'systemctl reset-failed gatehouse.service', calls.join('\n'));
  });
});

describe('gatehouse start, status, config and restart behind a trusted proxy (server.trusted_proxy = true)', () => {
  // Every request must carry exactly one X-Forwarded-For address; the CLI's own probes over loopback must pass.
  const { file, systemd, cli, serve } = serviceUnderStub('trusted_proxy = true');
  let port = 0;
  before(async () => {
    port = await serve();
  });

  test('start reports ready and status exits 0 with the listener ready', async () => {
    const started = await cli(['start']);
    assert.equal(started.code, 0, `${started.stdout}${started.stderr}\n${systemd.serviceLog()}`);
    assert.equal(started.stdout, `Started gatehouse.service: ready at http://127.0.0.1:${port}/health/ready\n`);
    const status = await cli(['status', '--json']);
    assert.equal(status.code, 0, status.stdout);
    assert.deepEqual(JSON.parse(status.stdout).listener, {
      url: `http://127.0.0.1:${port}`,
      ready: true,
      detail: 'ready',
    });
    // The rule still holds for everyone else: a request without the header is refused.
    const bare = await fetch(`http://127.0.0.1:${port}/health/ready`);
    assert.equal(bare.status, 400);
    assert.equal(((await bare.json()) as { error: string }).error, 'invalid_forwarded_for');
  });

  test('a valid config main change is kept, not rolled back', async () => {
    const changed = await cli(['config', 'main', '--set', 'tokens.access_token_ttl_seconds=600']);
    assert.equal(changed.code, 0, changed.stdout + changed.stderr);
    assert.match(changed.stdout, /\nRestarted gatehouse\.service: ready at /);
    assert.doesNotMatch(changed.stdout, /Restored the previous configuration/);
    assert.equal(loadConfig({ configPath: file, env: {} }).config.tokens.access_token_ttl_seconds, 600);
  });

  test('restart reports ready', async () => {
    const restarted = await cli(['restart']);
    assert.equal(restarted.code, 0, restarted.stdout);
    assert.equal(restarted.stdout, `Restarted gatehouse.service: ready at http://127.0.0.1:${port}/health/ready\n`);
  });
});

describe('without systemd', () => {
  const noSystemd = { PATH: scratchDir('gatehouse-empty-path-') };

  test('start, stop and logs say in one line that systemd is not here, exit 69', async () => {
    for (const args of [['start'], ['stop'], ['restart'], ['logs']]) {
      const result = await runCli(args, { env: noSystemd });
      assert.equal(result.code, 69, args.join(' '));
      assert.match(
        result.stderr,
        new RegExp(`^gatehouse ${args[0]}: (systemctl was not found|gatehouse\\.service is not installed here)`),
      );
    }
  });

  test('config main --set saves, validates and says the restart is left to the operator', async () => {
    const file = writeCliConfig();
    const result = await runCli(['config', 'main', '--config', file, '--set', 'tokens.access_token_ttl_seconds=600'], {
      env: noSystemd,
    });
    assert.equal(result.code, 0, result.stderr);
    assert.equal(loadConfig({ configPath: file, env: {} }).config.tokens.access_token_ttl_seconds, 600);
    assert.match(
      result.stdout,
      /Restart the service to use the new settings \(gatehouse\.service is not installed here\)\n$/,
    );
    const again = await runCli(['config', 'main', '--config', file, '--set', 'tokens.access_token_ttl_seconds=600'], {
      env: noSystemd,
    });
    assert.equal(again.stdout, `No change to ${file}.\n`);
    assert.equal(backups(file).length, 1);
  });

  test('config main --set refuses delivery and providers keys, and unknown keys by the config rules', async () => {
    const file = writeCliConfig();
    const delivery = await runCli(['config', 'main', '--config', file, '--set', 'delivery.kind=smtp']);
    assert.equal(delivery.code, 64);
    assert.match(delivery.stderr, /use `gatehouse config delivery`/);
    const unknown = await runCli(['config', 'main', '--config', file, '--set', 'server.colour=blue']);
    assert.equal(unknown.code, 78);
    assert.match(unknown.stderr, /server\.colour: unknown key/);
    assert.equal(backups(file).length, 0);
  });

  test('config main --set reaches the web3 providers, validated like the rest', async () => {
    const file = writeCliConfig();
    const set = (assignment: string) =>
      runCli(['config', 'main', '--config', file, '--set', assignment, '--no-restart'], { env: noSystemd });
    const chains = await set('providers.ethereum.chain_ids=[1,10]');
    assert.equal(chains.code, 0, chains.stderr);
    const relay = await set('providers.farcaster.rpc_url=https://optimism.acme.test');
    assert.equal(relay.code, 0, relay.stderr);
    const { providers } = loadConfig({ configPath: file, env: {} }).config;
    assert.deepEqual(providers.ethereum.chain_ids, [1, 10]);
    assert.equal(providers.farcaster.rpc_url, 'https://optimism.acme.test');
    const bad = await set('providers.ethereum.chain_ids=[0]');
    assert.equal(bad.code, 78);
    assert.match(bad.stderr, /providers\.ethereum\.chain_ids/);
    const redirect = await set('providers.google.enabled=true');
    assert.equal(redirect.code, 64);
    assert.match(redirect.stderr, /use `gatehouse config providers`/);
  });

  test('config main --edit runs $EDITOR on the section, without delivery and providers, and saves what it wrote', async () => {
    const file = writeCliConfig();
    const seen = path.join(scratchDir(), 'seen.toml');
    const editor = path.join(scratchDir(), 'editor.sh');
    // The "editor": keeps a copy of what it was shown, then changes one key.
    writeFileSync(editor, `#!/bin/sh\ncp "$1" "${seen}"\nsed -i 's/^name = "Acme"$/name = "Acme Corp"/' "$1"\n`, {
      mode: 0o755,
    });
    const result = await runCli(['config', 'main', '--config', file, '--edit', '--no-restart'], {
      env: { EDITOR: editor, VISUAL: '' },
    });
    assert.equal(result.code, 0, result.stderr);
    assert.equal(loadConfig({ configPath: file, env: {} }).config.organization.name, 'Acme Corp');
    assert.match(readFileSync(seen, 'utf8'), /\[organization\]/);
    assert.doesNotMatch(readFileSync(seen, 'utf8'), /\[(delivery|providers)\]/);
    assert.match(result.stdout, /Restart the service to use the new settings \(--no-restart\)\n$/);
  });

  test('config self-service takes only on or off', async () => {
    const result = await runCli(['config', 'self-service', 'maybe', '--config', writeCliConfig()]);
    assert.equal(result.code, 64);
    assert.equal(result.stderr, 'gatehouse config: self-service takes on or off\n');
  });
});

describe('gatehouse logs', () => {
  test('reads the journal of gatehouse.service with the lines asked for', async () => {
    const systemd = systemdStub();
    const result = await runCli(['logs', '--lines', '5'], { env: systemd.env });
    assert.equal(result.code, 0, result.stderr);
    assert.equal(result.stdout, '{"level":30,"msg":"from the journal"}\n');
    assert.ok(
      systemd.calls().includes('journalctl --unit gatehouse.service --lines 5 --no-pager --output cat'),
      systemd.calls().join('\n'),
    );
  });

  test('--file prints the last N lines of a file', async () => {
    const file = path.join(scratchDir(), 'gatehouse.log');
    writeFileSync(file, `${Array.from({ length: 500 }, (_, i) => `line ${i + 1}`).join('\n')}\n`);
    const result = await runCli(['logs', '--file', file, '-n', '3']);
    assert.equal(result.code, 0, result.stderr);
    assert.equal(result.stdout, 'line 498\nline 499\nline 500\n');
  });

  test('--follow --file prints the last lines, then each line appended, until stopped', async () => {
    const file = path.join(scratchDir(), 'gatehouse.log');
    writeFileSync(file, 'first\nsecond\n');
    const child = spawn(process.execPath, [MAIN, 'logs', '--file', file, '--lines', '1', '--follow'], {
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    after(() => child.kill('SIGKILL'));
    let output = '';
    const seen = (text: string) =>
      new Promise<void>((resolve) => {
        const check = () => {
          if (output.includes(text)) {
            child.stdout.off('data', onData);
            resolve();
          }
        };
        const onData = (chunk: Buffer) => {
          output += chunk;
          check();
        };
        child.stdout.on('data', onData);
        check();
      });
    await seen('second\n');
    appendFileSync(file, 'third\n');
    await seen('third\n');
    child.kill('SIGTERM');
    await once(child, 'close');
    assert.equal(output, 'second\nthird\n');
  });

  test('--lines must be a whole number', async () => {
    const result = await runCli(['logs', '--file', '/dev/null', '--lines', 'many']);
    assert.equal(result.code, 64);
    assert.equal(result.stderr, 'gatehouse logs: --lines must be a whole number\n');
  });
});
