// The authorization endpoint's decision (RFC 6749 §4.1, OIDC Core §3.1.2): sign in first, ask consent, or issue a
// code and redirect back with `code`, `state`, `iss` (RFC 9207). Routes only turn the outcome into a response.

import { findResourcesByAudience } from '../clients/store.ts';
import { constantTimeEqual, hmac, randomToken, tokenHash } from '../crypto/primitives.ts';
import type { Sql } from '../db/pool.ts';
import { GatehouseError, InvalidRequest } from '../http/errors.ts';
import { findProfile } from '../identity/store.ts';
import { isComplete, pendingStepPath } from '../session/partial.ts';
import type { Session } from '../session/types.ts';
import {
  type AuthorizationRequest,
  resolveClient,
  UnsafeToRedirect,
  type ValidatedRequest,
  validateRequest,
} from './authorize-request.ts';
import type { ClientDirectory } from './client-directory.ts';
import { insertAuthorizationCode } from './code-store.ts';
import { findConsentedScopes, upsertConsent } from './consent-store.ts';
import { grantIdOfCode } from './ids.ts';
import { expandPushedRequest } from './par.ts';
import { spendPushedRequest } from './pushed-request-store.ts';
import { checkRequestedResources } from './resource-indicators.ts';

export interface AuthorizeDeps {
  sql: Sql;
  clients: ClientDirectory;
  issuer: string;
  clock: () => Date;
  /** HMAC key for login_after and consent form tokens (the `signing` secret). */
  macKey: Buffer;
  codeTtlSeconds: number;
}

export type AuthorizeOutcome =
  | { kind: 'error-page'; error: GatehouseError }
  | { kind: 'redirect'; location: string }
  | {
      kind: 'consent';
      clientName: string;
      /** Who is signed in, as they would recognise themselves: name and email address. */
      account: { name: string; email: string | null };
      scopes: string[];
      resourceNames: Record<string, string[]>;
      redirectUri: string;
      fields: Record<string, string>;
    };

/** Appends the response parameters to the client's redirect URI, keeping its own query (RFC 6749 §3.1.2). */
function backToClient(issuer: string, request: AuthorizationRequest, params: Record<string, string>): string {
  const url = new URL(request.redirectUri);
  for (const [name, value] of Object.entries(params)) url.searchParams.append(name, value);
  if (request.state !== null) url.searchParams.append('state', request.state);
  url.searchParams.append('iss', issuer);
  return url.href;
}

const seconds = (date: Date) => Math.floor(date.getTime() / 1000);

// The fields are JSON-encoded, not joined with a separator that a state value may itself contain: with joined fields,
// login_after "L:cli_x" for a state "S" and login_after "L" for a state "cli_x:S" signed the same bytes.
const loginMac = (deps: AuthorizeDeps, loginAfter: string, r: AuthorizationRequest) =>
  hmac(deps.macKey, 'login-after:', JSON.stringify([loginAfter, r.client.id, r.state])).toString('base64url');

/** A login_after is honoured for this long after it was issued: time enough to sign in, not a saved return link. */
export const LOGIN_AFTER_TTL_MS = 15 * 60 * 1000;
const LOGIN_AFTER = /^\d{1,15}$/;

const consentToken = (deps: AuthorizeDeps, session: Session, query: string) =>
  hmac(deps.macKey, 'consent:', session.id, ':', query).toString('base64url');

/** Where the hosted sign-in returns to: this request again, with a signed "sign in after" time when forced. */
function signIn(deps: AuthorizeDeps, r: ValidatedRequest, force: boolean): AuthorizeOutcome {
  const query = new URLSearchParams(r.returnQuery);
  if (force) {
    // The return trip must not force another sign-in: `login` leaves `prompt`, the signed time takes its place.
    const rest = [...r.prompt].filter((p) => p !== 'login');
    if (rest.length > 0) query.set('prompt', rest.join(' '));
    else query.delete('prompt');
    const loginAfter = String(deps.clock().getTime());
    query.set('login_after', loginAfter);
    query.set('login_mac', loginMac(deps, loginAfter, r));
  }
  const target = new URLSearchParams({ return_to: `/oauth/authorize?${query}` });
  if (force) target.set('prompt', 'login');
  if (r.loginHint) target.set('login_hint', r.loginHint);
  return { kind: 'redirect', location: `/signin?${target}` };
}

/**
 * True when the session is too old for this request: prompt=login, max_age, or a signed login_after. A satisfied
 * login_after settles it: the user signed in after this very request sent them to, so max_age (measured in whole
 * seconds against auth_time) must not send them back again when the return trip crosses a second boundary.
 */
function needsFreshLogin(deps: AuthorizeDeps, r: ValidatedRequest, session: Session): boolean {
  const loginAfter = r.query.get('login_after');
  const mac = r.query.get('login_mac');
  if (
    loginAfter !== null &&
    mac !== null &&
    LOGIN_AFTER.test(loginAfter) &&
    constantTimeEqual(mac, loginMac(deps, loginAfter, r))
  ) {
    // A stale marker proves nothing about the session at hand: sign in again, which issues a new one.
    if (deps.clock().getTime() - Number(loginAfter) > LOGIN_AFTER_TTL_MS) return true;
    // Milliseconds, strictly after: a session from the same instant as the forced redirect is the old one.
    return session.authTime.getTime() <= Number(loginAfter);
  }
  return r.maxAge !== null && seconds(deps.clock()) - seconds(session.authTime) > r.maxAge;
}

async function issueCode(deps: AuthorizeDeps, r: ValidatedRequest, session: Session): Promise<AuthorizeOutcome> {
  const code = randomToken();
  const now = deps.clock();
  // RFC 9126 §4: a pushed request produces one code; a second arrival after that is refused.
  if (r.pushed !== null && !(await spendPushedRequest(deps.sql, r.pushed, now)))
    throw new GatehouseError('invalid_request_uri', 'The request_uri was already used');
  await insertAuthorizationCode(deps.sql, {
    codeHash: tokenHash(code),
    grantId: grantIdOfCode(code),
    clientId: r.client.id,
    identityId: session.identityId,
    sessionId: session.id,
    redirectUri: r.redirectUri,
    scope: r.scopes.join(' '),
    resources: r.resources,
    codeChallenge: r.codeChallenge,
    nonce: r.nonce,
    dpopJkt: r.dpopJkt,
    authTime: session.authTime,
    acr: session.aal,
    amr: session.amr,
    createdAt: now,
    expiresAt: new Date(now.getTime() + deps.codeTtlSeconds * 1000),
  });
  return { kind: 'redirect', location: backToClient(deps.issuer, r, { code }) };
}

/**
 * For the consent page's words: which of the requested resources (RFC 8707) define each scope that is not an OIDC
 * one. checkRequestedResources has made sure each such scope has one.
 */
async function resourceNamesOf(deps: AuthorizeDeps, r: ValidatedRequest): Promise<Record<string, string[]>> {
  const resources = r.resources.length > 0 ? await findResourcesByAudience(deps.sql, r.resources) : [];
  return Object.fromEntries(
    r.scopes.map((scope) => [scope, resources.filter((r) => r.scopes.includes(scope)).map((r) => r.name)]),
  );
}

async function decide(deps: AuthorizeDeps, r: ValidatedRequest, session: Session | null, fromConsent: boolean) {
  const live = session && isComplete(session) ? session : null;
  if (!live) {
    if (r.prompt.has('none'))
      throw new GatehouseError(
        'login_required',
        session ? 'The user has not finished signing in' : 'The user is not signed in',
      );
    // A partial session issues nothing (DESIGN.md "Assurance"): the person finishes its second step, then comes
    // back to this same request. prompt=login still asks for a whole new sign-in.
    if (session?.pending && !r.prompt.has('login'))
      return {
        kind: 'redirect' as const,
        location: pendingStepPath(session.pending, `/oauth/authorize?${r.returnQuery}`),
      };
    // The sign-in about to happen is the fresh one prompt=login or max_age asks for: the return trip must not ask
    // for another (OIDC Core §3.1.2.1 asks for one reauthentication).
    return signIn(deps, r, r.prompt.has('login') || r.maxAge !== null);
  }
  if (r.prompt.has('login') || needsFreshLogin(deps, r, live)) {
    if (r.prompt.has('none')) throw new GatehouseError('login_required', 'The user must sign in again');
    return signIn(deps, r, true);
  }
  if (!r.client.firstParty && !fromConsent) {
    const granted = await findConsentedScopes(deps.sql, live.identityId, r.client.id);
    if (r.prompt.has('consent') || r.scopes.some((s) => !granted.includes(s))) {
      if (r.prompt.has('none')) throw new GatehouseError('consent_required');
      const query = r.returnQuery.toString();
      const profile = await findProfile(deps.sql, live.identityId);
      return {
        kind: 'consent' as const,
        clientName: r.client.name,
        account: { name: profile?.displayName ?? '', email: profile?.email ?? null },
        scopes: r.scopes,
        resourceNames: await resourceNamesOf(deps, r),
        redirectUri: r.redirectUri,
        fields: { request: query, csrf: consentToken(deps, live, query) },
      };
    }
  }
  return issueCode(deps, r, live);
}

async function run(
  deps: AuthorizeDeps,
  query: URLSearchParams,
  step: (r: ValidatedRequest) => Promise<AuthorizeOutcome>,
): Promise<AuthorizeOutcome> {
  let request: AuthorizationRequest;
  try {
    const expanded = await expandPushedRequest(deps, query);
    const resolved = await resolveClient(deps.clients, expanded.query);
    request = { ...resolved, returnQuery: query, pushed: expanded.pushed };
  } catch (error) {
    if (error instanceof UnsafeToRedirect) return { kind: 'error-page', error: error.error };
    throw error;
  }
  try {
    if (request.client.requirePushedAuthorizationRequests && request.pushed === null)
      throw new InvalidRequest('This client must push its authorization requests first (PAR, RFC 9126)');
    const validated = validateRequest(request);
    await checkRequestedResources(deps.clients, request.client, validated.resources, validated.scopes);
    return await step(validated);
  } catch (error) {
    if (!(error instanceof GatehouseError) || error.status >= 500) throw error;
    return {
      kind: 'redirect',
      location: backToClient(deps.issuer, request, { error: error.code, error_description: error.publicDescription }),
    };
  }
}

export function authorize(deps: AuthorizeDeps, query: URLSearchParams, session: Session | null) {
  return run(deps, query, (r) => decide(deps, r, session, false));
}

export interface ConsentDecision {
  request: string;
  csrf: string;
  decision: string;
}

/** The consent form's answer: re-validates the whole request, then records the grant or denies it. */
export async function answerConsent(deps: AuthorizeDeps, form: ConsentDecision, session: Session | null) {
  if (!session || !isComplete(session)) throw new GatehouseError('login_required');
  if (!constantTimeEqual(form.csrf, consentToken(deps, session, form.request)))
    throw new GatehouseError('csrf_rejected', 'The consent form is stale or was not issued to this session');
  return run(deps, new URLSearchParams(form.request), async (r) => {
    if (form.decision !== 'allow') throw new GatehouseError('access_denied', 'The user denied the request');
    await upsertConsent(deps.sql, session.identityId, r.client.id, r.scopes, deps.clock());
    return decide(deps, r, session, true);
  });
}

/**
 * "Not you? Use another account" on the consent page: checks the form was issued to this session for this request,
 * and answers where to go once the caller has ended the session: the hosted sign-in, returning to the same request.
 */
export function switchAccount(deps: AuthorizeDeps, form: Omit<ConsentDecision, 'decision'>, session: Session | null) {
  if (!session || !isComplete(session)) throw new GatehouseError('login_required');
  if (!constantTimeEqual(form.csrf, consentToken(deps, session, form.request)))
    throw new GatehouseError('csrf_rejected', 'The consent form is stale or was not issued to this session');
  return `/signin?${new URLSearchParams({ return_to: `/oauth/authorize?${form.request}` })}`;
}

/**
 * The name of the application a pending authorization request signs in to, for the hosted sign-in page ("Sign in to
 * continue to Shop"). Only for a request naming a client that signs users in and one of its registered redirect URIs:
 * that is what the authorization endpoint itself would show, so it tells a prober nothing new.
 */
export async function pendingClientName(deps: AuthorizeDeps, query: URLSearchParams): Promise<string | null> {
  try {
    const { client } = await resolveClient(deps.clients, query);
    return client.name;
  } catch (error) {
    if (error instanceof UnsafeToRedirect) return null;
    throw error;
  }
}
