// What a person has granted, as they think of it: one entry per client ("this application has access"), not one
// per authorization (docs/decisions.md "Granted access is listed and revoked per client"). The account API shows a
// person theirs and the admin API an identity's; revoking an entry ends every grant the client holds for them and
// forgets their consent, so a third-party client asks again (ASVS 5 V10.7.3).
import { OIDC_SCOPES } from '../clients/scopes.ts';
import { findClientLabels, findResourcesByScopes } from '../clients/store.ts';
import type { Executor, Sql } from '../db/pool.ts';
import type { Sub } from '../identity/ids.ts';
import { describeDevice } from '../session/device.ts';
import { findSessionLabels } from '../session/store.ts';
import {
  type EndedAccess,
  endClientAccess,
  listConsents,
  listUnrevokedGrants,
  type UnrevokedGrant,
} from './granted-access-store.ts';
import { scopeWords } from './pages.ts';

export interface GrantedAccessDeps {
  sql: Sql;
  clock: () => Date;
  /** An access token outlives the last issuance by this long, so a grant without refresh token counts that long. */
  accessTokenTtlSeconds: number;
}

const iso = (date: Date | null) => date?.toISOString() ?? null;

/**
 * A grant still gives the client access while its family is unexpired and it holds a usable refresh token, or an
 * access token issued from it may still be unexpired. An unrevoked grant past both (a sign-in without
 * offline_access, an hour later) gives nothing, so it is not shown as access.
 */
const givesAccess = (g: UnrevokedGrant, now: Date, ttlSeconds: number) =>
  g.expiresAt > now && (g.refreshable || g.lastIssuedAt.getTime() + ttlSeconds * 1000 > now.getTime());

/** Scopes in order of first appearance, without repeats. */
const unionOf = (lists: string[][]) => [...new Set(lists.flat())];

/** Each scope with the words the consent page uses for it. */
async function describeScopes(sql: Sql, scopes: string[]) {
  const own = new Set<string>(OIDC_SCOPES);
  const resources = await findResourcesByScopes(
    sql,
    scopes.filter((s) => !own.has(s)),
  );
  return (scope: string) => ({
    scope,
    description: scopeWords(
      scope,
      resources.filter((r) => r.scopes.includes(scope)).map((r) => r.name),
    ),
  });
}

/**
 * The clients holding access for `identityId` (a grant that gives access, or a remembered consent), most recently
 * used first. `currentSessionId` marks the caller's own session in each entry; the admin view passes none.
 */
export async function listGrantedAccess(deps: GrantedAccessDeps, identityId: Sub, currentSessionId?: string) {
  const now = deps.clock();
  const [grants, consents] = await Promise.all([
    listUnrevokedGrants(deps.sql, identityId, now),
    listConsents(deps.sql, identityId),
  ]);
  const live = grants.filter((g) => givesAccess(g, now, deps.accessTokenTtlSeconds));
  const clientIds = [...new Set([...live.map((g) => g.clientId), ...consents.map((c) => c.clientId)])];
  const sessionIds = [...new Set(live.map((g) => g.sessionId))];
  const [clients, sessions, describe] = await Promise.all([
    findClientLabels(deps.sql, clientIds),
    findSessionLabels(deps.sql, identityId, sessionIds, now),
    describeScopes(deps.sql, unionOf([...live.map((g) => g.scopes), ...consents.map((c) => c.scopes)])),
  ]);
  const sessionById = new Map(sessions.map((s) => [s.id, s]));
  const entries = clients.map((client) => {
    const unrevoked = grants.filter((g) => g.clientId === client.clientId);
    const holding = live.filter((g) => g.clientId === client.clientId);
    const consent = consents.find((c) => c.clientId === client.clientId);
    const firstUsed = unrevoked.reduce<Date | null>((a, g) => (a && a <= g.createdAt ? a : g.createdAt), null);
    const lastUsed = unrevoked.reduce<Date | null>((a, g) => (a && a >= g.lastIssuedAt ? a : g.lastIssuedAt), null);
    // Newest use first: the session the client was last authorized or refreshed from leads.
    const fromSessions = [...new Set([...holding].sort(byLastIssued).map((g) => g.sessionId))];
    return {
      lastUsed,
      json: {
        client_id: client.clientId,
        client_name: client.name,
        application_id: client.applicationId,
        application_name: client.applicationName,
        first_party: client.firstParty,
        active_grants: holding.length,
        scopes: unionOf(holding.map((g) => g.scopes)).map(describe),
        consented_scopes: (consent?.scopes ?? []).map(describe),
        first_used_at: iso(firstUsed),
        last_used_at: iso(lastUsed),
        sessions: fromSessions.map((id) => {
          const s = sessionById.get(id);
          return {
            id,
            ...(currentSessionId === undefined ? {} : { current: id === currentSessionId }),
            live: s?.live ?? false,
            signed_in_at: iso(s?.createdAt ?? null),
            client_ip: s?.clientIp ?? null,
            user_agent: s?.userAgent ?? null,
            device: describeDevice(s?.userAgent ?? null),
          };
        }),
      },
    };
  });
  entries.sort(
    (a, b) =>
      (b.lastUsed?.getTime() ?? 0) - (a.lastUsed?.getTime() ?? 0) ||
      a.json.client_name.localeCompare(b.json.client_name) ||
      a.json.client_id.localeCompare(b.json.client_id),
  );
  return entries.map((e) => e.json);
}

const byLastIssued = (a: UnrevokedGrant, b: UnrevokedGrant) => b.lastIssuedAt.getTime() - a.lastIssuedAt.getTime();

/**
 * Ends `clientId`'s access for `identityId` on the caller's transaction (see endClientAccess); null when the client
 * held nothing for them (no unrevoked grant, consent or pending code), which the routes answer 404, so another
 * person's grants can neither be seen nor ended.
 */
export async function revokeGrantedAccess(
  tx: Executor,
  identityId: Sub,
  clientId: string,
  now: Date,
): Promise<EndedAccess | null> {
  const ended = await endClientAccess(tx, identityId, clientId, now);
  return ended.grantsRevoked > 0 || ended.consentRemoved || ended.codesDiscarded > 0 ? ended : null;
}
