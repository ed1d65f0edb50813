// A real SMTP server for delivery tests (smtp-server, the nodemailer project's server library): STARTTLS with
// a certificate from a test CA written to disk for delivery.smtp.ca_file, AUTH required. Tests await the
// messages it receives instead of sleeping, and can stop and restart it on the same port to simulate an outage.
import { once } from 'node:events';
import { writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import path from 'node:path';
import { generate } from 'selfsigned';
import { SMTPServer } from 'smtp-server';

export interface ReceivedMessage {
  from: string;
  to: string[];
  raw: string;
  secure: boolean;
  user: string | undefined;
}

export interface TestCertificate {
  cert: string;
  key: string;
  caFile: string;
}

/** A certificate for localhost/127.0.0.1, self-signed, so it is its own CA file. */
export async function makeCertificate(dir: string): Promise<TestCertificate> {
  const pems = await generate([{ name: 'commonName', value: 'localhost' }], {
    keySize: 2048,
    extensions: [
      { name: 'basicConstraints', cA: true },
      {
        name: 'subjectAltName',
        altNames: [
          { type: 2, value: 'localhost' },
          { type: 7, ip: '127.0.0.1' },
        ],
      },
    ],
  });
  const caFile = path.join(dir, 'smtp-ca.pem');
  writeFileSync(caFile, pems.cert);
  return { cert: pems.cert, key: pems.private, caFile };
}

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

export interface TestSmtpOptions {
  certificate: TestCertificate;
  port?: number;
  /** Credentials accepted by AUTH; null runs without AUTH (an MX host). */
  credentials: { username: string; password: string } | null;
  /** Reply code for DATA, e.g. 550 to refuse every message. */
  rejectWith?: number;
  /** Accept the message data but never answer: a send that is still in flight. */
  stall?: boolean;
  /** Refuse STARTTLS (a relay a client must refuse to talk to in plaintext). */
  noStartTls?: boolean;
  /** Speak TLS from the first byte (implicit TLS, RFC 8314 §3.3, port 465) instead of offering STARTTLS. */
  implicitTls?: boolean;
}

export class TestSmtpServer {
  readonly received: ReceivedMessage[] = [];
  port = 0;
  #server: SMTPServer | null = null;
  #waiters: { count: number; resolve: () => void }[] = [];
  readonly #options: TestSmtpOptions;
  readonly #stalled = Promise.withResolvers<void>();
  /** Resolves when a stalling server has received a message it will never answer. */
  readonly stalled = this.#stalled.promise;
  readonly #closed = Promise.withResolvers<void>();
  /** Resolves when the first client connection has closed (a sender that gave up closes its connection). */
  readonly connectionClosed = this.#closed.promise;

  constructor(options: TestSmtpOptions) {
    this.#options = options;
  }

  async start(): Promise<this> {
    const { certificate, credentials, rejectWith, noStartTls, stall, implicitTls } = this.#options;
    this.port ||= this.#options.port ?? (await freePort());
    const server = new SMTPServer({
      key: certificate.key,
      cert: certificate.cert,
      secure: implicitTls ?? false,
      authOptional: credentials === null,
      allowInsecureAuth: noStartTls ?? false,
      disabledCommands: [...(credentials === null ? ['AUTH'] : []), ...(noStartTls ? ['STARTTLS'] : [])],
      logger: false,
      onClose: () => this.#closed.resolve(),
      // stop() ends open sessions at once instead of waiting 30 s for them (a stalled one never ends).
      closeTimeout: 1,
      onAuth(auth, _session, callback) {
        if (credentials && auth.username === credentials.username && auth.password === credentials.password)
          callback(null, { user: auth.username });
        else callback(Object.assign(new Error('Invalid username or password'), { responseCode: 535 }));
      },
      onData: (stream, session, callback) => {
        const chunks: Buffer[] = [];
        stream.on('data', (chunk: Buffer) => chunks.push(chunk));
        stream.on('end', () => {
          if (stall) return this.#stalled.resolve();
          if (rejectWith) return callback(Object.assign(new Error('Refused'), { responseCode: rejectWith }));
          this.received.push({
            from: session.envelope.mailFrom ? session.envelope.mailFrom.address : '',
            to: session.envelope.rcptTo.map((r) => r.address),
            raw: Buffer.concat(chunks).toString('utf8'),
            secure: session.secure,
            user: typeof session.user === 'string' ? session.user : undefined,
          });
          callback();
          this.#notify();
        });
      },
    });
    // A client that gives up mid-handshake (a plaintext client at an implicit-TLS port) is the client's failure,
    // which the tests assert from the client side; the server just drops that connection.
    server.on('error', () => {});
    server.listen(this.port, '127.0.0.1');
    await once(server.server, 'listening');
    this.#server = server;
    return this;
  }

  async stop(): Promise<void> {
    const server = this.#server;
    this.#server = null;
    if (server) await new Promise<void>((resolve) => server.close(() => resolve()));
  }

  /** Resolves once at least `count` messages have arrived. */
  waitFor(count: number): Promise<void> {
    if (this.received.length >= count) return Promise.resolve();
    return new Promise((resolve) => this.#waiters.push({ count, resolve }));
  }

  #notify(): void {
    this.#waiters = this.#waiters.filter((w) => {
      if (this.received.length < w.count) return true;
      w.resolve();
      return false;
    });
  }
}
