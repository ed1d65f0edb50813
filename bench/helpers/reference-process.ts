// Child process entry for the raw references (started by reference.ts): it does nothing but the measurement it is
// asked for, so neither the load generator nor the server under test shares its CPU time or event loop.
import { createPrivateKey } from 'node:crypto';
import { SignJWT } from 'jose';
import { type Argon2Parameters, verifyPassword } from '../../src/crypto/password-hash.ts';
import { operationsPerSecond } from '../lib.ts';

export type ReferenceRequest =
  | { kind: 'rs256'; pem: string; durationMs: number }
  | {
      kind: 'argon2id';
      password: string;
      phc: string;
      pepper: string;
      params: Argon2Parameters;
      concurrency: number;
      durationMs: number;
    };

async function measure(request: ReferenceRequest): Promise<number> {
  if (request.kind === 'rs256') {
    // RS256 JWTs with jose and a parsed key, concurrency 32: what one Node process can sign.
    const key = createPrivateKey(request.pem);
    const claims = { sub: 'cli_x', client_id: 'cli_x', scope: 'read', aud: 'https://api.example.test/', jti: 'j' };
    return operationsPerSecond(
      () =>
        new SignJWT(claims)
          .setProtectedHeader({ alg: 'RS256', typ: 'at+jwt', kid: 'k' })
          .setIssuer('http://localhost:8080')
          .setIssuedAt()
          .setExpirationTime('10m')
          .sign(key),
      32,
      request.durationMs,
    );
  }
  const pepper = Buffer.from(request.pepper, 'base64');
  return operationsPerSecond(
    async () => {
      const check = await verifyPassword(request.password, request.phc, pepper, request.params);
      if (!check.ok) throw new Error('reference argon2id verification failed');
    },
    request.concurrency,
    request.durationMs,
  );
}

process.on('message', (message: ReferenceRequest) => {
  // Also the CPU the measurement took in this process (all threads: argon2id and signing run on the thread pool), per
  // operation: a figure a busy machine slows down but does not change.
  const cpu = process.cpuUsage();
  const started = performance.now();
  measure(message).then(
    (perSecond) => {
      const { user, system } = process.cpuUsage(cpu);
      const operations = (perSecond * (performance.now() - started)) / 1000;
      process.send?.({ perSecond, cpuMicrosPerOperation: (user + system) / operations });
    },
    (error: Error) => process.send?.({ error: error.message }),
  );
});
process.send?.({ ready: true });
