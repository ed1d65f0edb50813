// Runs the real `gatehouse` CLI as a child process, the way an operator does, against a config and secrets of its
// own. DATABASE_URL is cleared unless a test passes one, so only --database-url or the config choose the database.
import { spawn } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { generateSecretFiles } from '../../src/crypto/secret-files.ts';
import { scratchDir } from './config.ts';

export const MAIN = fileURLToPath(new URL('../../src/main.ts', import.meta.url));

export interface CliResult {
  code: number | null;
  stdout: string;
  stderr: string;
}

export function runCli(args: string[], options: { env?: NodeJS.ProcessEnv; cwd?: string } = {}): Promise<CliResult> {
  const env: NodeJS.ProcessEnv = { ...process.env, DATABASE_URL: '', ...options.env };
  if (!options.env?.GATEHOUSE_CONFIG) delete env.GATEHOUSE_CONFIG;
  const child = spawn(process.execPath, [MAIN, ...args], { env, cwd: options.cwd, stdio: ['ignore', 'pipe', 'pipe'] });
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

/** Writes gatehouse.toml + secrets/ in a scratch dir; `auditKey` replaces the generated audit key. */
export function writeCliConfig(options: { auditKey?: Buffer } = {}): string {
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
    '[data]',
    `dir = "${path.join(dir, 'data')}"`,
    '[secrets]',
    `dir = "${path.join(dir, 'secrets')}"`,
    '[organization]',
    'id = "acme"',
    'name = "Acme"',
    'owner_subject = "owner@acme.test"',
  ];
  writeFileSync(file, `${lines.join('\n')}\n`, { mode: 0o600 });
  return file;
}
