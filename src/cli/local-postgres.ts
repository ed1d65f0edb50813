// `gatehouse setup --database local`: PostgreSQL from the distribution's own packages (apt-get install postgresql,
// as Debian and Ubuntu ship it), started and enabled by systemd, with a role and a database for Gatehouse. The role
// and database are created through psql as the `postgres` operating-system user (peer authentication, the packages'
// default), with the SQL on stdin so the password never shows in a process list. Safe to rerun: the package step is
// apt's own no-op, the role and database are created only when missing, and the role gets a fresh password that the
// returned URL carries.
import { spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { UsageError } from './args.ts';
import { UnavailableError } from './failures.ts';

export interface LocalDatabase {
  url: string;
  /** What was done, one line each, for the setup report. */
  steps: string[];
}

const NAME = /^[a-z_][a-z0-9_]{0,62}$/;

function run(
  command: string,
  args: string[],
  options: { input?: string; env?: NodeJS.ProcessEnv } = {},
): Promise<{ code: number; output: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(command, args, { env: { ...process.env, ...options.env }, stdio: ['pipe', 'pipe', 'pipe'] });
    let output = '';
    child.stdout.on('data', (chunk) => {
      output += chunk;
    });
    child.stderr.on('data', (chunk) => {
      output += chunk;
    });
    child.on('error', (error: NodeJS.ErrnoException) =>
      reject(
        error.code === 'ENOENT' ? new UnavailableError(`${command} was not found: is this Debian or Ubuntu?`) : error,
      ),
    );
    child.on('close', (code) => resolve({ code: code ?? 1, output }));
    // A command that exits without reading its input (a failing apt-get) must not fail the write: its status says.
    child.stdin.on('error', () => {});
    child.stdin.end(options.input ?? '');
  });
}

async function must(step: string, command: string, args: string[], options: Parameters<typeof run>[2] = {}) {
  const result = await run(command, args, options);
  if (result.code !== 0)
    throw new UnavailableError(
      `${step} failed (${command} exit ${result.code}): ${result.output.trim().split('\n').slice(-3).join(' ')}`,
    );
  return result.output;
}

/** The SQL that creates the role and database when missing and sets the role's password. */
function provisioningSql(name: string, password: string): string {
  return [
    `select format('create role %I login', '${name}') where not exists (select from pg_roles where rolname = '${name}')\\gexec`,
    `alter role "${name}" password '${password}';`,
    `select format('create database %I owner %I', '${name}', '${name}') where not exists (select from pg_database where datname = '${name}')\\gexec`,
    '',
  ].join('\n');
}

export async function provisionLocalPostgres(
  name: string,
  report: (line: string) => void = () => {},
): Promise<LocalDatabase> {
  if (!NAME.test(name)) throw new UsageError('--database-name must be 1-63 characters of a-z, 0-9 and _');
  const steps: string[] = [];
  const step = (line: string) => {
    steps.push(line);
    report(line);
  };
  report("Installing PostgreSQL from the distribution's packages (apt-get install postgresql)...");
  await must('apt-get install postgresql', 'apt-get', ['install', '-y', '--no-install-recommends', 'postgresql'], {
    env: { DEBIAN_FRONTEND: 'noninteractive' },
  });
  step('PostgreSQL installed from the distribution packages (apt-get install postgresql)');
  await must('systemctl enable --now postgresql', 'systemctl', ['enable', '--now', 'postgresql']);
  step('postgresql.service enabled and started');
  // Hex: nothing in it needs quoting in SQL or a URL.
  const password = randomBytes(24).toString('hex');
  await must(
    `creating role and database ${name}`,
    'runuser',
    ['-u', 'postgres', '--', 'psql', '--no-psqlrc', '-v', 'ON_ERROR_STOP=1', '--quiet', '-f', '-'],
    { input: provisioningSql(name, password) },
  );
  step(`Role and database ${name} ready (the role's password was set anew)`);
  return { url: `postgres://${name}:${password}@127.0.0.1:5432/${name}`, steps };
}
