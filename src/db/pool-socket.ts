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
// Several servers (a multi-host URL, docs/scaling.md) are chosen here, not by the driver: postgres.js 3.4.9 never
// gives up on a list of hosts (its retry counter is never raised), so while no server is primary it reconnected
// round and round with the request's query waiting through the whole failover. The driver is told of the first host
// only, so every failure reaches the waiting query at once (a 503), and this factory sends new connections to the
// server that last worked, moving on when one proves unusable: refused or unreachable, closed before it answered, or
// a standby the driver turned away (target_session_attrs, which it then ends with a Terminate before any query).
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

export interface Server {
  host: string;
  port: number;
}

/** Frontend message types that carry a query (simple or extended protocol). */
const QUERY_MESSAGES = new Set([0x51, 0x50, 0x42, 0x45, 0x44, 0x53, 0x48]); // Q P B E D S H
const TERMINATE = 0x58; // X

class CloseOnlySocket extends Socket {
  #connected = false;
  #heard = false;
  #queried = false;
  readonly #unusable: () => void;

  constructor(unusable: () => void) {
    super();
    this.#unusable = unusable;
    this.once('connect', () => {
      this.#connected = true;
    });
  }

  override emit(event: string | symbol, ...args: unknown[]): boolean {
    if (event === 'data') this.#heard = true;
    if (!this.#connected && event === 'error') this.#unusable();
    if (this.#connected && event === 'error') {
      // Node destroys the socket after an error and then emits 'close', which the driver handles.
      return true;
    }
    if (this.#connected && event === 'close') {
      // Closed before the server said a word: nothing PostgreSQL answers there, typically a TCP proxy (HAProxy in
      // front of Patroni) that accepted the connection and has no primary to pass it to during a failover. As a plain
      // close the driver would make the connection again and again, with the request's query waiting throughout;
      // told as a refusal, the query fails at once (a 503) and the next request tries again.
      if (!this.#heard) {
        this.#unusable();
        super.emit(
          'error',
          Object.assign(new Error('the database closed the connection before answering'), { code: 'ECONNREFUSED' }),
        );
      }
      return super.emit('close', false);
    }
    return super.emit(event, ...args);
  }

  // Typed loosely: Socket's overloads cannot be restated one by one; the arguments pass through unchanged.
  override write(...args: unknown[]): boolean {
    this.#watch(args[0]);
    return (super.write as (...a: unknown[]) => boolean)(...args);
  }

  override end(...args: unknown[]): this {
    this.#watch(args[0]);
    return (super.end as (...a: unknown[]) => this)(...args);
  }

  /** A Terminate before any query: the driver turned the server away after the startup (a standby). */
  #watch(chunk: unknown) {
    if (!Buffer.isBuffer(chunk) || chunk.length === 0) return;
    const type = chunk[0] as number;
    if (QUERY_MESSAGES.has(type)) this.#queried = true;
    else if (type === TERMINATE && !this.#queried) this.#unusable();
  }
}

/**
 * postgres.js's `socket` option: one new socket per connection attempt, to the server that last worked. `servers`
 * is the multi-host list when the driver was given only the first (createPool); else the driver's own host.
 */
export function poolSocketFactory(servers?: Server[]): (options: DriverOptions) => Socket {
  let current = 0;
  return (options) => {
    // The array types are the same on every connection, and the driver keeps what it fetched for the whole pool: once
    // it has them, a new connection skips the fetch, whose lost answer is the unhandled rejection described above.
    if (Object.keys(options.shared.typeArrayMap).length > 0) options.fetch_types = false;
    const list = servers ?? options.host.map((host, i) => ({ host, port: options.port[i] ?? options.port[0] ?? 5432 }));
    const index = current % list.length;
    const socket = new CloseOnlySocket(() => {
      // Only the first of several failures on one server moves on; later ones must not skip the next server.
      if (current % list.length === index) current = index + 1;
    });
    if (options.path) return socket.connect(options.path);
    const { host, port } = list[index] as Server;
    // The driver names the server in its connection errors from these.
    Object.assign(socket, { host, port });
    return socket.connect(port, host);
  };
}
