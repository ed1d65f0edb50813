// A minimal HTTP/1.1 keep-alive client for the chained load (refresh rotation): the load generator runs on the same
// CPUs as the server, and undici's request objects, body streams and header parsing cost ~85 µs of this process's
// CPU per rotation, 7% of what the target allows. This client writes each request as one string and reads
// responses framed by Content-Length (what Fastify sends for JSON); anything else is an error, never a guess.
import { connect, type Socket } from 'node:net';

export interface LeanResponse {
  status: number;
  body: string;
}

const HEADER_END = Buffer.from('\r\n\r\n');
const CONTENT_LENGTH = /\r\ncontent-length:[ \t]*(\d+)/i;
const STATUS_LINE = /^HTTP\/1\.1 (\d{3}) /;
const ANSWER_TIMEOUT_MS = 300_000;

/** One keep-alive connection carrying one request at a time. */
export class LeanConnection {
  readonly #socket: Socket;
  readonly #host: string;
  #buffered: Buffer = Buffer.alloc(0);
  #waiting: { resolve: (r: LeanResponse) => void; reject: (e: Error) => void } | null = null;
  #failure: Error | null = null;

  private constructor(socket: Socket, host: string, answerTimeoutMs: number) {
    this.#socket = socket;
    this.#host = host;
    socket.setNoDelay(true);
    // undici's default header timeout: a server that stops answering fails the run instead of hanging it.
    socket.setTimeout(answerTimeoutMs, () => {
      if (this.#waiting) {
        this.#fail(new Error(`no answer within ${answerTimeoutMs} ms`));
        socket.destroy();
      }
    });
    socket.on('data', (chunk: Buffer) => this.#received(chunk));
    socket.on('error', (error) => this.#fail(error));
    socket.on('close', () => this.#fail(new Error('the server closed the connection')));
  }

  static open(origin: string, answerTimeoutMs = ANSWER_TIMEOUT_MS): Promise<LeanConnection> {
    const url = new URL(origin);
    if (url.protocol !== 'http:') throw new Error(`lean-http speaks plain HTTP only, not ${url.protocol}`);
    return new Promise((resolve, reject) => {
      const socket = connect(Number(url.port || 80), url.hostname);
      socket.once('connect', () => resolve(new LeanConnection(socket, url.host, answerTimeoutMs)));
      socket.once('error', reject);
    });
  }

  /** POSTs a form body and resolves with the whole response. */
  postForm(path: string, body: string): Promise<LeanResponse> {
    if (this.#failure) return Promise.reject(this.#failure);
    if (this.#waiting) return Promise.reject(new Error('one request at a time per connection'));
    return new Promise((resolve, reject) => {
      this.#waiting = { resolve, reject };
      this.#socket.write(
        `POST ${path} HTTP/1.1\r\nhost: ${this.#host}\r\ncontent-type: application/x-www-form-urlencoded\r\n` +
          `content-length: ${Buffer.byteLength(body)}\r\n\r\n${body}`,
      );
    });
  }

  close(): void {
    this.#failure ??= new Error('closed');
    this.#socket.end();
  }

  #received(chunk: Buffer): void {
    this.#buffered = this.#buffered.length === 0 ? chunk : Buffer.concat([this.#buffered, chunk]);
    const headerEnd = this.#buffered.indexOf(HEADER_END);
    if (headerEnd < 0) return;
    const head = this.#buffered.toString('latin1', 0, headerEnd);
    const status = STATUS_LINE.exec(head);
    const length = CONTENT_LENGTH.exec(head);
    if (!status || !length) {
      this.#fail(new Error(`unexpected response framing: ${head.split('\r\n', 1)[0]}`));
      this.#socket.destroy();
      return;
    }
    const end = headerEnd + HEADER_END.length + Number(length[1]);
    if (this.#buffered.length < end) return;
    const response = { status: Number(status[1]), body: this.#buffered.toString('utf8', end - Number(length[1]), end) };
    // One request at a time: bytes after its answer were never asked for, so the framing is off.
    if (this.#buffered.length > end || !this.#waiting) {
      this.#fail(new Error('bytes after the answer, or an answer nobody asked for'));
      this.#socket.destroy();
      return;
    }
    this.#buffered = Buffer.alloc(0);
    const waiting = this.#waiting;
    this.#waiting = null;
    waiting.resolve(response);
  }

  #fail(error: Error): void {
    this.#failure ??= error;
    const waiting = this.#waiting;
    this.#waiting = null;
    waiting?.reject(error);
  }
}
