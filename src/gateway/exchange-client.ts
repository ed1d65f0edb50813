// gateway.token_exchange_client_id must name a registered confidential client that an administrator allowed every
// exchange_audience of the route policies (token_exchange_audiences): otherwise those routes answer 403
// token_exchange_refused. Clients are registered through the running service, after the configuration is written, so
// this cannot refuse the start: the start logs each problem and `gatehouse doctor` reports it as a failure.
import { isConfidential } from '../clients/client-rules.ts';
import { findClient } from '../clients/store.ts';
import type { Config } from '../config/schema.ts';
import type { Sql } from '../db/pool.ts';
import { type Check, check } from '../delivery/check.ts';
import { gatewayInUse } from './in-use.ts';

const KEY = 'gateway.token_exchange_client_id';

/** The exchange audiences the route policies name, each once, in order. */
const exchangeAudiences = (config: Config) => [
  ...new Set(config.auth.route_policies.map((p) => p.exchange_audience).filter(Boolean)),
];

/** What keeps the gateway's exchanges from succeeding; empty when nothing does (or nothing is exchanged). */
export async function exchangeClientProblems(sql: Sql, config: Config): Promise<string[]> {
  const audiences = exchangeAudiences(config);
  const clientId = config.gateway.token_exchange_client_id;
  if (!gatewayInUse(config) || !config.auth.enabled || audiences.length === 0 || clientId === '') return [];
  const client = await findClient(sql, clientId);
  if (!client) return [`${KEY} = ${clientId} names no registered client (POST /admin/clients)`];
  if (!isConfidential(client.kind))
    return [`${KEY} = ${clientId} is a ${client.kind} client: only web and service clients may exchange tokens`];
  return audiences
    .filter((audience) => !client.tokenExchangeAudiences.includes(audience))
    .map((audience) => `${KEY} = ${clientId} is not allowed token exchange for ${audience} (token_exchange_audiences)`);
}

/** `gatehouse doctor`'s lines: a failure per problem, or one ok line when routes exchange and nothing is missing. */
export function exchangeClientChecks(config: Config, problems: string[]): Check[] {
  if (!gatewayInUse(config) || !config.auth.enabled || exchangeAudiences(config).length === 0) return [];
  if (problems.length === 0)
    return [
      check(
        'ok',
        'token exchange',
        `${KEY} = ${config.gateway.token_exchange_client_id}, allowed ${exchangeAudiences(config).join(', ')}`,
      ),
    ];
  return problems.map((problem) => check('fail', 'token exchange', problem));
}
