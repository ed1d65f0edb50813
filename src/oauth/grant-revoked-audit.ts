// The audit record of a grant ended because of its tokens: a code or a refresh token presented again, or an RFC 7009
// revocation. One event with one shape wherever it is written; `reason` says which it was.
import type { Audit, AuditEvent } from '../audit/audit.ts';

export type GrantRevocationReason = 'authorization_code_reuse' | 'refresh_token_replay' | 'revocation';

export function recordGrantRevoked(
  audit: Pick<Audit, 'record'>,
  revoked: { clientId: string; grantId: string; reason: GrantRevocationReason },
  request: Pick<AuditEvent, 'clientIp' | 'requestId'> = {},
): Promise<void> {
  return audit.record({
    event: 'oauth.grant_revoked',
    actor: revoked.clientId,
    subject: revoked.grantId,
    ...request,
    details: { reason: revoked.reason },
  });
}
