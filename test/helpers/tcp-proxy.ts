// A TCP proxy in front of PostgreSQL that a test can cut and restore, to make the database really unreachable, or
// stall, to make it slow: a stalled proxy accepts connections and then forwards nothing, as a congested or
// half-dead network does.
import { connect, createServer, type Server, type Socket } from 'node:net';

export class TcpProxy {
  #server: Server | null = null;
  #sockets = new Set<Socket>();
  port = 0;
  readonly target: { host: string; port: number };
  /** While true, new connections are accepted and held without an upstream: nothing is ever answered. */
  stalled = false;

  constructor(target: { host: string; port: number }) {
    this.target = target;
  }

  async start(): Promise<void> {
    const server = createServer((client) => {
      if (this.stalled) {
        this.#sockets.add(client);
        client.on('close', () => this.#sockets.delete(client));
        client.on('error', () => client.destroy());
        return;
      }
      const upstream = connect(this.target.port, this.target.host);
      for (const socket of [client, upstream]) {
        this.#sockets.add(socket);
        socket.on('close', () => this.#sockets.delete(socket));
        socket.on('error', () => {
          client.destroy();
          upstream.destroy();
        });
      }
      client.pipe(upstream).pipe(client);
    });
    await new Promise<void>((resolve) => server.listen(this.port, '127.0.0.1', resolve));
    const address = server.address();
    this.port = typeof address === 'object' && address ? address.port : 0;
    this.#server = server;
  }

  /** Cuts every open connection (both ends see it close) and goes on accepting new ones. */
  cut(): void {
    for (const socket of this.#sockets) socket.destroy();
  }

  /** Refuses new connections and cuts every open one. */
  async stop(): Promise<void> {
    const server = this.#server;
    this.#server = null;
    for (const socket of this.#sockets) socket.destroy();
    if (server) await new Promise<void>((resolve) => server.close(() => resolve()));
  }
}
