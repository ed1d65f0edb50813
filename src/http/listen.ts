// The listener's address, checked before anything starts (the embedded database, migrations), and the one-line
// answer when it cannot be bound: which address, why, and how to choose another.
import { createServer } from 'node:net';

/** The listener cannot be opened; the message names the address and what to do. */
export class ListenError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'ListenError';
  }
}

const hostPort = (host: string, port: number) => `${host.includes(':') ? `[${host}]` : host}:${port}`;

/** Binds host:port and releases it; resolves to the bind error's code, or null when the address is free. */
function tryBind(host: string, port: number): Promise<string | null> {
  return new Promise((resolve) => {
    const probe = createServer();
    probe.once('error', (error: NodeJS.ErrnoException) => resolve(error.code ?? 'EUNKNOWN'));
    probe.listen({ host, port }, () => probe.close(() => resolve(null)));
  });
}

/** The first free port after `port` (a few tries), to suggest; null when none of them is free. */
async function nextFreePort(host: string, port: number): Promise<number | null> {
  for (let candidate = port + 1; candidate <= Math.min(port + 20, 65535); candidate++)
    if ((await tryBind(host, candidate)) === null) return candidate;
  return null;
}

/** The ListenError for a bind failure with `code` (EADDRINUSE, EACCES, EADDRNOTAVAIL), or null for other codes. */
export async function listenFailure(code: string | undefined, host: string, port: number): Promise<ListenError | null> {
  const use = (p: number | null) =>
    p === null ? 'a free port with GATEHOUSE_LISTEN=HOST:PORT' : `GATEHOUSE_LISTEN=${hostPort(host, p)}`;
  switch (code) {
    case 'EADDRINUSE':
      return new ListenError(
        `Port ${port} on ${host} is in use: stop what uses it or start with ${use(await nextFreePort(host, port))}`,
      );
    case 'EACCES':
      return new ListenError(
        `Port ${port} on ${host} needs privileges this process does not have: start with ${use(port < 1024 ? 8080 : null)} and let a reverse proxy serve the privileged port`,
      );
    case 'EADDRNOTAVAIL':
      return new ListenError(
        `${host} is not an address of this machine: start with GATEHOUSE_LISTEN=127.0.0.1:${port} (or an address it has)`,
      );
    default:
      return null;
  }
}

/** Throws a ListenError when host:port cannot be bound now. Port 0 (the system picks one) is always free. */
export async function assertCanListen(host: string, port: number): Promise<void> {
  if (port === 0) return;
  const failure = await listenFailure((await tryBind(host, port)) ?? undefined, host, port);
  if (failure) throw failure;
}
