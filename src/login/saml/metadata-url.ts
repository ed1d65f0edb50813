// `idp_metadata_url`: the identity provider's metadata, fetched at startup and again every
// idp_metadata_refresh_seconds, since identity providers roll their signing keys over by publishing a new certificate
// there. The project's pattern for an upstream that is down (OIDC discovery, LDAP directories) is to keep serving
// everything else and fail only the sign-ins that need it, so an unreachable URL at startup does not stop the
// server: the connection answers 503 saml_connection_unavailable until a fetch succeeds. A failed refresh keeps the
// last good copy (a brief outage of the identity provider's web server must not end sign-in through it) and logs why.
import { identityProviderFrom, type SamlConnection } from './connection.ts';
import { parseIdpMetadata } from './idp-metadata.ts';

/** Bound on one fetch; the start waits for it once per connection. */
const FETCH_TIMEOUT_MS = 10_000;
/** Metadata of one identity provider is a few kilobytes; a larger answer is not what was asked for. */
const MAX_BYTES = 1_000_000;
/** Until the first success, retry this often (or at the refresh interval, if that is shorter). */
const RETRY_UNTIL_FIRST_MS = 60_000;

export type MetadataLog = (connection: string, level: 'info' | 'warn', message: string) => void;

/** When the next fetch runs; the tests pass their own to run fetches at the delays asked for, without waiting. */
export interface RefreshTimer {
  after(ms: number, run: () => void): { cancel(): void };
}

const realTimer: RefreshTimer = {
  after(ms, run) {
    const timer = setTimeout(run, ms);
    // The refresh never keeps the process alive by itself.
    timer.unref();
    return { cancel: () => clearTimeout(timer) };
  },
};

/** One fetch of a metadata URL, read and checked like a metadata file; throws why it could not. */
export async function fetchIdpMetadata(url: string) {
  // Redirects are not followed: they could lead to a host the https/loopback rule never saw.
  const response = await fetch(url, {
    redirect: 'manual',
    headers: { accept: 'application/samlmetadata+xml, application/xml, text/xml' },
    signal: AbortSignal.timeout(FETCH_TIMEOUT_MS),
  });
  if (response.status !== 200) throw new Error(`answered HTTP ${response.status}`);
  const body = await response.text();
  if (Buffer.byteLength(body) > MAX_BYTES) throw new Error(`answered more than ${MAX_BYTES} bytes`);
  return identityProviderFrom(parseIdpMetadata(body));
}

/** Why a fetch failed, with the network cause fetch() nests (ECONNREFUSED and the like). */
export function metadataFetchProblem(error: unknown): string {
  const cause = (error as Error).cause as Error | undefined;
  return `${(error as Error).message}${cause?.message ? ` (${cause.message})` : ''}`;
}

/**
 * Fetches one connection's metadata and, when it reads, replaces the connection's identity provider in place (every
 * route holds the same object). Returns null on success, else why not; the previous copy then stays.
 */
export async function refreshIdpMetadata(connection: SamlConnection, log: MetadataLog): Promise<string | null> {
  const url = connection.config.idp_metadata_url;
  try {
    const found = await fetchIdpMetadata(url);
    Object.assign(connection, found);
    log(connection.id, 'info', `SAML connection ${connection.id}: identity provider metadata read from ${url}`);
    return null;
  } catch (error) {
    const why = metadataFetchProblem(error);
    const kept =
      connection.idpSsoUrl === ''
        ? 'sign-in through it is unavailable until a fetch succeeds'
        : 'keeping the last good copy';
    log(connection.id, 'warn', `SAML connection ${connection.id} idp_metadata_url ${url}: ${why}; ${kept}`);
    return why;
  }
}

/**
 * Fetches every idp_metadata_url connection's metadata once (awaited, so a reachable identity provider is usable as
 * soon as the server listens), then keeps refreshing. Returns the function that stops the timers.
 */
export async function keepIdpMetadataFresh(
  connections: Map<string, SamlConnection>,
  log: MetadataLog,
  timer: RefreshTimer = realTimer,
): Promise<() => void> {
  const byUrl = [...connections.values()].filter((c) => c.config.idp_metadata_url !== '');
  const pending = new Set<{ cancel(): void }>();
  let stopped = false;
  const schedule = (connection: SamlConnection, failed: boolean) => {
    if (stopped) return;
    const every = connection.config.idp_metadata_refresh_seconds * 1000;
    const delay = failed && connection.idpSsoUrl === '' ? Math.min(every, RETRY_UNTIL_FIRST_MS) : every;
    const next = timer.after(delay, () => {
      pending.delete(next);
      void refreshIdpMetadata(connection, log).then((why) => schedule(connection, why !== null));
    });
    pending.add(next);
  };
  await Promise.all(
    byUrl.map(async (connection) => schedule(connection, (await refreshIdpMetadata(connection, log)) !== null)),
  );
  return () => {
    stopped = true;
    for (const next of pending) next.cancel();
  };
}
