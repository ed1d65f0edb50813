// The restricted-permission secret files SPEC.md lists ("Generated secret files"). Setup generates them once and
// never overwrites one; the service refuses to start when any is missing, unreadable, or open to group/others.
import { generateKeyPairSync, randomBytes } from 'node:crypto';
import {
  accessSync,
  chmodSync,
  constants,
  existsSync,
  mkdirSync,
  readFileSync,
  rmSync,
  statSync,
  writeFileSync,
} from 'node:fs';
import path from 'node:path';

interface SecretFileSpec {
  file: string;
  purpose: string;
  generate: () => string;
}

const random256 = () => `${randomBytes(32).toString('base64url')}\n`;

export const SECRET_FILES = {
  signing: { file: 'signing.key', purpose: 'token/master signing', generate: random256 },
  totp: { file: 'totp-encryption.key', purpose: 'TOTP credential encryption', generate: random256 },
  passwordPepper: { file: 'password-pepper.key', purpose: 'password pepper', generate: random256 },
  recoveryPepper: { file: 'recovery-code-pepper.key', purpose: 'recovery-code pepper', generate: random256 },
  audit: { file: 'audit-chain.key', purpose: 'audit-chain integrity', generate: random256 },
  clientSecret: { file: 'client-secret.key', purpose: 'OAuth client-secret protection', generate: random256 },
  metrics: { file: 'metrics-bearer.token', purpose: 'metrics bearer authentication', generate: random256 },
  delivery: { file: 'delivery.key', purpose: 'verification-delivery authentication', generate: random256 },
  oidcSigningKey: {
    file: 'oidc-signing-key.pem',
    purpose: 'OIDC RSA signing key',
    generate: () =>
      generateKeyPairSync('rsa', { modulusLength: 2048 })
        .privateKey.export({ type: 'pkcs8', format: 'pem' })
        .toString(),
  },
} as const satisfies Record<string, SecretFileSpec>;

export type SecretName = keyof typeof SECRET_FILES;

/** Key material as loaded: 32-byte keys as Buffers, the RSA key as PEM text. */
export type Secrets = { [K in Exclude<SecretName, 'oidcSigningKey'>]: Buffer } & { oidcSigningKey: string };

export class SecretFileError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'SecretFileError';
  }
}

export interface GenerateResult {
  created: string[];
  kept: string[];
}

/** What an operator reads for the file system errors that stop secret files from being written. */
const WRITE_PROBLEMS: Record<string, string> = {
  ENOSPC: 'the disk is full',
  EDQUOT: 'the disk quota is exhausted',
  EROFS: 'the file system is read-only',
  EACCES: 'permission denied',
  EPERM: 'permission denied',
  ENOTDIR: 'a part of the path is not a directory',
};

/** A file system error while writing, as an operator reads it: "the disk is full (ENOSPC)". */
export function writeProblem(error: unknown): string {
  const code = (error as NodeJS.ErrnoException).code ?? 'unknown error';
  return `${WRITE_PROBLEMS[code] ?? (error as Error).message} (${code})`;
}

/** A file system error while writing `target`, as one line that names the path and what to fix. */
function writeError(target: string, what: string, error: unknown): SecretFileError {
  return new SecretFileError(`Cannot write secret ${what} ${target}: ${writeProblem(error)}`);
}

/**
 * A recursive mkdir reports ENOENT when a parent cannot be created, whatever the reason; the nearest existing
 * ancestor's writability tells the real one (a read-only file system, say).
 */
function mkdirCause(dir: string, error: unknown): unknown {
  if ((error as NodeJS.ErrnoException).code !== 'ENOENT') return error;
  let ancestor = path.dirname(dir);
  while (!existsSync(ancestor) && path.dirname(ancestor) !== ancestor) ancestor = path.dirname(ancestor);
  try {
    accessSync(ancestor, constants.W_OK);
  } catch (cause) {
    return cause;
  }
  return error;
}

/** Creates the directory (0700) and every missing file (0600); an existing file is never touched. */
export function generateSecretFiles(dir: string): GenerateResult {
  try {
    mkdirSync(dir, { recursive: true, mode: 0o700 });
    chmodSync(dir, 0o700);
  } catch (error) {
    throw writeError(dir, 'directory', mkdirCause(dir, error));
  }
  const result: GenerateResult = { created: [], kept: [] };
  for (const spec of Object.values(SECRET_FILES)) {
    const file = path.join(dir, spec.file);
    try {
      // 'wx' fails if the file exists, so two setups racing can never replace each other's secret.
      writeFileSync(file, spec.generate(), { mode: 0o600, flag: 'wx' });
      result.created.push(spec.file);
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST') {
        // A file cut short by a full disk would be read as a broken secret at the next start: remove it.
        try {
          rmSync(file, { force: true });
        } catch {
          // Nothing to remove, or the file system refuses that too: the error below says why.
        }
        throw writeError(file, 'file', error);
      }
      result.kept.push(spec.file);
    }
  }
  return result;
}

function checkMode(target: string, what: string): void {
  let mode: number;
  try {
    mode = statSync(target).mode;
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    throw new SecretFileError(
      code === 'ENOENT'
        ? `Secret ${what} ${target} is missing; run \`gatehouse setup\` to generate it`
        : `Secret ${what} ${target} cannot be read (${code})`,
    );
  }
  if ((mode & 0o077) !== 0)
    throw new SecretFileError(
      `Secret ${what} ${target} is accessible to group or others (mode ${(mode & 0o777).toString(8)}); run chmod ${what === 'directory' ? '700' : '600'} ${target}`,
    );
}

/**
 * A secret file the configuration names (the SMTP relay password): its content, refused like a generated secret
 * file when group or others can read it. `missing` is the message when it does not exist.
 */
export function readConfiguredSecret(file: string, missing: string): string {
  if (!existsSync(file)) throw new SecretFileError(missing);
  checkMode(file, 'file');
  try {
    return readFileSync(file, 'utf8');
  } catch (error) {
    throw new SecretFileError(`Secret file ${file} cannot be read (${(error as NodeJS.ErrnoException).code})`);
  }
}

export function loadSecrets(dir: string): Secrets {
  checkMode(dir, 'directory');
  const loaded: Record<string, Buffer | string> = {};
  for (const [name, spec] of Object.entries(SECRET_FILES)) {
    const file = path.join(dir, spec.file);
    checkMode(file, 'file');
    let content: string;
    try {
      content = readFileSync(file, 'utf8');
    } catch (error) {
      throw new SecretFileError(`Secret file ${file} cannot be read (${(error as NodeJS.ErrnoException).code})`);
    }
    if (name === 'oidcSigningKey') {
      if (!content.includes('PRIVATE KEY')) throw new SecretFileError(`Secret file ${file} is not a PEM private key`);
      loaded[name] = content;
      continue;
    }
    const key = Buffer.from(content.trim(), 'base64url');
    if (key.length < 32)
      throw new SecretFileError(`Secret file ${file} must hold at least 32 random bytes (base64url)`);
    loaded[name] = key;
  }
  return loaded as Secrets;
}
