// A route policy's required_audience (and exchange_audience) must be the audience of a registered resource: tokens are only issued for
// those (RFC 8707), so a policy naming any other refuses every request it covers. Resources are registered through
// the running service (POST /admin/resources), after the configuration is written, so an unregistered one cannot
// refuse the start: the start logs it and `gatehouse doctor` reports it as a failure.

import { findResourcesByAudience } from '../clients/store.ts';
import type { Config } from '../config/schema.ts';
import type { Sql } from '../db/pool.ts';
import { type Check, check } from '../delivery/check.ts';
import { gatewayInUse } from './in-use.ts';

export interface UnregisteredAudience {
  /** The config key naming it, e.g. `auth.route_policies[2].required_audience` or `….exchange_audience`. */
  key: string;
  audience: string;
}

export async function unregisteredAudiences(sql: Sql, config: Config): Promise<UnregisteredAudience[]> {
  if (!gatewayInUse(config) || !config.auth.enabled) return [];
  const named = config.auth.route_policies
    .flatMap((policy, index) => [
      { key: `auth.route_policies[${index}].required_audience`, audience: policy.required_audience },
      { key: `auth.route_policies[${index}].exchange_audience`, audience: policy.exchange_audience },
    ])
    // The issuer is the audience of the service's own tokens, not a resource.
    .filter((n) => Boolean(n.audience) && n.audience !== config.server.issuer);
  if (named.length === 0) return [];
  const registered = new Set(
    (await findResourcesByAudience(sql, [...new Set(named.map((n) => n.audience))])).map((r) => r.audience),
  );
  return named.filter((n) => !registered.has(n.audience));
}

export const UNREGISTERED_AUDIENCE =
  'names no registered resource: every request under this policy is refused until it is registered (POST /admin/resources)';

/** `gatehouse doctor`'s lines: one failure per unregistered audience, or one ok line when every one is registered. */
export function audienceChecks(config: Config, missing: UnregisteredAudience[]): Check[] {
  const named = config.auth.route_policies
    .flatMap((p) => [p.required_audience, p.exchange_audience])
    .filter((audience) => Boolean(audience) && audience !== config.server.issuer).length;
  if (!gatewayInUse(config) || !config.auth.enabled || named === 0) return [];
  if (missing.length === 0)
    return [
      check('ok', 'audiences', `${named} required_audience/exchange_audience value(s), each a registered resource`),
    ];
  return missing.map((m) => check('fail', 'audiences', `${m.key} = ${m.audience} ${UNREGISTERED_AUDIENCE}`));
}
