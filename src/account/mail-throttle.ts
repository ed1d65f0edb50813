// Requests that send mail to an address someone typed (sign-up, password reset, email change) are throttled per
// address and per client IP, with the same PostgreSQL counters as sign-in, so nobody can use Gatehouse to flood a
// mailbox. The limit applies whether or not the address has an account, so a 429 reveals nothing about it. The
// keys have their own namespace: a busy office sending many resets never locks its own sign-ins.
import { normalizeEmail } from '../identity/ids.ts';
import { admitAttempt } from '../login/local/lockout.ts';
import type { AccountDeps, RequestFacts } from './deps.ts';

export async function admitMailRequest(deps: AccountDeps, facts: RequestFacts, address: string): Promise<void> {
  await admitAttempt(
    deps.sql,
    deps.audit,
    facts,
    { account: `mail:${normalizeEmail(address)}`, ip: `mail:${facts.clientIp}` },
    deps.clock(),
  );
}
