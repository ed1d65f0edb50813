// `./src/gatehouse.mjs <command>` and `npx gatehouse` where the first `node` on PATH is the system's, older than the
// Node 24 the project pins: the launcher re-runs itself on the pinned Node with the same arguments, stdio, exit
// status and signals, or says in one line what to run when no pinned Node is installed.
import assert from 'node:assert/strict';
import { execFileSync, spawn } from 'node:child_process';
import { copyFileSync, mkdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { after, before, describe, test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { writeCliConfig } from '../test/helpers/cli.ts';
import { scratchDir } from '../test/helpers/config.ts';
import { createTestDatabase } from '../test/helpers/database.ts';

const LAUNCHER = fileURLToPath(new URL('./gatehouse.mjs', import.meta.url));
const ROOT = path.dirname(path.dirname(LAUNCHER));
const SYSTEM_NODE = '/usr/bin/node';
/** Only the system's directories: the shebang's `env node` then finds the system Node, not the pinned one. */
const SYSTEM_PATH = '/usr/local/bin:/usr/bin:/bin';

function systemEnv(extra: NodeJS.ProcessEnv = {}): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = { ...process.env, PATH: SYSTEM_PATH, DATABASE_URL: '', ...extra };
  delete env.GATEHOUSE_CONFIG;
  delete env.NODE_OPTIONS;
  return env;
}

interface Run {
  code: number | null;
  signal: NodeJS.Signals | null;
  stdout: string;
  stderr: string;
}

function run(
  command: string,
  args: string[],
  options: { env?: NodeJS.ProcessEnv; cwd?: string; input?: string } = {},
): Promise<Run> {
  const child = spawn(command, args, { env: options.env ?? systemEnv(), cwd: options.cwd ?? ROOT });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (chunk) => {
    stdout += chunk;
  });
  child.stderr.on('data', (chunk) => {
    stderr += chunk;
  });
  child.stdin.end(options.input ?? '');
  return new Promise((resolve) => child.on('close', (code, signal) => resolve({ code, signal, stdout, stderr })));
}

describe('./src/gatehouse.mjs on a system Node older than 24', () => {
  before(() => {
    const version = execFileSync(SYSTEM_NODE, ['--version']).toString().trim();
    assert.ok(
      Number(version.slice(1).split('.')[0]) < 24,
      `these tests need an older system Node at ${SYSTEM_NODE}, found ${version}`,
    );
    assert.equal(execFileSync('sh', ['-c', 'command -v node'], { env: systemEnv() }).toString().trim(), SYSTEM_NODE);
  });

  test('gatehouse help re-runs on the pinned Node: the usage on stdout, nothing on stderr, exit 0', async () => {
    const result = await run(LAUNCHER, ['help']);
    assert.equal(result.stderr, '');
    assert.equal(result.code, 0);
    assert.match(result.stdout, /^Usage: gatehouse <command> \[options\]\n\n[\s\S]*\nCommands:\n {2}serve /);
  });

  test('the pinned Node gets the arguments and its exit status comes back: an unknown command exits 64', async () => {
    const result = await run(LAUNCHER, ['frobnicate', '--config', 'x']);
    assert.equal(result.code, 64);
    assert.equal(result.stdout, '');
    assert.match(result.stderr, /^gatehouse: unknown command 'frobnicate'\n\nUsage: gatehouse/);
  });

  test('the re-run process reads the same stdin: config delivery --smtp-password-stdin stores what was piped', async () => {
    const file = writeCliConfig();
    const result = await run(
      LAUNCHER,
      [
        ...['config', 'delivery', '--config', file, '--kind', 'smtp', '--from', 'Acme <id@acme.test>'],
        ...['--smtp-host', 'smtp.acme.test', '--smtp-username', 'acme', '--smtp-password-stdin'],
      ],
      { input: 'piped-through-the-launcher\n' },
    );
    assert.equal(result.code, 0, result.stderr);
    assert.equal(
      readFileSync(path.join(path.dirname(file), 'secrets', 'smtp-password'), 'utf8'),
      'piped-through-the-launcher',
    );
  });

  test('without a pinned Node it says in one line what to run and exits 69, running nothing', async () => {
    const copy = scratchDir('gatehouse-launcher-');
    mkdirSync(path.join(copy, 'src'));
    copyFileSync(LAUNCHER, path.join(copy, 'src', 'gatehouse.mjs'));
    const result = await run(path.join(copy, 'src', 'gatehouse.mjs'), ['help']);
    assert.equal(result.code, 69);
    assert.equal(result.stdout, '');
    const version = execFileSync(SYSTEM_NODE, ['--version']).toString().trim();
    assert.equal(
      result.stderr,
      `gatehouse: needs Node.js 24 or later, but ${SYSTEM_NODE} is ${version} and ${copy}/node_modules has no pinned Node: run \`npm ci\` in ${copy} (it installs Node 24), or put Node.js 24 first on PATH\n`,
    );
  });

  test('npx gatehouse help, with npm itself on the older Node, prints the usage and exits 0', async () => {
    const result = await run('/usr/bin/npx', ['--no-install', 'gatehouse', 'help']);
    assert.equal(result.code, 0, result.stderr);
    assert.match(result.stdout, /^Usage: gatehouse <command> \[options\]\n\n[\s\S]*\nCommands:\n {2}serve /);
  });
});

describe('gatehouse serve through the launcher on an older system Node', () => {
  /** Starts `serve` through the shebang; resolves with the child once it listens. */
  async function startServe(options: { detached: boolean }) {
    const { url } = await createTestDatabase();
    const env = systemEnv({ DATABASE_URL: url, GATEHOUSE_LISTEN: '127.0.0.1:0' });
    const child = spawn(LAUNCHER, ['serve', '--config', writeCliConfig()], {
      env,
      cwd: ROOT,
      detached: options.detached,
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    after(() => {
      if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
    });
    const output = { stdout: '', stderr: '' };
    child.stdout.on('data', (chunk) => {
      output.stdout += chunk;
    });
    const closed = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) =>
      child.on('close', (code, signal) => resolve({ code, signal })),
    );
    await new Promise<void>((resolve, reject) => {
      child.stderr.on('data', (chunk) => {
        output.stderr += chunk;
        if (output.stderr.includes('Gatehouse is listening')) resolve();
      });
      closed.then(() => reject(new Error(`exited before listening: ${output.stderr}`)));
    });
    return { child, output, closed };
  }

  test('SIGTERM to the launcher reaches the server, which stops gracefully; the launcher exits 0', async () => {
    const { child, output, closed } = await startServe({ detached: false });
    assert.ok(child.pid);
    child.kill('SIGTERM');
    assert.deepEqual(await closed, { code: 0, signal: null }, `${output.stderr}\n${output.stdout}`);
    assert.equal(output.stdout.match(/"msg":"stopping: new connections refused/g)?.length, 1);
    assert.match(output.stdout, /"msg":"stopped"/);
  });

  test('Ctrl-C (SIGINT to the whole process group) stops the server once, gracefully, and exits 0', async () => {
    const { child, output, closed } = await startServe({ detached: true });
    // A terminal sends SIGINT to every process of the foreground group: the launcher passes it on as well, so the
    // server receives it twice and must still finish its graceful stop.
    process.kill(-(child.pid as number), 'SIGINT');
    assert.deepEqual(await closed, { code: 0, signal: null }, `${output.stderr}\n${output.stdout}`);
    assert.equal(output.stdout.match(/"msg":"stopping: new connections refused/g)?.length, 1);
    assert.match(output.stdout, /"msg":"stopped"/);
  });
});
