// Sign-in outcomes and lockouts are counted where they are already recorded: every local sign-in result is an
// audit event (`signin.succeeded`, `signin.failed` with its reason, `signin.throttled`, `signin.locked`). Wrapping
// the audit once keeps the sign-in code free of metrics calls and cannot miss a path that audits.
import type { Audit, AuditEvent } from '../audit/audit.ts';
import type { Metrics, SignInOutcome } from './registry.ts';

const FAILURE_REASONS = new Set<string>(['credentials', 'login_transaction']);

function count(metrics: Metrics, event: AuditEvent): void {
  switch (event.event) {
    case 'signin.succeeded':
      metrics.signIn('success');
      return;
    case 'signin.failed': {
      const reason = String(event.details?.reason ?? '');
      // Only known reasons become label values, so a new audit detail cannot grow the label set unnoticed.
      metrics.signIn(FAILURE_REASONS.has(reason) ? (reason as SignInOutcome) : 'credentials');
      return;
    }
    case 'signin.throttled':
      metrics.signIn('throttled');
      return;
    case 'signin.locked':
      metrics.lockout();
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
