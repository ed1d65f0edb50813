// The route policies of [auth], compiled once at startup into the table requests are matched against (docs/gateway.md
// "Matching"). config/validate.ts has already refused what cannot be compiled (prefixes outside the protected prefix,
// ambiguous pairs); identical duplicates collapse into the first.

import type { Config, RoutePolicyConfig } from '../config/schema.ts';
import { comparablePrefix, underPrefix } from '../config/validate.ts';

export type Assurance = 'ial1' | 'ial2' | 'aal1' | 'aal2';

export interface RoutePolicy {
  /** Position in auth.route_policies, for logs and `gatehouse doctor`. */
  index: number;
  /** Comparable form: lower case, no trailing slash. */
  prefix: string;
  methods: readonly string[];
  requiredRoles: readonly string[];
  roleMatch: 'any' | 'all';
  minimumAssurance: Assurance | null;
  requiredScope: string | null;
  requiredAudience: string | null;
}

export interface RouteTable {
  routePrefix: string;
  /** Null when auth is disabled: nothing is checked. */
  protectedPrefix: string | null;
  /** Prefixes longest first, each with the policy for every method it declares. */
  prefixes: { prefix: string; byMethod: Map<string, RoutePolicy> }[];
}

export type RouteMatch =
  | { kind: 'outside' }
  | { kind: 'unprotected' }
  | { kind: 'policy'; policy: RoutePolicy }
  | { kind: 'no_policy' };

function compilePolicy(policy: RoutePolicyConfig, index: number): RoutePolicy {
  return {
    index,
    prefix: comparablePrefix(policy.path_prefix),
    methods: [...new Set(policy.methods)],
    requiredRoles: [...new Set(policy.required_roles)],
    roleMatch: policy.role_match,
    minimumAssurance: policy.minimum_assurance === '' ? null : policy.minimum_assurance,
    requiredScope: policy.required_scope === '' ? null : policy.required_scope,
    requiredAudience: policy.required_audience === '' ? null : policy.required_audience,
  };
}

export function compileRouteTable(config: Config): RouteTable {
  const byPrefix = new Map<string, Map<string, RoutePolicy>>();
  config.auth.route_policies.forEach((raw, index) => {
    const policy = compilePolicy(raw, index);
    const methods = byPrefix.get(policy.prefix) ?? new Map<string, RoutePolicy>();
    for (const method of policy.methods) if (!methods.has(method)) methods.set(method, policy);
    byPrefix.set(policy.prefix, methods);
  });
  return {
    routePrefix: comparablePrefix(config.gateway.route_prefix),
    protectedPrefix: config.auth.enabled ? comparablePrefix(config.auth.protected_route_prefix) : null,
    prefixes: [...byPrefix]
      .map(([prefix, byMethod]) => ({ prefix, byMethod }))
      .sort((a, b) => b.prefix.length - a.prefix.length),
  };
}

/**
 * The policy for a request: the longest prefix covering the path decides, then the method. A method the longest
 * prefix does not declare is refused even when a shorter prefix declares it, so a policy for a sub-tree (say
 * /app/api/admin) can never be bypassed by a method only its parent (/app/api) allows.
 */
export function matchRoute(table: RouteTable, method: string, path: string): RouteMatch {
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
      lines.push(
        `${methods.join(',')} ${policy.prefix} [policy ${policy.index}]: ${demands.length > 0 ? demands.join(', ') : 'any valid access token'}`,
      );
    }
  }
  return lines;
}
