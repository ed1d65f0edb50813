// What `gatehouse doctor` says about the gateway: where it proxies to and the compiled route policy table, in the
// order requests are matched (longest prefix first), so an operator sees exactly what each request meets.
import type { Config } from '../config/schema.ts';
import { type Check, check } from '../delivery/check.ts';
import { gatewayInUse } from './in-use.ts';
import { compileRouteTable, describeRouteTable } from './route-table.ts';

export function gatewayChecks(config: Config): Check[] {
  const { gateway, auth } = config;
  // Nothing to say about a gateway that is off (the default): doctor lists what is in use.
  if (!gatewayInUse(config)) return [];
  const scheme = gateway.upstream_tls ? 'https' : 'http';
  const checks = gateway.enabled
    ? [
        check(
          'ok',
          'gateway',
          `${gateway.route_prefix} -> ${scheme}://${gateway.upstream_host}:${gateway.upstream_port}`,
        ),
      ]
    : [];
  if (gateway.forward_auth)
    checks.push(
      check(
        'ok',
        'forward auth',
        `/auth/forward judges ${gateway.route_prefix} for ${gateway.forward_auth_callers.join(', ')}; answers kept at most ${gateway.forward_auth_cache_seconds} s`,
      ),
    );
  if (!auth.enabled) {
    checks.push(check('warn', 'gateway', 'auth.enabled = false: every request is proxied with no policy check'));
    return checks;
  }
  const provider = auth.provider_id === '' ? '' : `, provider ${auth.provider_id}`;
  checks.push(
    check(
      'info',
      'gateway',
      `${auth.protected_route_prefix}: a method and path with no policy below is refused (403 no_route_policy); roles from organization ${auth.organization_id}${provider}`,
    ),
  );
  const lines = describeRouteTable(compileRouteTable(config));
  if (lines.length === 0) checks.push(check('warn', 'policy', 'no route policies: every protected request is refused'));
  for (const line of lines) checks.push(check('info', 'policy', line));
  return checks;
}
