// Password hashing: argon2id through node:crypto (RFC 9106), with the password pepper as argon2's secret input K,
// so a stolen database alone cannot be attacked offline. Stored as a PHC string that names its parameters, so a
// config change is noticed at the next successful login and the password is rehashed then.
import { argon2, randomBytes } from 'node:crypto';
import { constantTimeEqual } from './primitives.ts';

export interface Argon2Parameters {
  memoryKib: number;
  passes: number;
  parallelism: number;
}

const TAG_LENGTH = 32;
const SALT_LENGTH = 16;
const PHC = /^\$argon2id\$v=19\$m=(\d{1,7}),t=(\d{1,2}),p=(\d{1,2})\$([A-Za-z0-9+/]+)\$([A-Za-z0-9+/]+)$/;

function derive(password: string, salt: Buffer, pepper: Buffer, p: Argon2Parameters, tagLength: number) {
  return new Promise<Buffer>((resolve, reject) => {
    argon2(
      'argon2id',
      {
        message: Buffer.from(password, 'utf8'),
        nonce: salt,
        secret: pepper,
        memory: p.memoryKib,
        passes: p.passes,
        parallelism: p.parallelism,
        tagLength,
      },
      (error, tag) => (error ? reject(error) : resolve(tag)),
    );
  });
}

// PHC strings use unpadded standard base64.
const b64 = (buffer: Buffer) => buffer.toString('base64').replace(/=+$/, '');

export async function hashPassword(password: string, pepper: Buffer, p: Argon2Parameters): Promise<string> {
  const salt = randomBytes(SALT_LENGTH);
  const tag = await derive(password, salt, pepper, p, TAG_LENGTH);
  return `$argon2id$v=19$m=${p.memoryKib},t=${p.passes},p=${p.parallelism}$${b64(salt)}$${b64(tag)}`;
}

export interface PasswordCheck {
  ok: boolean;
  /** The stored hash used other parameters than the configured ones: store a fresh hash. */
  needsRehash: boolean;
}

export async function verifyPassword(
  password: string,
  phc: string,
  pepper: Buffer,
  current: Argon2Parameters,
): Promise<PasswordCheck> {
  const match = PHC.exec(phc);
  if (!match) throw new Error('Stored password hash is not an argon2id PHC string');
  const stored = { memoryKib: Number(match[1]), passes: Number(match[2]), parallelism: Number(match[3]) };
  const expected = Buffer.from(match[5] as string, 'base64');
  const tag = await derive(password, Buffer.from(match[4] as string, 'base64'), pepper, stored, expected.length);
  const needsRehash =
    stored.memoryKib !== current.memoryKib ||
    stored.passes !== current.passes ||
    stored.parallelism !== current.parallelism;
  return { ok: constantTimeEqual(tag, expected), needsRehash };
}

/** The configured parameters, from the `[passwords]` config section. */
export function argon2Parameters(section: { memory_kib: number; passes: number; parallelism: number }) {
  return { memoryKib: section.memory_kib, passes: section.passes, parallelism: section.parallelism };
}
