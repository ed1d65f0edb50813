// The development instance grows through its own configuration file: `npm start` in an empty directory writes
// .gatehouse/gatehouse.toml with what it runs on, `gatehouse config main` run in that directory edits it under the
// production rules, and after a restart the same instance (same keys, same database, same owner) serves a gateway
// route to an upstream. Its terminal shows the banner only; the JSON log is in .gatehouse/log, read by
// `gatehouse logs`.
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { existsSync, readFileSync, rmSync, statSync } from 'node:fs';
import path from 'node:path';
import { after, describe, test } from 'node:test';
import { parse } from 'smol-toml';
import { ConfigError } from '../src/config/errors.ts';
import { parseConfig } from '../src/config/load.ts';
import { freePort, runCli, startServe } from './helpers/cli.ts';
import { scratchDir } from './helpers/config.ts';
import { until } from './helpers/node-http.ts';
import { startUpstream } from './helpers/upstream.ts';

const cwd = scratchDir();
const file = path.join(cwd, '.gatehouse/gatehouse.toml');
const logFile = path.join(cwd, '.gatehouse/log');
// Run as root under a directory the postgres user cannot enter, the cluster lives under /var/tmp instead.
const fallbackCluster = `/var/tmp/gatehouse-embedded-${createHash('sha256').update(path.join(cwd, '.gatehouse')).digest('hex').slice(0, 16)}`;
after(() => rmSync(fallbackCluster, { recursive: true, force: true }));
const port = await freePort();
const origin = `http://localhost:${port}`;
/** As `npm start` runs it, in another port; GATEHOUSE_LOG cleared in case the shell running the tests set it. */
const start = (env: NodeJS.ProcessEnv = {}) =>
  startServe([], { cwd, launcher: true, env: { GATEHOUSE_LISTEN: `127.0.0.1:${port}`, GATEHOUSE_LOG: '', ...env } });
/** A command typed in another shell in the same directory. */
const gatehouse = (...args: string[]) => runCli(args, { cwd, env: { GATEHOUSE_LOG: '' } });

/** TOML as plain objects (smol-toml's tables have no prototype), to compare with literals. */
const tomlOf = (text: string) => JSON.parse(JSON.stringify(parse(text)));
const logLines = () =>
  readFileSync(logFile, 'utf8')
    .split('\n')
    .filter((line) => line !== '');

async function signingKids(): Promise<string[]> {
  const response = await fetch(`${origin}/.well-known/jwks.json`);
  return ((await response.json()) as { keys: { kid: string }[] }).keys.map((key) => key.kid);
}

let instance = await start();
const firstKids = await signingKids();

describe('the development instance and its .gatehouse/gatehouse.toml', () => {
  test('the first start writes the file (0600, in a 0700 directory) with the values it runs on, valid as a production file', () => {
    assert.equal(statSync(file).mode & 0o777, 0o600);
    assert.equal(statSync(path.dirname(file)).mode & 0o777, 0o700);
    const text = readFileSync(file, 'utf8');
    // GATEHOUSE_LISTEN overrides this one start; the file keeps the default, and no issuer: it follows the listener.
    assert.deepEqual(tomlOf(text), {
      server: { listen: '127.0.0.1:8080', workers: 1 },
      database: { url: '' },
      data: { dir: '.' },
      secrets: { dir: 'secrets' },
      organization: { id: 'dev', name: 'Development', owner_subject: 'owner@localhost' },
      self_service: { enabled: true },
      delivery: { kind: 'dev_mailbox' },
    });
    const asProduction = parseConfig(text, file, { baseDir: path.dirname(file), development: false, env: {} });
    assert.equal(asProduction.config.secrets.dir, path.join(cwd, '.gatehouse/secrets'));
    assert.match(instance.output.stderr, /\n {2}config: {2}\.gatehouse\/gatehouse\.toml \(written now\): /);
  });

  test('the terminal shows the banner and no JSON; the JSON log, every /health/ready poll included, is in .gatehouse/log', async () => {
    const ready = await fetch(`${origin}/health/ready`);
    assert.equal(ready.status, 200);
    const requestId = ready.headers.get('x-request-id');
    assert.ok(requestId);
    const polled = await until('the poll in .gatehouse/log', async () =>
      logLines()
        .map((line) => JSON.parse(line) as { reqId?: string; path?: string; msg: string })
        .find((line) => line.msg === 'request' && line.reqId === requestId),
    );
    assert.equal(polled.path, '/health/ready');
    assert.ok(logLines().some((line) => JSON.parse(line).msg === 'listening'));
    assert.equal(statSync(logFile).mode & 0o777, 0o600);

    assert.equal(instance.output.stdout, '');
    const terminal = instance.output.stderr.split('\n');
    assert.deepEqual(
      terminal.filter((line) => line.trimStart().startsWith('{')),
      [],
    );
    assert.equal(terminal[0], `Gatehouse is listening on http://127.0.0.1:${port}`);
    assert.ok(
      terminal.includes('  log:     .gatehouse/log (`npm run gatehouse -- logs`; GATEHOUSE_LOG=stdout shows it here)'),
      instance.output.stderr,
    );
  });

  test('gatehouse logs run in that directory prints the last lines of .gatehouse/log', async () => {
    const result = await gatehouse('logs', '--lines', '3');
    assert.equal(result.stderr, '');
    assert.equal(result.code, 0);
    const lines = result.stdout.split('\n').slice(0, -1);
    assert.equal(lines.length, 3);
    // The log grows while the command runs (the instance's own lines): the three printed are consecutive lines of it.
    const written = logLines();
    const at = written.indexOf(lines[0] as string);
    assert.ok(at >= 0, result.stdout);
    assert.deepEqual(lines, written.slice(at, at + 3));
  });

  test('config main refuses an invalid edit with the message a production file gets, and leaves the file as it was', async () => {
    const before = readFileSync(file, 'utf8');
    const result = await gatehouse('config', 'main', '--set', 'server.listen=everywhere');
    assert.equal(result.code, 78);
    assert.equal(result.stdout, '');
    let production: ConfigError | null = null;
    try {
      parseConfig('[server]\nlisten = "everywhere"\n', file, { baseDir: cwd, development: false, env: {} });
    } catch (error) {
      production = error as ConfigError;
    }
    assert.ok(production instanceof ConfigError);
    assert.equal(result.stderr, `gatehouse config: ${production.message}\n`);
    assert.equal(
      result.stderr,
      `gatehouse config: Invalid configuration in ${file}:\n  server.listen: must be host:port, e.g. 127.0.0.1:8080 or [::1]:8080\n`,
    );
    assert.equal(readFileSync(file, 'utf8'), before);
  });

  test('a gateway added through config main serves after a restart, on the same instance', async () => {
    const upstream = await startUpstream();
    after(() => upstream.close());
    assert.equal((await fetch(`${origin}/app/hello`)).status, 404, 'no gateway before the edit');

    const result = await gatehouse(
      'config',
      'main',
      '--set',
      'gateway.enabled=true',
      '--set',
      'gateway.route_prefix=/app',
      '--set',
      `gateway.upstream_port=${upstream.port}`,
    );
    assert.equal(result.code, 0, result.stderr);
    assert.match(result.stdout, /^Wrote .*\.gatehouse\/gatehouse\.toml \(previous configuration saved as .*\)\.\n/);
    assert.match(
      result.stdout,
      /\nRestart the service to use the new settings: stop the development instance \(Ctrl-C where `npm start` runs\) and start it again\n$/,
    );
    assert.deepEqual(tomlOf(readFileSync(file, 'utf8')).gateway, {
      enabled: true,
      route_prefix: '/app',
      upstream_port: upstream.port,
    });
    // The file's comments survive the edit.
    assert.match(readFileSync(file, 'utf8'), /^# Configuration of the development instance/);

    assert.equal(await instance.stop(), 0);
    // GATEHOUSE_LOG=stdout: this start prints its JSON log on the terminal, as before the log file.
    instance = await start({ GATEHOUSE_LOG: 'stdout' });
    assert.doesNotMatch(instance.output.stderr, /\(written now\)/);
    const answer = await fetch(`${origin}/app/hello?x=1`);
    assert.equal(answer.status, 200);
    assert.equal(((await answer.json()) as { url: string }).url, '/app/hello?x=1');
    assert.equal(upstream.received.at(-1)?.url, '/app/hello?x=1');
    // The same instance: its signing key and secrets were kept, not made anew.
    assert.deepEqual(await signingKids(), firstKids);
    assert.match(instance.output.stdout, /"msg":"listening"/);
    assert.equal(await instance.stop(), 0);
  });

  test('an unknown GATEHOUSE_LOG value is refused in one line', async () => {
    const other = scratchDir();
    const result = await runCli(['serve'], {
      cwd: other,
      env: { GATEHOUSE_LOG: 'file', GATEHOUSE_LISTEN: '127.0.0.1:0' },
    });
    assert.equal(result.code, 64);
    assert.equal(
      result.stderr,
      'gatehouse serve: GATEHOUSE_LOG=file: the one value is "stdout" (the JSON log on the terminal)\n',
    );
    assert.equal(existsSync(path.join(other, '.gatehouse')), false, 'refused before anything was written');
  });
});
