// Whether Gatehouse is serving from this installation: a restore must not swap the database under a running node.
// Asked two ways: the configured listener's liveness endpoint (any answer, or any connection other than a refusal,
// means something holds the listener), and the development instance's pid record in the data directory.
import { isIP } from 'node:net';

/** host:port as config.server.listen writes it ("127.0.0.1:8080", "[::1]:8080"), aimed at a local address. */
export function localUrlOf(listen: string, pathName: string): string {
  const cut = listen.lastIndexOf(':');
  let host = listen.slice(0, cut).replace(/^\[(.*)\]$/, '$1');
  if (host === '0.0.0.0' || host === '') host = '127.0.0.1';
  if (host === '::') host = '::1';
  return `http://${isIP(host) === 6 ? `[${host}]` : host}:${listen.slice(cut + 1)}${pathName}`;
}

/** Why the service counts as running, or null when nothing answers on its listener. */
export async function listenerAnswers(listen: string, timeoutMs = 2000): Promise<string | null> {
  const url = localUrlOf(listen, '/health/live');
  try {
    const response = await fetch(url, { signal: AbortSignal.timeout(timeoutMs) });
    await response.body?.cancel();
    return `${url} answers (HTTP ${response.status})`;
  } catch (error) {
    const code = (error as { cause?: { code?: string } }).cause?.code;
    if (code === 'ECONNREFUSED') return null;
    // A TLS listener resets a plain-HTTP probe; a hung one times out: either way the port is held.
    return `something holds the listener ${listen} (${code ?? (error as Error).name})`;
  }
}
