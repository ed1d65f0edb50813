// Sessions as routes see them: read the cookie, require a live session, start one at sign-in (always a new id, so a
// fixated cookie is worthless), rotate it on privilege change, end it. Created once in app.ts and passed to modules.
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { Audit } from '../audit/audit.ts';
import type { Clock } from '../clock.ts';
import type { Executor, Sql } from '../db/pool.ts';
import { assertSameOriginJson } from '../http/csrf.ts';
import { GatehouseError } from '../http/errors.ts';
import { clearSessionCookie, cookiePolicy, readSessionCookie, setSessionCookie } from './cookie.ts';
import { assertAllowed, type PartialAllowance } from './partial.ts';
import { findLiveSession, insertSession, type NewSession, revokeSessionById } from './store.ts';
import type { Session, SessionLifetimes } from './types.ts';

export type SessionStart = Omit<NewSession, 'clientIp' | 'userAgent'>;

/**
 * Decides, for every session about to start, whether it is complete or waits for a second step (and merges what a
 * finished step adds to the partial session it follows). Passed in from app.ts: the rule reads the identity's
 * factors, which the login modules own (src/login/step-up/pending-step.ts).
 */
export type SessionSettler = (sql: Executor, start: SessionStart, previous: Session | null) => Promise<SessionStart>;

export interface SessionHttp {
  /** The live session behind the request's cookie, or null. Looked up once per request. */
  current(request: FastifyRequest): Promise<Session | null>;
  /**
   * The live session, or 401 login_required; a partial one only where `partial` allows it (src/session/partial.ts).
   * A request that carries the cookie must also pass the CSRF rule (for state-changing methods) first; one without it
   * is 401 whatever its origin.
   */
  require(request: FastifyRequest, options?: { partial?: PartialAllowance }): Promise<Session>;
  /** Whether the request carries a session cookie of ours at all (live or not): what decides 401 before CSRF. */
  carriesCookie(request: FastifyRequest): boolean;
  /** Starts a new session (revoking the request's current one) and sets the cookie. Pass `tx` to join a transaction. */
  establish(request: FastifyRequest, reply: FastifyReply, start: SessionStart, tx?: Executor): Promise<Session>;
  /** Ends the request's session, if any, and clears the cookie. */
  end(request: FastifyRequest, reply: FastifyReply): Promise<void>;
  readonly issuerOrigin: string;
}

export interface SessionHttpDeps {
  sql: Sql;
  audit: Audit;
  issuer: string;
  lifetimes: SessionLifetimes;
  clock: Clock;
  /**
   * Runs on the transaction that ends a session by sign-out: the OAuth module queues back-channel logout tokens for
   * the clients signed in through it (src/oauth/backchannel-logout.ts). Passed in, since OAuth depends on sessions.
   */
  onSignOut?: (sql: Executor, identityId: string, sessionId: string, now: Date) => Promise<void>;
  settle: SessionSettler;
}

export function createSessionHttp(deps: SessionHttpDeps): SessionHttp {
  const policy = cookiePolicy(deps.issuer);
  const issuerOrigin = new URL(deps.issuer).origin;
  const cache = new WeakMap<FastifyRequest, Promise<Session | null>>();

  const current = (request: FastifyRequest) => {
    let pending = cache.get(request);
    if (!pending) {
      const token = readSessionCookie(request, policy);
      pending = token ? findLiveSession(deps.sql, token, deps.lifetimes, deps.clock()) : Promise.resolve(null);
      cache.set(request, pending);
    }
    return pending;
  };

  return {
    issuerOrigin,
    current,
    carriesCookie: (request) => readSessionCookie(request, policy) !== null,
    async require(request, options = {}) {
      // Authentication before CSRF (docs/api.md "Order of checks"): a request without the cookie cannot be a forged
      // browser request riding a session, so a script that sent none is told to sign in (401), not that it is
      // cross-site. A request with the cookie passes the CSRF rule before the session is even looked up.
      if (readSessionCookie(request, policy) === null) throw new GatehouseError('login_required');
      assertSameOriginJson(request, issuerOrigin);
      const session = await current(request);
      if (!session) throw new GatehouseError('login_required');
      assertAllowed(session, options.partial ?? 'none');
      return session;
    },
    async establish(request, reply, start, tx) {
      const now = deps.clock();
      const previous = await current(request);
      // One transaction: the settler locks the identity and decides from its factors, and the session it decided
      // on is inserted before anyone may add a factor (src/login/step-up/new-second-factor.ts). The lock comes
      // first, before the previous session's row, in the order a factor's addition takes them.
      const started = async (executor: Executor) => {
        const settled = await deps.settle(executor, start, previous);
        if (previous) await revokeSessionById(executor, previous.id, now);
        return await insertSession(
          executor,
          { ...settled, clientIp: request.clientIp || null, userAgent: request.headers['user-agent'] ?? null },
          deps.lifetimes,
          now,
        );
      };
      const { token, session } = tx ? await started(tx) : await deps.sql.begin(started);
      if (previous)
        // Rotation ends a session like a logout does, so it leaves the same trace.
        await deps.audit.record({
          event: 'session.revoked',
          actor: start.identityId,
          subject: previous.identityId,
          clientIp: request.clientIp || null,
          requestId: request.id,
          details: { session_id: previous.id, reason: 'rotated', successor: session.id },
        });
      setSessionCookie(reply, policy, token, (session.absoluteExpiresAt.getTime() - now.getTime()) / 1000);
      cache.set(request, Promise.resolve(session));
      return session;
    },
    async end(request, reply) {
      const session = await current(request);
      if (session) {
        const now = deps.clock();
        const onSignOut = deps.onSignOut;
        if (onSignOut)
          await deps.sql.begin(async (tx) => {
            await revokeSessionById(tx, session.id, now);
            await onSignOut(tx, session.identityId, session.id, now);
          });
        else await revokeSessionById(deps.sql, session.id, now);
      }
      clearSessionCookie(reply, policy);
      cache.set(request, Promise.resolve(null));
    },
  };
}
