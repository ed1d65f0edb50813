// Row factories for OAuth tests: identities with a signed-in browser session, admins, applications, clients and
// resources inserted directly (the admin API has its own tests), so each test states only what it exercises.
import { randomBytes } from 'node:crypto';
import { newApplicationId, newClientId, newResourceId } from '../../src/clients/ids.ts';
import { type ClientKind, insertApplication, insertClient, insertResource } from '../../src/clients/store.ts';
import type { Sql } from '../../src/db/pool.ts';
import { newSub, type Sub } from '../../src/identity/ids.ts';
import { clientSecretHmac, newClientSecret } from '../../src/oauth/client-secret.ts';
import { insertSession } from '../../src/session/store.ts';
import type { Aal, PendingStep } from '../../src/session/types.ts';
import type { TestApp } from './app.ts';

export interface IdentityOverrides {
  displayName?: string;
  email?: string | null;
  assurance?: 'ial1' | 'ial2';
  state?: string;
}

export async function makeIdentity(sql: Sql, o: IdentityOverrides = {}): Promise<Sub> {
  const sub = newSub();
  await sql`insert into identities (id, state, display_name, assurance)
            values (${sub}, ${o.state ?? 'active'}, ${o.displayName ?? 'Ada Lovelace'}, ${o.assurance ?? 'ial1'})`;
  const email = o.email === undefined ? `ada-${sub.slice(4, 10)}@example.test` : o.email;
  if (email !== null)
    await sql`insert into emails (identity_id, address, normalized, is_primary, verified_at)
              values (${sub}, ${email}, ${email.toLowerCase()}, true, now())`;
  return sub;
}

export interface SessionOverrides {
  aal?: Aal;
  amr?: string[];
  authTime?: Date;
  pending?: PendingStep | null;
}

/** A signed-in browser session; returns the Cookie header value and the session. */
export async function makeSession(t: Pick<TestApp, 'sql' | 'clock' | 'config'>, sub: Sub, o: SessionOverrides = {}) {
  const now = t.clock.now();
  const { token, session } = await insertSession(
    t.sql,
    {
      identityId: sub,
      aal: o.aal ?? 'aal2',
      amr: o.amr ?? ['pwd', 'otp'],
      authTime: o.authTime ?? now,
      pending: o.pending ?? null,
      clientIp: null,
      userAgent: null,
    },
    { idleSeconds: t.config.sessions.idle_ttl_seconds, absoluteSeconds: t.config.sessions.absolute_ttl_seconds },
    now,
  );
  return { cookie: `gatehouse_session=${token}`, session };
}

/** An active ial2 owner of the configured organization, signed in at aal2: what the admin guard accepts. */
export async function makeAdmin(t: Pick<TestApp, 'sql' | 'clock' | 'config'>) {
  const sub = await makeIdentity(t.sql, { assurance: 'ial2', displayName: 'Owner' });
  await t.sql`insert into organizations (id, name) values (${t.config.organization.id}, 'Acme') on conflict do nothing`;
  // Joined at the test clock's now, not the database's: lists ordered by joining compare it with memberships the
  // app adds at the test clock's time, and on a busy machine real time runs ahead of a clock the test has not moved.
  await t.sql`insert into memberships (organization_id, identity_id, roles, created_at)
              values (${t.config.organization.id}, ${sub}, ${['owner']}, ${t.clock.now()})`;
  return { sub, ...(await makeSession(t, sub)) };
}

export async function makeApplication(sql: Sql, environment: 'development' | 'staging' | 'production' = 'production') {
  return insertApplication(sql, {
    id: newApplicationId(),
    identifier: `app-${randomBytes(4).toString('hex')}`,
    name: 'Test app',
    environment,
    createdAt: new Date(),
  });
}

export interface ClientOverrides {
  kind?: ClientKind;
  redirectUris?: string[];
  postLogoutRedirectUris?: string[];
  scopes?: string[];
  audiences?: string[];
  firstParty?: boolean;
  name?: string;
  dpopBoundAccessTokens?: boolean;
  requirePushedAuthorizationRequests?: boolean;
  backchannelLogoutUri?: string;
  /** private_key_jwt with these keys (inline, or the URL): no secret. */
  jwks?: { keys: Record<string, unknown>[] };
  jwksUri?: string;
  tokenExchangeAudiences?: string[];
  deviceAuthorizationGrant?: boolean;
}

/** A client and, for confidential kinds, its secret. */
export async function makeClient(sql: Sql, secretKey: Buffer, o: ClientOverrides = {}) {
  const application = await makeApplication(sql);
  const kind = o.kind ?? 'web';
  const keyed = o.jwks !== undefined || o.jwksUri !== undefined;
  const secret = (kind === 'web' || kind === 'service') && !keyed ? newClientSecret() : null;
  const client = await insertClient(sql, {
    id: newClientId(),
    applicationId: application.id,
    name: o.name ?? 'Test client',
    kind,
    secretHmac: secret ? clientSecretHmac(secretKey, secret) : null,
    redirectUris: o.redirectUris ?? (kind === 'service' ? [] : ['https://app.example.test/callback']),
    postLogoutRedirectUris: o.postLogoutRedirectUris ?? [],
    scopes: o.scopes ?? (kind === 'service' ? [] : ['openid', 'profile', 'email', 'offline_access']),
    audiences: o.audiences ?? [],
    firstParty: o.firstParty ?? true,
    tokenEndpointAuthMethod: keyed ? 'private_key_jwt' : secret ? 'client_secret_post' : 'none',
    jwks: o.jwks ?? null,
    jwksUri: o.jwksUri ?? null,
    dpopBoundAccessTokens: o.dpopBoundAccessTokens ?? false,
    requirePushedAuthorizationRequests: o.requirePushedAuthorizationRequests ?? false,
    backchannelLogoutUri: o.backchannelLogoutUri ?? null,
    backchannelLogoutSessionRequired: false,
    tokenExchangeAudiences: o.tokenExchangeAudiences ?? [],
    deviceAuthorizationGrant: o.deviceAuthorizationGrant ?? false,
    createdAt: new Date(),
  });
  return { client, secret };
}

export async function makeResource(
  sql: Sql,
  audience = `https://api-${randomBytes(3).toString('hex')}.example.test/`,
  scopes = ['read', 'write'],
) {
  return insertResource(sql, { id: newResourceId(), audience, name: 'Test API', scopes, createdAt: new Date() });
}

/** Another service client provisioned for `audience`: a resource server that may introspect that audience's tokens. */
export async function makeAudiencePeer(sql: Sql, secretKey: Buffer, audience: string, scopes = ['read']) {
  const { client, secret } = await makeClient(sql, secretKey, { kind: 'service', audiences: [audience], scopes });
  return { client, secret: secret as string };
}

/** A service client provisioned for a fresh resource. */
export async function makeServiceClient(sql: Sql, secretKey: Buffer, scopes = ['read', 'write']) {
  const resource = await makeResource(sql, undefined, scopes);
  const { client, secret } = await makeClient(sql, secretKey, {
    kind: 'service',
    audiences: [resource.audience],
    scopes,
  });
  return { client, secret: secret as string, resource };
}
