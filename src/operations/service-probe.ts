// Whether Gatehouse is serving from this installation: a restore must not swap the database under a running node.
// Asked two ways: the configured listener's liveness endpoint (any answer, or any connection other than a refusal,
// means something holds the listener), and the development instance's pid record in the data directory.
import { request as httpsRequest } from 'node:https';
import { isIP } from 'node:net';
import { nodeHttp } from '../http/node-http.ts';

/**
 * host:port as config.server.listen writes it ("127.0.0.1:8080", "[::1]:8080"), aimed at a local address; https when
 * the listener serves TLS itself (tls.mode files or acme).
 */
export function localUrlOf(listen: string, pathName: string, tls = false): string {
  const cut = listen.lastIndexOf(':');
  let host = listen.slice(0, cut).replace(/^\[(.*)\]$/, '$1');
  if (host === '0.0.0.0' || host === '') host = '127.0.0.1';
  if (host === '::') host = '::1';
  return `${tls ? 'https' : 'http'}://${isIP(host) === 6 ? `[${host}]` : host}:${listen.slice(cut + 1)}${pathName}`;
}

/** Why the service counts as running, or null when nothing answers on its listener. */
export async function listenerAnswers(listen: string, timeoutMs = 2000): Promise<string | null> {
  const url = localUrlOf(listen, '/health/live');
  try {
    const response = await fetch(url, {
      headers: { 'x-forwarded-for': probeForwardedFor(url) },
      signal: AbortSignal.timeout(timeoutMs),
    });
    await response.body?.cancel();
    return `${url} answers (HTTP ${response.status})`;
  } catch (error) {
    const code = (error as { cause?: { code?: string } }).cause?.code;
    if (code === 'ECONNREFUSED') return null;
    // A TLS listener resets a plain-HTTP probe; a hung one times out: either way the port is held.
    return `something holds the listener ${listen} (${code ?? (error as Error).name})`;
  }
}

/**
 * The X-Forwarded-For a local probe sends: the address it connects from. A probe aimed at a local address leaves
 * from that same address, so the header states the truth, and it is exactly the one valid address that
 * `server.trusted_proxy = true` demands of every request (src/http/trusted-proxy.ts). Without trusted_proxy the
 * service ignores the header. So a probe passes the rule by construction, whatever the configuration says.
 */
export function probeForwardedFor(url: string): string {
  const host = new URL(url).hostname.replace(/^\[(.*)\]$/, '$1');
  return isIP(host) === 0 ? '127.0.0.1' : host;
}

/**
 * GET a local JSON endpoint of the service: its status and parsed body (null when not JSON). The certificate of a
 * TLS listener is not checked: it names the public domain, not the loopback address asked here, and only the
 * readiness answer of the host's own service is read.
 */
export function getLocalJson(url: string, timeoutMs: number): Promise<{ status: number; body: unknown }> {
  const request = url.startsWith('https:') ? httpsRequest : nodeHttp.request;
  const headers = { 'x-forwarded-for': probeForwardedFor(url) };
  return new Promise((resolve, reject) => {
    const req = request(url, { method: 'GET', headers, timeout: timeoutMs, rejectUnauthorized: false }, (response) => {
      const chunks: Buffer[] = [];
      response.on('data', (chunk: Buffer) => chunks.push(chunk));
      response.on('error', reject);
      response.on('end', () => {
        let body: unknown = null;
        try {
          body = JSON.parse(Buffer.concat(chunks).toString('utf8'));
        } catch {}
        resolve({ status: response.statusCode ?? 0, body });
      });
    });
    req.on('timeout', () => req.destroy(new Error(`no answer within ${timeoutMs} ms`)));
    req.on('error', reject);
    req.end();
  });
}
