// Runs the real `gatehouse` CLI as a child process, the way an operator does, against a config and secrets of its
// own. DATABASE_URL is cleared unless a test passes one, so only --database-url or the config choose the database.
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import path from 'node:path';
import { after } from 'node:test';
import { fileURLToPath } from 'node:url';
import { parseCommandLine } from '../../src/cli/program.ts';
import { generateSecretFiles } from '../../src/crypto/secret-files.ts';
import { scratchDir } from './config.ts';

export const MAIN = fileURLToPath(new URL('../../src/main.ts', import.meta.url));
/** What `npm start` and `npm run gatehouse` run: the launcher with its compile cache and start options. */
export const LAUNCHER = fileURLToPath(new URL('../../src/gatehouse.mjs', import.meta.url));

export interface CliResult {
  code: number | null;
  stdout: string;
  stderr: string;
}

export function runCli(
  args: string[],
  options: { env?: NodeJS.ProcessEnv; cwd?: string; execArgv?: string[] } = {},
): Promise<CliResult> {
  const env: NodeJS.ProcessEnv = { ...process.env, DATABASE_URL: '', ...options.env };
  if (!options.env?.GATEHOUSE_CONFIG) delete env.GATEHOUSE_CONFIG;
  const child = spawn(process.execPath, [...(options.execArgv ?? []), MAIN, ...args], {
    env,
    cwd: options.cwd,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (chunk) => {
    stdout += chunk;
  });
  child.stderr.on('data', (chunk) => {
    stderr += chunk;
  });
  return new Promise((resolve) => child.on('close', (code) => resolve({ code, stdout, stderr })));
}

/** Writes gatehouse.toml + secrets/ in a scratch dir; `auditKey` replaces the generated audit key, `extra` adds TOML
 * lines (whole tables) at the end. */
export function writeCliConfig(options: { auditKey?: Buffer; extra?: string[] } = {}): string {
  const dir = scratchDir('gatehouse-cli-');
  generateSecretFiles(path.join(dir, 'secrets'));
  if (options.auditKey)
    writeFileSync(path.join(dir, 'secrets', 'audit-chain.key'), `${options.auditKey.toString('base64url')}\n`, {
      mode: 0o600,
    });
  const file = path.join(dir, 'gatehouse.toml');
  const lines = [
    '[server]',
    'issuer = "http://localhost:8080"',
    // One process, as the tests that serve from this config expect; test/server-workers.test.ts covers several.
    'workers = 1',
    '[data]',
    `dir = "${path.join(dir, 'data')}"`,
    '[secrets]',
    `dir = "${path.join(dir, 'secrets')}"`,
    '[organization]',
    'id = "acme"',
    'name = "Acme"',
    'owner_subject = "owner@acme.test"',
    ...(options.extra ?? []),
  ];
  writeFileSync(file, `${lines.join('\n')}\n`, { mode: 0o600 });
  return file;
}

export interface ServeProcess {
  /** The listener, from "Gatehouse is listening on URL". */
  url: string;
  output: { stdout: string; stderr: string };
  /** SIGTERM, then the exit code. */
  stop(): Promise<number | null>;
}

/**
 * Starts `gatehouse serve` (or the development instance) as a child process and resolves once it listens; rejects
 * with its output if it exits first. Killed when the test file ends if still running.
 */
export async function startServe(
  args: string[],
  options: { env?: NodeJS.ProcessEnv; cwd?: string; launcher?: boolean } = {},
): Promise<ServeProcess> {
  const env: NodeJS.ProcessEnv = { ...process.env, DATABASE_URL: '', ...options.env };
  if (!options.env?.GATEHOUSE_CONFIG) delete env.GATEHOUSE_CONFIG;
  if (env.DATABASE_URL === '') delete env.DATABASE_URL;
  const child = spawn(process.execPath, [options.launcher ? LAUNCHER : MAIN, 'serve', ...args], {
    env,
    cwd: options.cwd,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  after(() => {
    if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
  });
  const output = { stdout: '', stderr: '' };
  child.stdout.on('data', (chunk) => {
    output.stdout += chunk;
  });
  const exited = new Promise<number | null>((resolve) => child.on('close', (code) => resolve(code)));
  const url = await new Promise<string>((resolve, reject) => {
    child.stderr.on('data', (chunk) => {
      output.stderr += chunk;
      const match = /Gatehouse is listening on (\S+)\n/.exec(output.stderr);
      if (match?.[1]) resolve(match[1]);
    });
    exited.then((code) => reject(new Error(`gatehouse serve exited with ${code} before listening:\n${output.stderr}`)));
  });
  return {
    url,
    output,
    stop() {
      child.kill('SIGTERM');
      return exited;
    },
  };
}

/** A port nothing listens on right now (the system's pick, released at once). */
export async function freePort(): Promise<number> {
  const probe = createServer();
  probe.listen(0, '127.0.0.1');
  await once(probe, 'listening');
  const address = probe.address();
  probe.close();
  await once(probe, 'close');
  if (typeof address !== 'object' || !address) throw new Error('no port');
  return address.port;
}

/**
 * The option values `gatehouse <command...> <args...>` parses to, by the real parser, for a test that calls the
 * command's function itself. Typed `never` so it passes as the values of whichever command it is handed to.
 */
export async function commandValues(command: string[], args: string[]): Promise<never> {
  return (await parseCommandLine([...command, ...args])).values as never;
}
