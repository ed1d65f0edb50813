// Why a node in tls.mode "acme" cannot start: it has no certificate and its first order failed. The exit status
// tells systemd what to do (packaging/gatehouse.service): 69 (EX_UNAVAILABLE) when the authority could not be
// reached, which may heal, so systemd restarts it within the unit's start limit; 78 (EX_CONFIG) when the authority
// answered and refused or could not validate the order (a reserved name, the domain not pointing here, port 80 not
// reaching tls.acme_http_listen, a refused contact, its rate limits), which the unit's RestartPreventExitStatus
// leaves failed: restarting would only spend the authority's failed-validation and order limits.

/** The authority's directory could not be fetched (network error, timeout, HTTP status other than 200). */
export class AcmeUnreachable extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'AcmeUnreachable';
  }
}

/** Socket errors of a request that reached no ACME server (Node's, as axios passes them on). */
const NETWORK_CODES = new Set([
  'ECONNREFUSED',
  'ECONNRESET',
  'ECONNABORTED',
  'EHOSTUNREACH',
  'ENETUNREACH',
  'ENOTFOUND',
  'EAI_AGAIN',
  'ETIMEDOUT',
]);

/**
 * An error's words. A connection to a name with several addresses (localhost: ::1 and 127.0.0.1) that all refuse
 * fails with an AggregateError whose own message is empty: its addresses' errors say it.
 */
export function errorText(error: unknown): string {
  if (!(error instanceof Error)) return String(error);
  if (error.message) return error.message;
  const inner = error instanceof AggregateError ? error.errors.map((e) => errorText(e)).filter(Boolean) : [];
  if (inner.length > 0) return inner.join('; ');
  return (error as NodeJS.ErrnoException).code ?? error.name;
}

export class AcmeStartFailed extends Error {
  readonly exitCode: 69 | 78;
  constructor(message: string, exitCode: 69 | 78) {
    super(message);
    this.name = 'AcmeStartFailed';
    this.exitCode = exitCode;
  }
}

/** The first order's failure as the one line the service exits with. */
export function acmeStartFailure(error: unknown, domain: string, directoryUrl: string): AcmeStartFailed {
  const reason = errorText(error);
  const code = (error as { code?: unknown } | null)?.code;
  if (error instanceof AcmeUnreachable || (typeof code === 'string' && NETWORK_CODES.has(code)))
    return new AcmeStartFailed(
      `no TLS certificate for ${domain} and the ACME authority is unreachable (${reason}); exiting with 69, systemd tries again`,
      69,
    );
  return new AcmeStartFailed(
    `no TLS certificate for ${domain}: the order at ${directoryUrl} failed (${reason}); exiting with 78, not retried ` +
      `(each attempt counts against the authority's limits): check that ${domain} resolves to this host, that port 80 ` +
      'reaches tls.acme_http_listen and the tls.acme_* settings, then start the service again',
    78,
  );
}
