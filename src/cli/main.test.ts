// `gatehouse` as an operator runs it: exit codes and messages of src/main.ts (64 usage, 78 configuration).
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { describe, test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { runCli, writeCliConfig } from '../../test/helpers/cli.ts';
import { scratchDir } from '../../test/helpers/config.ts';
import { VERSION } from '../version.ts';
import type { CommandSpec } from './args.ts';
import { commands } from './commands.ts';
import { buildProgram } from './program.ts';

describe('gatehouse serve --config with a bad file', () => {
  test('exits 78 (EX_CONFIG) naming the file and every bad key, before opening anything', async () => {
    const file = path.join(scratchDir(), 'bad.toml');
    const lines = [
      '[server]',
      'issuer = "http://localhost:8080"',
      'listen = 8080',
      'colour = "blue"',
      '[organization]',
      'id = "acme"',
      'name = "Acme"',
      'owner_subject = "owner@acme.test"',
    ];
    writeFileSync(file, `${lines.join('\n')}\n`, { mode: 0o600 });
    const result = await runCli(['serve', '--config', file]);
    assert.equal(result.code, 78);
    assert.equal(
      result.stderr,
      [
        `gatehouse serve: Invalid configuration in ${file}:`,
        '  server.colour: unknown key',
        '  server.listen: must be a string',
        '',
      ].join('\n'),
    );
    assert.equal(result.stdout, '');
  });

  test('exits 78 naming a config file that does not exist', async () => {
    const file = path.join(scratchDir(), 'missing.toml');
    const result = await runCli(['serve', '--config', file]);
    assert.equal(result.code, 78);
    assert.equal(result.stderr, `gatehouse serve: Invalid configuration in ${file}:\n  (file): file not found\n`);
  });
});

describe('gatehouse with an unknown command', () => {
  test('exits 64 (EX_USAGE) with the usage text on stderr', async () => {
    const result = await runCli(['frobnicate']);
    assert.equal(result.code, 64);
    assert.equal(result.stdout, '');
    assert.match(result.stderr, /^gatehouse: unknown command 'frobnicate'\n\nUsage: gatehouse <command>/);
    for (const name of ['serve', 'setup', 'migrate', 'owner', 'status', 'help'])
      assert.match(
        result.stderr,
        new RegExp(`\\n {2}${name}( \\[options\\]| \\[command\\])? +\\S`),
        `usage lists ${name}`,
      );
  });

  test('gatehouse help, gatehouse --help and gatehouse alone print the same usage on stdout and exit 0', async () => {
    const outputs = [];
    for (const args of [['help'], ['--help'], []]) {
      const result = await runCli(args);
      assert.equal(result.code, 0, args.join(' '));
      assert.equal(result.stderr, '');
      assert.match(result.stdout, /^Usage: gatehouse <command> \[options\]\n\n[\s\S]*\nCommands:\n {2}serve /);
      outputs.push(result.stdout);
    }
    assert.equal(outputs[1], outputs[0]);
    assert.equal(outputs[2], outputs[0]);
  });

  test('an unknown option names itself and the help to read, exit 64', async () => {
    const result = await runCli(['keys', 'list', '--colour']);
    assert.equal(result.code, 64);
    assert.equal(
      result.stderr,
      "gatehouse keys list: unknown option '--colour'\n(`gatehouse keys list --help` lists its options)\n",
    );
  });

  test('a group run without its subcommand shows its commands on stderr, exit 64', async () => {
    const result = await runCli(['keys']);
    assert.equal(result.code, 64);
    assert.equal(result.stdout, '');
    assert.match(
      result.stderr,
      /^Usage: gatehouse keys \[options\] \[command\]\n[\s\S]*\n {2}rotate [\s\S]*\n {2}list /,
    );
  });
});

describe('gatehouse --help and --version', () => {
  test('--version prints the package version', async () => {
    const result = await runCli(['--version']);
    assert.equal(result.code, 0);
    assert.equal(result.stdout, `${VERSION}\n`);
  });

  test('every command and subcommand has help built from its declaration', () => {
    // In-process, from the same commander program `gatehouse <command> --help` prints (one child per command would
    // take minutes); the real --help is run for a command and a subcommand below.
    const program = buildProgram({ code: 0 });
    const paths: string[][] = [];
    const walk = (specs: CommandSpec[], prefix: string[]) => {
      for (const spec of specs) {
        paths.push([...prefix, spec.name]);
        walk(spec.subcommands ?? [], [...prefix, spec.name]);
      }
    };
    walk(commands, []);
    assert.ok(paths.length >= 20, `${paths.length} commands`);
    for (const names of paths) {
      let cmd = program;
      for (const name of names) {
        const next = cmd.commands.find((c) => c.name() === name);
        assert.ok(next, names.join(' '));
        cmd = next;
      }
      const help = cmd.helpInformation();
      assert.match(help, new RegExp(`^Usage: gatehouse ${names.join(' ')}( |\\n)`), names.join(' '));
      assert.match(help, /-h, --help +show help/);
    }
  });

  test('gatehouse <command> --help and <command> <subcommand> --help print the usage on stdout, exit 0', async () => {
    for (const args of [['status'], ['config', 'main']]) {
      const result = await runCli([...args, '--help']);
      assert.equal(result.code, 0);
      assert.equal(result.stderr, '');
      assert.match(result.stdout, new RegExp(`^Usage: gatehouse ${args.join(' ')} \\[options\\]\\n`));
    }
  });

  test('--help of a command lists its options with what they take', async () => {
    const result = await runCli(['config', 'delivery', '--help']);
    assert.match(result.stdout, /\n {2}--smtp-password-file <FILE> +read the relay password from FILE\n/);
    assert.match(result.stdout, /\nExamples:\n {2}gatehouse config delivery --kind smtp /);
  });

  test('backup, users invite and the other operations commands list their options in --help', async () => {
    const backup = await runCli(['backup', '--help']);
    assert.equal(backup.code, 0);
    assert.match(backup.stdout, /^Usage: gatehouse backup \[options\] <path>\n/);
    assert.match(backup.stdout, /\n {2}--config <FILE> +configuration file /);
    assert.match(backup.stdout, /\n {2}--database-url <URL> +postgres:\/\/ URL to use instead of database\.url\n/);
    const invite = await runCli(['users', 'invite', '--help']);
    assert.equal(invite.code, 0);
    assert.match(invite.stdout, /^Usage: gatehouse users invite \[options\] <email>\n/);
    assert.match(invite.stdout, /\n {2}--name <NAME> +display name\n/);
    assert.match(invite.stdout, /\n {2}--role <ROLE> +a role in the organization \(repeatable; default member\)\n/);
    assert.match(invite.stdout, /\n {2}--json +print the result as one JSON document on stdout\n/);
    // In-process for the rest: each names an option only it takes.
    const program = buildProgram({ code: 0 });
    const helpOf = (...names: string[]) => {
      let cmd = program;
      for (const name of names) cmd = cmd.commands.find((c) => c.name() === name) ?? assert.fail(names.join(' '));
      return cmd.helpInformation();
    };
    assert.match(helpOf('restore'), /\n {2}--force +restore a backup whose schema/);
    assert.match(helpOf('users', 'list'), /\n {2}--limit <N> +at most N identities, newest first \(default: "100"\)\n/);
    assert.match(helpOf('users', 'suspend'), /^Usage: gatehouse users suspend \[options\] <user>\n/);
    assert.match(helpOf('users', 'sign-out'), /^Usage: gatehouse users sign-out \[options\] <user>\n/);
    assert.match(helpOf('update'), /\n {2}--no-backup +skip the backup/);
    assert.match(helpOf('upgrade'), /\n {2}--channel <CHANNEL> +[\s\S]*\(choices: "stable", "rc"\)\n/);
    assert.match(helpOf('export'), /\n {2}-o, --output <FILE> +write the document to FILE/);
    assert.match(helpOf('import'), /\n {2}--dry-run +say what would be created, change nothing\n/);
  });

  test('an unknown option of backup or users invite is a usage error, exit 64', async () => {
    const backup = await runCli(['backup', 'x.tar.gz', '--colour']);
    assert.equal(backup.code, 64);
    assert.equal(
      backup.stderr,
      "gatehouse backup: unknown option '--colour'\n(`gatehouse backup --help` lists its options)\n",
    );
    const invite = await runCli(['users', 'invite', 'a@example.test', '--rol', 'x']);
    assert.equal(invite.code, 64);
    assert.match(invite.stderr, /^gatehouse users invite: unknown option '--rol'\n/);
  });

  test('help output is plain text when not on a terminal, even with colours forced off or on by the caller', async () => {
    const result = await runCli(['--help'], { env: { NO_COLOR: '1' } });
    assert.ok(!result.stdout.includes('\x1b['), 'no escape sequences');
    const forced = await runCli(['--help'], { env: { FORCE_COLOR: '1', NO_COLOR: '' } });
    assert.ok(forced.stdout.startsWith('\x1b[1mUsage:'), 'FORCE_COLOR styles the titles');
  });
});

describe('command modules load only when their command runs', () => {
  // Records every src/cli module the process resolves (Node's module.registerHooks, in the child itself).
  const RECORDER = [
    "import { registerHooks } from 'node:module';",
    'const seen = new Set();',
    'registerHooks({ resolve(specifier, context, next) { const r = next(specifier, context); if (r.url.includes("/src/cli/")) seen.add(r.url.replace(/^.*\\/src\\/cli\\//, "")); return r; } });',
    "process.on('exit', () => process.stderr.write('loaded: ' + [...seen].sort().join(' ') + '\\n'));",
  ].join('\n');
  const loaded = async (args: string[]) => {
    const result = await runCli(args, {
      execArgv: ['--import', `data:text/javascript,${encodeURIComponent(RECORDER)}`],
    });
    const line = /loaded: (.*)\n$/.exec(result.stderr);
    assert.ok(line, result.stderr);
    return new Set((line[1] ?? '').split(' '));
  };

  test('--help loads no command module', async () => {
    const modules = await loaded(['--help']);
    assert.ok(modules.has('commands.ts'));
    for (const name of ['serve.ts', 'setup.ts', 'doctor.ts', 'status.ts', 'config.ts'])
      assert.ok(!modules.has(name), name);
  });

  test('info loads info.ts and not setup, doctor or serve', async () => {
    const modules = await loaded(['info', '--config', writeCliConfig()]);
    assert.ok(modules.has('info.ts'), [...modules].join(' '));
    for (const name of ['serve.ts', 'setup.ts', 'doctor.ts', 'status.ts']) assert.ok(!modules.has(name), name);
  });
});

describe('the installed gatehouse command (src/gatehouse.mjs, run through its shebang)', () => {
  const launcher = fileURLToPath(new URL('../gatehouse.mjs', import.meta.url));

  test('gatehouse help, run through the shebang with its start options, prints the usage and exits 0', async () => {
    // The shebang finds `node` on PATH, as for an operator; put this Node first.
    const env = { ...process.env, PATH: `${path.dirname(process.execPath)}:${process.env.PATH ?? ''}` };
    const child = spawn(launcher, ['help'], { env, stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk) => {
      stdout += chunk;
    });
    child.stderr.on('data', (chunk) => {
      stderr += chunk;
    });
    const code = await new Promise((resolve) => child.on('close', resolve));
    assert.equal(stderr, '');
    assert.equal(code, 0);
    assert.match(stdout, /^Usage: gatehouse <command> \[options\]\n\n[\s\S]*\nCommands:\n {2}serve /);
  });

  test('npm start and npm run gatehouse run the launcher itself, so its shebang is the one place for start options', () => {
    const scripts = JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8')).scripts;
    assert.equal(scripts.start, './src/gatehouse.mjs serve');
    assert.equal(scripts.gatehouse, './src/gatehouse.mjs');
    assert.match(
      readFileSync(launcher, 'utf8'),
      /^#!\/usr\/bin\/env -S MALLOC_ARENA_MAX=2 node --max-semi-space-size=2\n/,
    );
  });
});
