// The route policies of [auth], compiled once at startup into the table requests are matched against (docs/gateway.md
// "Matching"). config/validate.ts has already refused what cannot be compiled (prefixes outside the protected prefix,
// ambiguous pairs, two prefixes that differ only in case with different requirements); identical duplicates collapse
// into the first.

import type { Config, RoutePolicyConfig } from '../config/schema.ts';
import { comparablePrefix, underPrefix } from '../config/validate.ts';

export type Assurance = 'ial1' | 'ial2' | 'aal1' | 'aal2';

export interface RoutePolicy {
  /** Position in auth.route_policies, for logs and `gatehouse doctor`. */
  index: number;
  /** As configured, without a trailing slash: paths must spell it in this case. */
  prefix: string;
  methods: readonly string[];
  requiredRoles: readonly string[];
  roleMatch: 'any' | 'all';
  minimumAssurance: Assurance | null;
  requiredScope: string | null;
  requiredAudience: string | null;
  /** RFC 8693: the audience of the token forwarded instead of the presented one; null forwards the presented one. */
  exchangeAudience: string | null;
}

export interface RouteTable {
  routePrefix: string;
  /** Null when auth is disabled: nothing is checked. */
  protectedPrefix: string | null;
  /** Prefixes longest first, each with the policy for every method it declares. */
  prefixes: { prefix: string; byMethod: Map<string, RoutePolicy> }[];
  /** Every prefix above, each with its lower-case form, to find a path that matches one only when case is ignored. */
  caseFolded: { prefix: string; folded: string }[];
}

export type RouteMatch =
  | { kind: 'outside' }
  | { kind: 'case_variant' }
  | { kind: 'unprotected' }
  | { kind: 'policy'; policy: RoutePolicy }
  | { kind: 'no_policy' };

function compilePolicy(policy: RoutePolicyConfig, index: number): RoutePolicy {
  return {
    index,
    prefix: exactPrefix(policy.path_prefix),
    methods: [...new Set(policy.methods)],
    requiredRoles: [...new Set(policy.required_roles)],
    roleMatch: policy.role_match,
    minimumAssurance: policy.minimum_assurance === '' ? null : policy.minimum_assurance,
    requiredScope: policy.required_scope === '' ? null : policy.required_scope,
    requiredAudience: policy.required_audience === '' ? null : policy.required_audience,
    exchangeAudience: policy.exchange_audience === '' ? null : policy.exchange_audience,
  };
}

/** A prefix as paths must spell it: as configured, without a trailing slash (except the root itself). */
const exactPrefix = (prefix: string) => (prefix === '/' ? '/' : prefix.replace(/\/$/, ''));

const lowerAscii = (text: string) => text.replace(/[A-Z]+/g, (letters) => letters.toLowerCase());

export function compileRouteTable(config: Config): RouteTable {
  // Keyed by the comparable (lower-case) form, so prefixes differing only in case share one entry and the first
  // spelling; validation refuses such a pair when their requirements differ.
  const byPrefix = new Map<string, { prefix: string; byMethod: Map<string, RoutePolicy> }>();
  config.auth.route_policies.forEach((raw, index) => {
    const policy = compilePolicy(raw, index);
    const key = comparablePrefix(policy.prefix);
    const entry = byPrefix.get(key) ?? { prefix: policy.prefix, byMethod: new Map<string, RoutePolicy>() };
    for (const method of policy.methods) if (!entry.byMethod.has(method)) entry.byMethod.set(method, policy);
    byPrefix.set(key, entry);
  });
  const routePrefix = exactPrefix(config.gateway.route_prefix);
  const protectedPrefix = config.auth.enabled ? exactPrefix(config.auth.protected_route_prefix) : null;
  const prefixes = [...byPrefix.values()].sort((a, b) => b.prefix.length - a.prefix.length);
  const all = [routePrefix, ...(protectedPrefix === null ? [] : [protectedPrefix]), ...prefixes.map((p) => p.prefix)];
  return {
    routePrefix,
    protectedPrefix,
    prefixes,
    caseFolded: all.map((prefix) => ({ prefix, folded: lowerAscii(prefix) })),
  };
}

/**
 * Whether some prefix covers the path only when letter case is ignored. Such a path is refused: an upstream that
 * routes without case would serve it from that prefix's sub-tree, one that routes with case from elsewhere, so
 * matching either way could judge it by a policy other than the one that serves it.
 */
function isCaseVariant(table: RouteTable, path: string): boolean {
  const folded = lowerAscii(path);
  return table.caseFolded.some((p) => underPrefix(folded, p.folded) && !underPrefix(path, p.prefix));
}

/**
 * The policy for a request: the longest prefix covering the path decides, then the method. A method the longest
 * prefix does not declare is refused even when a shorter prefix declares it, so a policy for a sub-tree (say
 * /app/api/admin) can never be bypassed by a method only its parent (/app/api) allows. `path` is the decoded
 * canonical path (request-path.ts), compared by whole segments in the case the prefixes are configured in.
 */
export function matchRoute(table: RouteTable, method: string, path: string): RouteMatch {
  if (isCaseVariant(table, path)) return { kind: 'case_variant' };
  if (!underPrefix(path, table.routePrefix)) return { kind: 'outside' };
  if (table.protectedPrefix === null || !underPrefix(path, table.protectedPrefix)) return { kind: 'unprotected' };
  for (const { prefix, byMethod } of table.prefixes) {
    if (!underPrefix(path, prefix)) continue;
    const policy = byMethod.get(method);
    return policy ? { kind: 'policy', policy } : { kind: 'no_policy' };
  }
  return { kind: 'no_policy' };
}

/** The compiled table as `gatehouse doctor` prints it: one line per prefix and method set, longest prefix first. */
export function describeRouteTable(table: RouteTable): string[] {
  const lines: string[] = [];
  for (const { byMethod } of table.prefixes) {
    const policies = [...new Set(byMethod.values())];
    for (const policy of policies) {
      const methods = [...byMethod].filter(([, p]) => p === policy).map(([m]) => m);
      const demands = [
        policy.requiredRoles.length > 0 ? `roles ${policy.roleMatch}(${policy.requiredRoles.join(',')})` : null,
        policy.minimumAssurance ? `assurance >= ${policy.minimumAssurance}` : null,
        policy.requiredScope ? `scope ${policy.requiredScope}` : null,
        policy.requiredAudience ? `audience ${policy.requiredAudience}` : null,
      ].filter((d) => d !== null);
      const forwards = policy.exchangeAudience ? `; forwards a token exchanged for ${policy.exchangeAudience}` : '';
      lines.push(
        `${methods.join(',')} ${policy.prefix} [policy ${policy.index}]: ${demands.length > 0 ? demands.join(', ') : 'any valid access token'}${forwards}`,
      );
    }
  }
  return lines;
}
