// Which client-sent request headers never reach the upstream because an upstream could take them for the gateway's
// word about who is calling, from where, or for what path and method (docs/gateway.md "Headers", DESIGN.md "identity-
// like headers from clients never reach an upstream"). Reverse proxies and identity-aware proxies each have their
// own names for these, and a product behind Gatehouse may have been written for any of them, so the built-in list
// covers the common ones and `gateway.strip_request_headers` extends it. The gateway then adds its own X-Gatehouse-*
// and exactly one X-Forwarded-For (headers.ts): those are the only identity headers the upstream sees.

/** Lower-case names; a trailing `*` makes a prefix. Listed in docs/gateway.md (a test compares them). */
export const BUILT_IN_STRIPPED_HEADERS: readonly string[] = [
  // Gatehouse's own, and the forwarding headers (RFC 7239, and the X-Forwarded-* family with oauth2-proxy's
  // X-Forwarded-User, -Email, -Preferred-Username, -Groups, -Access-Token)
  'x-gatehouse-*',
  'forwarded',
  'x-forwarded*',
  // the user as other gateways pass it: generic, oauth2-proxy (X-Auth-Request-*) and the other X-Auth-* forms
  // (X-Auth-User, X-Auth-Email, X-Auth-Token), Authelia, Kubernetes, Grafana, Kong, Pomerium, Cloudflare Access,
  // Google IAP, AWS ALB, Azure App Service, WSO2, Apache mod_auth_openidc (OIDC_CLAIM_*, OIDC_access_token...),
  // Vouch Proxy
  'x-user*',
  'remote-*',
  'x-remote-*',
  'x-auth-*',
  'oidc-*',
  'x-vouch-*',
  'x-authenticated-*',
  'x-webauth-*',
  'x-consumer-*',
  'x-credential-identifier',
  'x-anonymous-consumer',
  'x-pomerium-*',
  'cf-access-*',
  'x-goog-authenticated-user-*',
  'x-goog-iap-jwt-assertion',
  'x-amzn-oidc-*',
  'x-ms-client-principal*',
  'x-ms-token-*',
  'x-jwt-assertion*',
  // a client certificate as a TLS-terminating proxy passes it
  'x-ssl-*',
  'ssl-client-*',
  'x-client-cert*',
  'x-arr-clientcert',
  // the client address, which upstreams use for allow lists and audit
  'x-real-ip',
  'x-client-ip',
  'client-ip',
  'true-client-ip',
  'x-cluster-client-ip',
  'cf-connecting-ip',
  'fastly-client-ip',
  // another path, host or method than the one judged (IIS/Symfony/Laravel URL rewriting, nginx auth_request,
  // Envoy's record of a rewritten path, method-override middleware)
  'x-original-*',
  'x-envoy-original-*',
  'x-rewrite-url',
  'x-host',
  'x-http-method-override',
  'x-http-method',
  'x-method-override',
];

/**
 * How a name compares: lower case, `_` read as `-`, since CGI, PHP, WSGI and Rack turn both `X-User-Id` and
 * `X_User_Id` into HTTP_X_USER_ID (RFC 3875 §4.1.18), so a name spelled with underscores is the same header there.
 */
const comparable = (name: string) => name.toLowerCase().replaceAll('_', '-');

export type HeaderFilter = (name: string) => boolean;

/** True for a header name that must not reach the upstream: on the built-in list or the operator's `extra`. */
export function strippedHeaderFilter(extra: readonly string[]): HeaderFilter {
  const exact = new Set<string>();
  const prefixes: string[] = [];
  for (const pattern of [...BUILT_IN_STRIPPED_HEADERS, ...extra].map(comparable)) {
    if (pattern.endsWith('*')) prefixes.push(pattern.slice(0, -1));
    else exact.add(pattern);
  }
  const judge = (name: string) => {
    const key = comparable(name);
    return exact.has(key) || prefixes.some((prefix) => key.startsWith(prefix));
  };
  // Every proxied request asks about each of its header names, and the names repeat from request to request: each is
  // judged once. Bounded, since clients choose the names; past the bound, names are judged each time.
  const known = new Map<string, boolean>();
  return (name) => {
    let stripped = known.get(name);
    if (stripped === undefined) {
      stripped = judge(name);
      if (known.size < MEMO_LIMIT) known.set(name, stripped);
    }
    return stripped;
  };
}

/** Header names whose verdict a gateway keeps (a few dozen in practice). */
const MEMO_LIMIT = 1_000;
