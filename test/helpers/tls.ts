// TLS test helpers: self-signed certificates (the `selfsigned` package), a server start with a TLS mode, and a TLS
// client that reports which certificate the listener served.
import { X509Certificate } from 'node:crypto';
import { once } from 'node:events';
import { writeFileSync } from 'node:fs';
import { request } from 'node:https';
import path from 'node:path';
import { connect, type PeerCertificate } from 'node:tls';
import { generate } from 'selfsigned';
import { LogCapture } from './app.ts';

export interface SelfSigned {
  cert: string;
  key: string;
  certFile: string;
  keyFile: string;
}

let serial = 0;

/** A self-signed certificate for localhost written to `<name>.pem` and `<name>.key` in dir (key 0600). */
export async function makeSelfSigned(dir: string, name: string, notAfterDays = 90): Promise<SelfSigned> {
  serial += 1;
  const pems = await generate([{ name: 'commonName', value: `localhost ${name} ${serial}` }], {
    keySize: 2048,
    notAfterDate: new Date(Date.now() + notAfterDays * 86_400_000),
    extensions: [
      { name: 'basicConstraints', cA: true },
      { name: 'subjectAltName', altNames: [{ type: 2, value: 'localhost' }] },
    ],
  });
  const certFile = path.join(dir, `${name}.pem`);
  const keyFile = path.join(dir, `${name}.key`);
  writeFileSync(certFile, pems.cert);
  writeFileSync(keyFile, pems.private, { mode: 0o600 });
  return { cert: pems.cert, key: pems.private, certFile, keyFile };
}

/** Connects with TLS to 127.0.0.1:port as `localhost`, verifying against `ca`; resolves the served leaf. */
export async function servedCertificate(port: number, ca: string | string[]): Promise<PeerCertificate> {
  const socket = connect({ host: '127.0.0.1', port, servername: 'localhost', ca });
  try {
    await once(socket, 'secureConnect');
    return socket.getPeerCertificate();
  } finally {
    socket.destroy();
  }
}

export const fingerprint = (pair: { cert: string }) => new X509Certificate(pair.cert).fingerprint256;

/** GET https://localhost:port/path over 127.0.0.1, verifying the server against `ca`. */
export function httpsGet(port: number, path: string, ca: string | string[]): Promise<{ status: number; body: string }> {
  return new Promise((resolve, reject) => {
    const req = request(
      { host: '127.0.0.1', port, path, servername: 'localhost', ca, agent: false, headers: { host: 'localhost' } },
      (response) => {
        let body = '';
        response.on('data', (chunk) => {
          body += chunk;
        });
        response.on('end', () => resolve({ status: response.statusCode ?? 0, body }));
      },
    );
    req.on('error', reject);
    req.end();
  });
}

/** A log capture that can wait for the next line matching a pattern. */
export class WaitableLogs extends LogCapture {
  #waiters: { pattern: RegExp; resolve: (line: string) => void }[] = [];
  override _write(chunk: Buffer, encoding: string, done: () => void): void {
    const before = this.lines.length;
    super._write(chunk, encoding, () => {});
    for (const line of this.lines.slice(before)) {
      const matched = this.#waiters.filter((waiter) => waiter.pattern.test(line));
      this.#waiters = this.#waiters.filter((waiter) => !matched.includes(waiter));
      for (const waiter of matched) waiter.resolve(line);
    }
    done();
  }
  /** The first line written from now on that matches pattern. */
  next(pattern: RegExp): Promise<string> {
    return new Promise((resolve) => this.#waiters.push({ pattern, resolve }));
  }
}
