// Sign-in outcomes, lockouts, token exchanges and device authorization steps are counted where they are already recorded: every sign-in result is
// an audit event (`signin.succeeded` with its method, `signin.failed` with its reason, `signin.throttled`,
// `signin.locked`), as is every token exchange (`oauth.token_exchanged`, `oauth.token_exchange_refused`). Wrapping the
// audit once keeps the sign-in and exchange code free of metrics calls and cannot miss a path that audits.
import type { Audit, AuditEvent } from '../audit/audit.ts';
import {
  EXCHANGE_OUTCOMES,
  EXCHANGE_VIAS,
  type ExchangeOutcome,
  type ExchangeVia,
  type Metrics,
  type SignInMethod,
  type SignInOutcome,
} from './registry.ts';

const FAILURE_REASONS = new Set<string>(['credentials', 'login_transaction']);
const METHODS = new Set<string>(['password', 'federated']);

/** Only known values become label values, so a new audit detail cannot grow the label set unnoticed. */
const methodOf = (event: AuditEvent): SignInMethod => {
  const method = String(event.details?.method ?? '');
  return METHODS.has(method) ? (method as SignInMethod) : 'other';
};

/** A token exchange's audit record (src/oauth/token-exchange.ts) as its metric's labels, unknown values bounded. */
function countExchange(metrics: Metrics, event: AuditEvent, outcome: string): void {
  const via = String(event.details?.via ?? '');
  if (!(EXCHANGE_VIAS as readonly string[]).includes(via)) return;
  const known = (EXCHANGE_OUTCOMES as readonly string[]).includes(outcome);
  metrics.tokenExchange(via as ExchangeVia, known ? (outcome as ExchangeOutcome) : 'other');
}

function count(metrics: Metrics, event: AuditEvent): void {
  switch (event.event) {
    case 'signin.succeeded':
      metrics.signIn(methodOf(event), 'success');
      return;
    // The local password flow audits its failures without a method; passkey and SAML refusals name theirs.
    case 'signin.failed': {
      const reason = String(event.details?.reason ?? '');
      const method = event.details?.method === undefined ? 'password' : methodOf(event);
      metrics.signIn(method, FAILURE_REASONS.has(reason) ? (reason as SignInOutcome) : 'credentials');
      return;
    }
    // Throttling is audited by the local password flow only.
    case 'signin.throttled':
      metrics.signIn('password', 'throttled');
      return;
    case 'signin.locked':
      metrics.lockout();
      return;
    case 'oauth.token_exchanged':
      countExchange(metrics, event, 'issued');
      return;
    case 'oauth.token_exchange_refused':
      countExchange(metrics, event, String(event.details?.error ?? ''));
      return;
    case 'oauth.device_authorization_requested':
      metrics.deviceFlow('requested');
      return;
    case 'oauth.device_authorization_approved':
      metrics.deviceFlow('approved');
      return;
    case 'oauth.device_authorization_denied':
      metrics.deviceFlow('denied');
      return;
    case 'oauth.device_code_redeemed':
      metrics.deviceFlow('redeemed');
      return;
    case 'oauth.device_user_code_throttled':
      metrics.deviceFlow('user_code_throttled');
      return;
  }
}

export function countAuditedOutcomes(audit: Audit, metrics: Metrics): Audit {
  return {
    record(event) {
      count(metrics, event);
      return audit.record(event);
    },
    recordIn(tx, event) {
      count(metrics, event);
      return audit.recordIn(tx, event);
    },
    chainPending: () => audit.chainPending(),
  };
}
