// Rules the schema cannot express: URL shapes, cross-key requirements, and deferred (placeholder) settings.

import { displayTextProblem } from '../http/display-text.ts';
import { parseDatabaseUrl } from './database-url.ts';
import type { ConfigProblem } from './errors.ts';
import { callerProblem } from './forward-auth-callers.ts';
import { ldapProblems } from './ldap-rules.ts';
import { parseListen } from './listen-address.ts';
import { allowedOriginProblem, relyingParty, rpIdProblem } from './passkeys.ts';
import { isPlaceholderHost, isPlaceholderValue } from './placeholders.ts';
import { genericProviderState, PROVIDER_IDS, providerState } from './provider-state.ts';
import { samlProblems } from './saml-rules.ts';
import { type Config, REDIRECT_PROVIDERS } from './schema.ts';
import { audienceFormProblem } from './uri-form.ts';

export interface Deferred {
  /** The section that is deferred, e.g. `providers.github` or `delivery`. */
  key: string;
  reason: string;
}

export interface SemanticResult {
  problems: ConfigProblem[];
  deferred: Deferred[];
}

const LOCAL_HOSTS = new Set(['localhost', '127.0.0.1', '[::1]']);

/** localhost, 127.0.0.1 or [::1]: an issuer only this machine can reach. */
export function isLoopbackIssuer(issuer: string): boolean {
  const url = absoluteUrl(issuer);
  return url !== null && LOCAL_HOSTS.has(url.hostname);
}

function absoluteUrl(value: string): URL | null {
  try {
    return new URL(value);
  } catch {
    return null;
  }
}

function checkIssuer(issuer: string): string | null {
  const url = absoluteUrl(issuer);
  if (!url) return 'must be an absolute URL such as https://id.example.com';
  if (url.protocol !== 'https:' && !(url.protocol === 'http:' && LOCAL_HOSTS.has(url.hostname)))
    return 'must use https (plain http is allowed only for localhost)';
  if (url.search || url.hash || issuer.includes('?') || issuer.includes('#'))
    return 'must not have a query or fragment';
  if (issuer.endsWith('/')) return 'must not end with a slash';
  if (url.username || url.password) return 'must not contain credentials';
  return null;
}

/** WCAG 2.2 relative luminance of a #rrggbb colour (§ "relative luminance"). */
function luminance(hex: string): number {
  const channel = (i: number) => {
    const c = Number.parseInt(hex.slice(i, i + 2), 16) / 255;
    return c <= 0.04045 ? c / 12.92 : ((c + 0.055) / 1.055) ** 2.4;
  };
  return 0.2126 * channel(1) + 0.7152 * channel(3) + 0.0722 * channel(5);
}

/** Contrast of a #rrggbb colour against white (WCAG 2.2 contrast ratio), e.g. 6.5 for #0b5cad. */
export function contrastWithWhite(hex: string): number {
  return 1.05 / (luminance(hex) + 0.05);
}

/** The one rule for a database URL, wherever it comes from (file, DATABASE_URL, `--database-url`); '' = embedded. */
export function databaseUrlProblem(url: string): string | null {
  if (url === '') return null;
  if (!/^postgres(ql)?:\/\//.test(url)) return 'must start with postgres:// or postgresql://';
  if (!parseDatabaseUrl(url)) return 'is not a valid URL';
  return null;
}

export function checkSemantics(config: Config): SemanticResult {
  const problems: ConfigProblem[] = [];
  const deferred: Deferred[] = [];
  const problem = (key: string, text: string) => problems.push({ key, problem: text });

  const contrast = contrastWithWhite(config.branding.accent_color);
  if (contrast < 4.5)
    problem(
      'branding.accent_color',
      `has a contrast of ${contrast.toFixed(1)}:1 against white; buttons need 4.5:1 (pick a darker colour)`,
    );

  const issuerProblem = checkIssuer(config.server.issuer);
  if (issuerProblem) problem('server.issuer', issuerProblem);
  if (!parseListen(config.server.listen))
    problem('server.listen', 'must be host:port, e.g. 127.0.0.1:8080 or [::1]:8080');

  problems.push(...ldapProblems(config));
  problems.push(...samlProblems(config));

  const dbUrlProblem = databaseUrlProblem(config.database.url);
  if (dbUrlProblem) problem('database.url', dbUrlProblem);

  if (config.organization.id !== '' && !/^[a-z0-9][a-z0-9._-]{0,62}$/.test(config.organization.id))
    problem('organization.id', 'must be 1-63 characters of a-z, 0-9, ".", "_" or "-", starting with a letter or digit');
  // Shown in every message and hosted page: the rule for names people see (src/http/display-text.ts).
  const orgNameProblem = config.organization.name === '' ? null : displayTextProblem(config.organization.name);
  if (orgNameProblem) problem('organization.name', orgNameProblem);

  checkDelivery(config, problem, deferred);
  checkProviders(config, problem, deferred);

  if (config.tls.mode === 'files') {
    if (config.tls.cert_file === '') problem('tls.cert_file', 'is required when tls.mode is "files"');
    if (config.tls.key_file === '') problem('tls.key_file', 'is required when tls.mode is "files"');
  }
  if (config.tls.mode !== 'external' && !config.server.issuer.startsWith('https://'))
    problem('server.issuer', `must be https:// when tls.mode is "${config.tls.mode}" (this listener serves HTTPS)`);
  if (config.tls.mode === 'acme' && !parseListen(config.tls.acme_http_listen))
    problem('tls.acme_http_listen', 'must be host:port, e.g. [::]:80');

  if (!issuerProblem) checkPasskeys(config, problem);
  checkGateway(config, problem);
  return { problems, deferred };
}

type Report = (key: string, text: string) => void;

function checkPasskeys(config: Config, problem: Report): void {
  const rp = relyingParty(config);
  const rpProblem = rpIdProblem(rp.id, new URL(config.server.issuer).hostname);
  // A configured RP ID that cannot work is a mistake to refuse; the default (the issuer host) being unusable, as
  // for an IP-address issuer, only leaves passkeys off, which `gatehouse doctor` reports.
  if (rpProblem) {
    if (config.passkeys.rp_id !== '') problem('passkeys.rp_id', rpProblem);
    return;
  }
  config.passkeys.allowed_origins.forEach((origin, index) => {
    const originProblem = allowedOriginProblem(origin, rp.id);
    if (originProblem) problem(`passkeys.allowed_origins[${index}]`, originProblem);
  });
}

/** The domain of the address in delivery.from ("Name <a@b>" or "a@b"). */
export function senderDomain(from: string): string {
  const address = /<([^>]*)>\s*$/.exec(from)?.[1] ?? from;
  return address.slice(address.lastIndexOf('@') + 1).trim();
}

function checkDelivery(config: Config, problem: Report, deferred: Deferred[]): void {
  const { delivery } = config;
  if (delivery.kind === 'none') return;
  if (delivery.kind === 'dev_mailbox') {
    // Every kept message (links and codes included) is readable on the terminal and the console: on an issuer that
    // others can reach, that hands their accounts to whoever reads them.
    if (!isLoopbackIssuer(config.server.issuer))
      problem(
        'delivery.kind',
        '"dev_mailbox" keeps messages instead of sending them and is allowed only with a loopback server.issuer (http://localhost, 127.0.0.1 or [::1]); choose smtp, direct_mx or webhook',
      );
    return;
  }
  // The same deferrals, in the same order, as deliveryStatus (src/delivery/status.ts), so what `gatehouse info`
  // and the startup log report is what the account routes and the worker act on.
  if (isPlaceholderValue(delivery.from)) {
    deferred.push({ key: 'delivery', reason: 'delivery.from is a placeholder' });
    return;
  }
  switch (delivery.kind) {
    case 'smtp':
      if (delivery.smtp.host === '') problem('delivery.smtp.host', 'is required when delivery.kind is "smtp"');
      else if (isPlaceholderHost(delivery.smtp.host))
        deferred.push({ key: 'delivery', reason: `delivery.smtp.host "${delivery.smtp.host}" is a placeholder host` });
      else if (isPlaceholderValue(delivery.smtp.username))
        deferred.push({ key: 'delivery', reason: 'delivery.smtp credentials are placeholders' });
      break;
    case 'direct_mx':
      for (const key of ['helo_name', 'dkim_domain', 'dkim_selector', 'dkim_private_key_file'] as const)
        if (delivery.direct_mx[key] === '')
          problem(`delivery.direct_mx.${key}`, 'is required when delivery.kind is "direct_mx"');
      for (const key of ['helo_name', 'dkim_domain'] as const) {
        const host = delivery.direct_mx[key];
        if (host !== '' && isPlaceholderHost(host)) {
          deferred.push({ key: 'delivery', reason: `delivery.direct_mx.${key} "${host}" is a placeholder host` });
          break;
        }
      }
      if (!deferred.some((d) => d.key === 'delivery') && delivery.from !== '') {
        const domain = senderDomain(delivery.from);
        if (isPlaceholderHost(domain))
          deferred.push({ key: 'delivery', reason: `delivery.from domain "${domain}" is a placeholder host` });
      }
      break;
    case 'webhook': {
      const url = absoluteUrl(delivery.webhook.url);
      if (delivery.webhook.url === '') problem('delivery.webhook.url', 'is required when delivery.kind is "webhook"');
      else if (isPlaceholderValue(delivery.webhook.url))
        deferred.push({ key: 'delivery', reason: 'delivery.webhook.url is a placeholder' });
      else if (!url || (url.protocol !== 'https:' && !(url.protocol === 'http:' && LOCAL_HOSTS.has(url.hostname))))
        problem('delivery.webhook.url', 'must be an https:// URL (http only for localhost)');
      else if (isPlaceholderHost(url.hostname))
        deferred.push({ key: 'delivery', reason: `delivery.webhook.url host "${url.hostname}" is a placeholder host` });
      break;
    }
  }
  if (delivery.from === '' && !deferred.some((d) => d.key === 'delivery'))
    problem('delivery.from', `is required when delivery.kind is "${delivery.kind}"`);
}

/** https, or http on a loopback host (development and tests); the discovery document and tokens travel over it. */
const providerUrlProblem = (value: string) => {
  const url = absoluteUrl(value);
  if (url && (url.protocol === 'https:' || (url.protocol === 'http:' && LOCAL_HOSTS.has(url.hostname)))) return null;
  return 'must be an https:// URL (http only for localhost)';
};

function checkProviders(config: Config, problem: Report, deferred: Deferred[]): void {
  for (const name of REDIRECT_PROVIDERS) {
    const provider = config.providers[name];
    const key = `providers.${name}`;
    const issuerProblem = providerUrlProblem(provider.issuer);
    if (issuerProblem) problem(`${key}.issuer`, issuerProblem);
    if (!provider.enabled) continue;
    const state = providerState(config, name);
    if (state.state === 'deferred' && state.cause !== 'missing') deferred.push({ key, reason: state.reason });
    else if (provider.client_id === '') problem(`${key}.client_id`, 'is required when the provider is enabled');
    else if (state.state === 'deferred') deferred.push({ key, reason: state.reason });
  }
  const seen = new Set<string>();
  config.providers.oidc.forEach((provider, index) => {
    const key = `providers.oidc[${index}]`;
    if ((PROVIDER_IDS as readonly string[]).includes(provider.id) || seen.has(provider.id))
      problem(`${key}.id`, `"${provider.id}" is already taken by another provider`);
    seen.add(provider.id);
    if (provider.name.trim() === '') problem(`${key}.name`, 'is required');
    const issuerProblem = providerUrlProblem(provider.issuer);
    if (issuerProblem) problem(`${key}.issuer`, issuerProblem);
    if (!provider.enabled) return;
    const state = genericProviderState(config, provider.id);
    if (provider.client_id === '') problem(`${key}.client_id`, 'is required when the provider is enabled');
    else if (state.state === 'deferred') deferred.push({ key: `providers.oidc.${provider.id}`, reason: state.reason });
  });
  // EIP-4361's grammar puts the statement on one line; viem refuses to build a message otherwise.
  if (/[\r\n]/.test(config.providers.ethereum.statement))
    problem('providers.ethereum.statement', 'must be one line (no line breaks)');
  const ethereum = config.providers.ethereum;
  const rpcChains = new Set<number>();
  ethereum.rpc_urls.forEach((rpc, index) => {
    const key = `providers.ethereum.rpc_urls[${index}]`;
    if (!ethereum.chain_ids.includes(rpc.chain_id))
      problem(`${key}.chain_id`, `must be one of providers.ethereum.chain_ids (${ethereum.chain_ids.join(', ')})`);
    if (rpcChains.has(rpc.chain_id)) problem(`${key}.chain_id`, 'has a JSON-RPC URL already');
    rpcChains.add(rpc.chain_id);
    const url = absoluteUrl(rpc.url);
    if (!url || (url.protocol !== 'https:' && url.protocol !== 'http:'))
      problem(`${key}.url`, 'must be an http:// or https:// URL');
    else if (ethereum.enabled && isPlaceholderHost(url.hostname))
      deferred.push({ key: `${key}.url`, reason: `chain ${rpc.chain_id}'s JSON-RPC URL is a placeholder host` });
  });
  const relay = config.providers.farcaster.relay_url;
  const farcaster = providerState(config, 'farcaster');
  if (farcaster.state === 'deferred') deferred.push({ key: 'providers.farcaster', reason: farcaster.reason });
  else if (farcaster.state === 'enabled' && providerUrlProblem(relay))
    // As for the other upstreams: http only on loopback, so a relay stand-in can run on the operator's machine.
    problem('providers.farcaster.relay_url', providerUrlProblem(relay) as string);
  const farcasterRpc = absoluteUrl(config.providers.farcaster.rpc_url);
  if (farcaster.state === 'enabled' && farcasterRpc?.protocol !== 'https:' && farcasterRpc?.protocol !== 'http:')
    problem('providers.farcaster.rpc_url', 'must be an http:// or https:// URL');
  const domain = config.providers.farcaster.domain;
  if (domain !== '' && !/^[a-z0-9.-]+(:[0-9]{1,5})?$/i.test(domain))
    problem('providers.farcaster.domain', 'must be a host name, optionally with :port (no scheme or path)');
}

/**
 * Why a configured path prefix is not in the plain form the gateway compares against (docs/gateway.md "Matching"):
 * requests are normalised before matching, so a prefix holding what normalisation removes could never match.
 */
export function plainPathPrefixProblem(prefix: string): string | null {
  if (!prefix.startsWith('/')) return 'must start with "/"';
  if (/[%\\?#\s]/.test(prefix) || /[^\x21-\x7e]/.test(prefix))
    return 'must be a plain path: no percent-encoding, backslash, query, fragment or spaces';
  const segments = prefix.slice(1).replace(/\/$/, '').split('/');
  if (prefix !== '/' && segments.some((s) => s === '' || s === '.' || s === '..'))
    return 'must be a plain path: no empty ("//"), "." or ".." segments';
  // What the gateway's path rule (src/gateway/request-path.ts) refuses in a request could never match.
  if (/[^A-Za-z0-9\-._~!$&'()*+,=:@/]/.test(prefix))
    return 'must be a plain path: letters, digits and - . _ ~ ! $ & \' ( ) * + , = : @ only (no ";" or brackets)';
  if (segments.some((s) => s.endsWith('.') || s.startsWith('..')))
    return 'must be a plain path: no segment ending in "." or starting with ".."';
  return null;
}

/** RFC 9110 §5.1 field name (token), or such a name followed by "*" for a prefix. */
const HEADER_NAME_OR_PREFIX = /^[A-Za-z0-9!#$%&'+.^_`|~-]+\*?$/;

/** A prefix as the gateway compares it: lower case, no trailing slash (except the root itself). */
export const comparablePrefix = (prefix: string) => (prefix === '/' ? '/' : prefix.toLowerCase().replace(/\/$/, ''));

/** Whether `path` (comparable form) is `prefix` or lies under it, by whole segments. */
export const underPrefix = (path: string, prefix: string) =>
  prefix === '/' || path === prefix || path.startsWith(`${prefix}/`);

type RoutePolicy = Config['auth']['route_policies'][number];

/** First path segments of the service's own routes and pages (every module's routes.ts, and src/web/pages.ts). */
const SERVICE_SEGMENTS = new Set([
  '',
  '.well-known',
  'oauth',
  'auth',
  'account',
  'admin',
  'health',
  'assets',
  'metrics',
  'signin',
  'signup',
  'enroll',
  'forgot-password',
  'settings',
]);

/** What a policy demands, in a form where two policies demanding the same thing compare equal. */
function requirements(policy: RoutePolicy): string {
  const roles = [...new Set(policy.required_roles)].sort();
  return JSON.stringify([
    roles,
    roles.length > 1 ? policy.role_match : 'any',
    policy.minimum_assurance,
    policy.required_scope,
    policy.required_audience,
    policy.exchange_audience,
  ]);
}

function checkGateway(config: Config, problem: Report): void {
  const { gateway, auth } = config;
  const routeProblem = plainPathPrefixProblem(gateway.route_prefix);
  if (routeProblem) problem('gateway.route_prefix', routeProblem);
  const protectedProblem = plainPathPrefixProblem(auth.protected_route_prefix);
  if (protectedProblem) problem('auth.protected_route_prefix', protectedProblem);
  const routePrefix = comparablePrefix(gateway.route_prefix);
  const firstSegment = routePrefix.split('/')[1] ?? '';
  if (!routeProblem && SERVICE_SEGMENTS.has(firstSegment))
    problem(
      'gateway.route_prefix',
      `must not be "/" or lie under a path the service itself serves (/${[...SERVICE_SEGMENTS].filter(Boolean).join(', /')})`,
    );
  const protectedPrefix = comparablePrefix(auth.protected_route_prefix);
  if (
    (gateway.enabled || gateway.forward_auth) &&
    auth.enabled &&
    !routeProblem &&
    !protectedProblem &&
    !underPrefix(protectedPrefix, routePrefix)
  )
    problem('auth.protected_route_prefix', `must lie inside gateway.route_prefix (${gateway.route_prefix})`);
  gateway.strip_request_headers.forEach((name, index) => {
    if (!HEADER_NAME_OR_PREFIX.test(name))
      problem(`gateway.strip_request_headers[${index}]`, 'must be a header name, or a name prefix ending in "*"');
  });
  gateway.forward_auth_callers.forEach((entry, index) => {
    const wrong = callerProblem(entry);
    if (wrong) problem(`gateway.forward_auth_callers[${index}]`, wrong);
  });
  if (auth.enabled && auth.organization_id === '')
    problem('auth.organization_id', 'is required when auth.enabled is true');
  if (gateway.token_exchange_client_id !== '' && !/^cli_[A-Za-z0-9_-]{1,60}$/.test(gateway.token_exchange_client_id))
    problem('gateway.token_exchange_client_id', 'must be a client id as the admin API shows it (cli_…)');
  // Method + comparable prefix → the first policy covering it, to find two that would both match one request.
  const covered = new Map<string, { index: number; requirements: string }>();
  auth.route_policies.forEach((policy, index) => {
    const key = `auth.route_policies[${index}]`;
    const pathProblem = plainPathPrefixProblem(policy.path_prefix);
    if (pathProblem) problem(`${key}.path_prefix`, pathProblem);
    else if (!protectedProblem && !underPrefix(comparablePrefix(policy.path_prefix), protectedPrefix))
      problem(`${key}.path_prefix`, `must lie inside auth.protected_route_prefix (${auth.protected_route_prefix})`);
    if (policy.required_scope !== '' && !/^[\x21\x23-\x5B\x5D-\x7E]+$/.test(policy.required_scope))
      problem(`${key}.required_scope`, 'must be a single scope token (RFC 6749 §3.3)');
    if (policy.required_audience !== '' && !absoluteUri(policy.required_audience))
      problem(`${key}.required_audience`, 'must be an absolute URI, e.g. https://api.example.com/');
    else if (policy.required_audience !== '') {
      const form = audienceFormProblem(policy.required_audience, config.server.issuer);
      if (form) problem(`${key}.required_audience`, form);
    }
    for (const exchange of exchangeProblems(config, policy)) problem(`${key}.exchange_audience`, exchange);
    // A native proxy forwards the caller's own Authorization header; it cannot swap in a token per route.
    if (gateway.forward_auth && auth.enabled && policy.exchange_audience !== '')
      problem(
        `${key}.exchange_audience`,
        'is not available with gateway.forward_auth: the proxy in front forwards the caller\'s own token, so a route that must forward an exchanged one has to go through the built-in gateway (docs/gateway.md "Forward auth")',
      );
    if (pathProblem) return;
    const demands = requirements(policy);
    for (const method of new Set(policy.methods)) {
      const route = `${method} ${comparablePrefix(policy.path_prefix)}`;
      const earlier = covered.get(route);
      if (!earlier) covered.set(route, { index, requirements: demands });
      else if (earlier.requirements !== demands)
        problem(
          `${key}.methods`,
          `${route} is also matched by auth.route_policies[${earlier.index}] with different requirements (ambiguous)`,
        );
    }
  });
}

/** What is wrong with a route policy's exchange_audience (docs/gateway.md "Forwarding an exchanged token"). */
function exchangeProblems(config: Config, policy: RoutePolicy): string[] {
  const audience = policy.exchange_audience;
  if (audience === '') return [];
  if (!absoluteUri(audience)) return ['must be an absolute URI, e.g. https://billing.example.com/'];
  if (audience.replace(/\/$/, '') === config.server.issuer.replace(/\/$/, ''))
    return ["must be a registered resource, not the issuer: the service's own tokens are not exchanged for"];
  const problems: string[] = [];
  const form = audienceFormProblem(audience, config.server.issuer);
  if (form) problems.push(form);
  if (policy.required_audience === '')
    problems.push('needs required_audience: the gateway exchanges only tokens issued for this route');
  if (config.gateway.token_exchange_client_id === '')
    problems.push('needs gateway.token_exchange_client_id: the client the gateway exchanges tokens as');
  return problems;
}

/** RFC 3986 §4.3 absolute-URI: a scheme, and no fragment. */
function absoluteUri(value: string): boolean {
  return /^[A-Za-z][A-Za-z0-9+.-]*:/.test(value) && !value.includes('#') && absoluteUrl(value) !== null;
}
