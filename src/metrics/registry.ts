// The service's Prometheus metrics (docs/metrics.md lists every name and label). One registry per app, never
// prom-client's global one, so tests and several apps in one process never share counters. A scrape reads the
// node's totals across workers (node-totals.ts). Recording is
// synchronous and cheap (a labelled child is cached per label set): it runs on every request.
import type { Sql } from '../db/pool.ts';
import { countOutboxDepth } from '../delivery/store.ts';
import { nodeMetricsReader } from './node-totals.ts';
import { Counter, collectDefaultMetrics, Gauge, Histogram, Registry } from './prom-client.ts';

/** Sign-in outcomes as the sign-in modules audit them (`signin.*` events, `reason` for failures). */
export const SIGN_IN_OUTCOMES = ['success', 'credentials', 'login_transaction', 'throttled'] as const;
export type SignInOutcome = (typeof SIGN_IN_OUTCOMES)[number];
/**
 * How the person signed in: the local password flow, an external provider (only its successes are audited), or any
 * other method (passkeys, wallets, SAML, LDAP: successes only).
 */
export const SIGN_IN_METHODS = ['password', 'federated', 'other'] as const;
export type SignInMethod = (typeof SIGN_IN_METHODS)[number];
/** Where a token exchange (RFC 8693) was asked for: the token endpoint, or the gateway for a route's upstream. */
export const EXCHANGE_VIAS = ['token_endpoint', 'gateway'] as const;
export type ExchangeVia = (typeof EXCHANGE_VIAS)[number];
/** `issued`, or the OAuth error code it was refused with. */
export const EXCHANGE_OUTCOMES = [
  'issued',
  'unauthorized_client',
  'invalid_target',
  'invalid_grant',
  'invalid_scope',
  'invalid_request',
  'invalid_dpop_proof',
  'other',
] as const;
export type ExchangeOutcome = (typeof EXCHANGE_OUTCOMES)[number];
/** The device authorization grant's steps (RFC 8628), as audited (src/oauth/device-*.ts, grants/device-code.ts). */
export const DEVICE_FLOW_STEPS = ['requested', 'approved', 'denied', 'redeemed', 'user_code_throttled'] as const;
export type DeviceFlowStep = (typeof DEVICE_FLOW_STEPS)[number];

export interface Metrics {
  readonly registry: Registry;
  /** The text a scrape answers: the node's totals across workers (node-totals.ts), or this process's alone. */
  read(): Promise<string>;
  /** `route` is the route pattern (`/admin/identities/:id`), never the raw URL; unmatched requests share one label. */
  observeRequest(method: string, route: string, status: number, seconds: number): void;
  tokenIssued(grantType: string): void;
  signIn(method: SignInMethod, outcome: SignInOutcome): void;
  lockout(): void;
  tokenExchange(via: ExchangeVia, outcome: ExchangeOutcome): void;
  /** The gateway forwarded an exchanged token it already held (true) or had to exchange first (false). */
  gatewayExchangedToken(reused: boolean): void;
  deviceFlow(step: DeviceFlowStep): void;
}

/** Request latency buckets (seconds): most routes answer within milliseconds, password checks take ~50 ms. */
const LATENCY_BUCKETS = [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5];

const STATUS_CLASSES = ['1xx', '2xx', '3xx', '4xx', '5xx'] as const;

export function createMetrics(sql: Sql): Metrics {
  const registry = new Registry();
  collectDefaultMetrics(registry);
  // The histogram's _count series is the request count: a separate counter would double the per-request cost.
  const latency = new Histogram({
    name: 'gatehouse_http_request_duration_seconds',
    help: 'Time from request to response, by method, route pattern and status class; _count counts requests.',
    labelNames: ['method', 'route', 'status_class'] as const,
    buckets: LATENCY_BUCKETS,
    registers: [registry],
  });
  const tokens = new Counter({
    name: 'gatehouse_tokens_issued_total',
    help: 'Token responses issued by POST /oauth/token, by grant type.',
    labelNames: ['grant_type'] as const,
    registers: [registry],
  });
  const signIns = new Counter({
    name: 'gatehouse_sign_ins_total',
    help: 'Sign-in attempts by method and outcome: success, or why it failed.',
    labelNames: ['method', 'outcome'] as const,
    registers: [registry],
  });
  const lockouts = new Counter({
    name: 'gatehouse_lockouts_total',
    help: 'Sign-in locks started (the unknown clients of an account, a known browser or an address reached its failure threshold).',
    registers: [registry],
  });
  const exchanges = new Counter({
    name: 'gatehouse_token_exchanges_total',
    help: 'Token exchanges (RFC 8693) by where they were asked for (token_endpoint, gateway) and outcome: issued, or the OAuth error code of the refusal.',
    labelNames: ['via', 'outcome'] as const,
    registers: [registry],
  });
  const gatewayTokens = new Counter({
    name: 'gatehouse_gateway_exchanged_tokens_total',
    help: 'Requests the gateway forwarded with an exchanged token, by source: cache (a token it held for this caller token and audience) or exchange (a new one).',
    labelNames: ['source'] as const,
    registers: [registry],
  });
  const deviceFlows = new Counter({
    name: 'gatehouse_device_authorizations_total',
    help: 'Device authorization grant (RFC 8628) steps: requested (a device got codes), approved and denied (on /device), redeemed (the device got tokens), user_code_throttled (a guessing budget was used up).',
    labelNames: ['step'] as const,
    registers: [registry],
  });
  // Read from PostgreSQL on scrape: every node reports the same shared queue.
  new Gauge({
    name: 'gatehouse_outbox_messages',
    help: 'Outbox messages waiting to be delivered (pending) or given up (dead), read on scrape.',
    labelNames: ['state'] as const,
    registers: [registry],
    // Every worker reads the same shared queue: the node's value is one worker's, not their sum.
    aggregator: 'max',
    async collect() {
      const started = process.hrtime.bigint();
      const depth = await countOutboxDepth(sql);
      queryLatency.set(Number(process.hrtime.bigint() - started) / 1e9);
      this.set({ state: 'pending' }, depth.pending);
      this.set({ state: 'dead' }, depth.dead);
    },
  });
  // postgres.js exposes no pool statistics, so the scrape's own query time stands for the database's latency.
  const queryLatency = new Gauge({
    name: 'gatehouse_database_query_seconds',
    help: "Round trip of the scrape's outbox query to PostgreSQL (postgres.js exposes no pool statistics).",
    registers: [registry],
    aggregator: 'max',
  });

  const children = new Map<string, { observe(value: number): void }>();
  return {
    registry,
    read: nodeMetricsReader(registry),
    observeRequest(method, route, status, seconds) {
      const statusClass = STATUS_CLASSES[Math.floor(status / 100) - 1] ?? '5xx';
      const key = `${method} ${statusClass} ${route}`;
      let child = children.get(key);
      if (child === undefined) {
        child = latency.labels({ method, route, status_class: statusClass });
        children.set(key, child);
      }
      child.observe(seconds);
    },
    tokenIssued: (grantType) => tokens.inc({ grant_type: grantType }),
    signIn: (method, outcome) => signIns.inc({ method, outcome }),
    lockout: () => lockouts.inc(),
    tokenExchange: (via, outcome) => exchanges.inc({ via, outcome }),
    gatewayExchangedToken: (reused) => gatewayTokens.inc({ source: reused ? 'cache' : 'exchange' }),
    deviceFlow: (step) => deviceFlows.inc({ step }),
  };
}
