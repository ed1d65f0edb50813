// The sockets the pool's connections use. postgres.js (3.4.9) handles a connection lost with a socket error (a reset,
// a broken pipe) in two steps: on 'error' it rejects the queries sent so far, on 'close' it takes the connection out
// of use. Between the two, the connection still counts as busy, so the pool pipelines new queries onto it, and
// because the close reports an error the driver assumes those were rejected already: they never settle, and the
// requests behind them hang (test/faults/database-connections.test.ts cut connections under load and hung about one
// run in ten). An error during the driver's type fetch right after connecting was worse: it rejects a promise
// nobody handles, which ends the process.
//
// A lost connection is therefore told to the driver as a plain close: once the socket has connected, its 'error' is
// kept back and its 'close' reports no error. The driver then rejects, at the close, every query the connection
// holds (CONNECTION_CLOSED: a 503, src/http/database-unavailable.ts), and a connection lost while it was still
// starting up is made again for the query that was waiting for it. Errors before the TCP connection exists (refused,
// unreachable) still reach the driver as they are, so they fail the waiting query at once; so does a connection
// closed before the server sent anything (below).
//
// With TLS to PostgreSQL the driver reads a TLS socket it wraps around this one, which this cannot reach: there the
// driver's own handling applies.
import { Socket } from 'node:net';

interface DriverOptions {
  host: string[];
  port: number[];
  path?: string | false;
  fetch_types: boolean;
  shared: { typeArrayMap: Record<number, number> };
}

class CloseOnlySocket extends Socket {
  #connected = false;
  #heard = false;

  constructor() {
    super();
    this.once('connect', () => {
      this.#connected = true;
    });
  }

  override emit(event: string | symbol, ...args: unknown[]): boolean {
    if (event === 'data') this.#heard = true;
    if (this.#connected && event === 'error') {
      // Node destroys the socket after an error and then emits 'close', which the driver handles.
      return true;
    }
    if (this.#connected && event === 'close') {
      // Closed before the server said a word: nothing PostgreSQL answers there, typically a TCP proxy (HAProxy in
      // front of Patroni) that accepted the connection and has no primary to pass it to during a failover. As a plain
      // close the driver would make the connection again and again, with the request's query waiting throughout;
      // told as a refusal, the query fails at once (a 503) and the next request tries again.
      if (!this.#heard) super.emit('error', Object.assign(new Error('the database closed the connection before answering'), { code: 'ECONNREFUSED' }));
      return super.emit('close', false);
    }
    return super.emit(event, ...args);
  }
}

/** postgres.js's `socket` option: one new socket per connection attempt, to the URL's hosts in turn. */
export function poolSocketFactory(): (options: DriverOptions) => Socket {
  let next = 0;
  return (options) => {
    // The array types are the same on every connection, and the driver keeps what it fetched for the whole pool: once
    // it has them, a new connection skips the fetch, whose lost answer is the unhandled rejection described above.
    if (Object.keys(options.shared.typeArrayMap).length > 0) options.fetch_types = false;
    const socket = new CloseOnlySocket();
    if (options.path) return socket.connect(options.path);
    const index = next % options.host.length;
    next += 1;
    const host = options.host[index] as string;
    const port = options.port[index] ?? options.port[0] ?? 5432;
    // The driver names the server in its connection errors from these.
    Object.assign(socket, { host, port });
    return socket.connect(port, host);
  };
}
