// The SAML round trip (SP-initiated Web Browser SSO, SAML 2.0 profiles §4.1): start signs an AuthnRequest for the
// HTTP-Redirect binding and records its ID, bound to this browser by a cookie; the ACS (HTTP-POST) accepts a response
// only when it answers that request from that browser, once, and passes every check of node-saml and of
// response-checks.ts. Anything else is refused before an identity is looked at.
import { randomToken, tokenHash } from '../../crypto/primitives.ts';
import { GatehouseError } from '../../http/errors.ts';
import type { Sub } from '../../identity/ids.ts';
import { identityProviderKnown, type SamlConnection } from './connection.ts';
import type { SamlDeps } from './deps.ts';
import { personAttributes } from './person-attributes.ts';
import { assertionFacts, declaresDtd, responseDestination } from './response-checks.ts';
import { consumeSamlRequest, insertSamlRequest, recordAssertionId, type SamlRequest } from './store.ts';

// node-saml (with xml-crypto and xml2js, about 20 MB resident) loads with the first SAML round trip, not with every
// server that has no SAML connection (docs/decisions.md "Idle RSS: sign-in libraries load on first use").
const samlLibrary = () => import('./service-provider.ts');

export function offeredConnection(deps: SamlDeps, id: string): SamlConnection {
  const connection = deps.connections.get(id);
  if (!connection) throw new GatehouseError('saml_connection_unknown');
  return connection;
}

/** A connection that can sign in: its identity provider is known (idp_metadata_url fetched at least once). */
export function readyConnection(deps: SamlDeps, id: string): SamlConnection {
  const connection = offeredConnection(deps, id);
  if (!identityProviderKnown(connection)) throw new GatehouseError('saml_connection_unavailable');
  return connection;
}

export interface Started {
  location: string;
  cookie: string;
  maxAgeSeconds: number;
}

/** `identityId`: the signed-in identity asking to link this connection; null to sign in. */
export async function startSamlRoundTrip(
  deps: SamlDeps,
  connectionId: string,
  returnTo: string,
  identityId: Sub | null,
): Promise<Started> {
  const connection = readyConnection(deps, connectionId);
  const { REQUEST_SECONDS, requestCache, serviceProvider } = await samlLibrary();
  let requestId: string | null = null;
  const saml = serviceProvider(connection, {
    ...requestCache(async () => null),
    saveAsync: async (id, value) => {
      requestId = id;
      return { value, createdAt: Date.now() };
    },
  });
  const location = await saml.getAuthorizeUrlAsync('', undefined, {});
  if (!requestId) throw new Error('node-saml did not report the AuthnRequest ID');
  const cookie = randomToken();
  const now = deps.clock();
  await insertSamlRequest(deps.sql, {
    id: requestId,
    connection: connection.id,
    cookieHash: tokenHash(cookie),
    identityId,
    returnTo,
    createdAt: now,
    expiresAt: new Date(now.getTime() + REQUEST_SECONDS * 1000),
  });
  return { location, cookie, maxAgeSeconds: REQUEST_SECONDS };
}

/** What a verified response says about the person, for the identity rules. */
export interface SamlAssertion {
  request: SamlRequest;
  nameId: string;
  displayName: string;
  email: string | null;
  /** AuthnContextClassRefs of the signed AuthnStatement(s), for mfa_authn_contexts. */
  authnContexts: string[];
}

const invalid = () => new GatehouseError('saml_response_invalid');

/** Verifies a response posted to the ACS; a refusal is audited as a failed sign-in (forgeries and replays show). */
export async function finishSamlRoundTrip(
  deps: SamlDeps,
  facts: { clientIp: string; requestId: string },
  connection: SamlConnection,
  samlResponse: string,
  cookie: string | null,
): Promise<SamlAssertion> {
  return await verifyResponse(deps, connection, samlResponse, cookie).catch(async (error: unknown) => {
    if (error instanceof GatehouseError)
      await deps.audit.record({
        event: 'signin.failed',
        actor: null,
        ...facts,
        details: { method: 'saml', connection: connection.id, reason: error.code },
      });
    throw error;
  });
}

async function verifyResponse(
  deps: SamlDeps,
  connection: SamlConnection,
  samlResponse: string,
  cookie: string | null,
): Promise<SamlAssertion> {
  const xml = Buffer.from(samlResponse, 'base64').toString('utf8');
  if (declaresDtd(xml)) throw new GatehouseError('saml_xml_refused');
  const now = deps.clock();
  const { CLOCK_SKEW_MS, requestCache, serviceProvider } = await samlLibrary();
  let request: SamlRequest | null = null;
  // One cache for both attempts below: the request is taken from the database once and answers both.
  const cache = requestCache(async (id) => {
    request = cookie
      ? await consumeSamlRequest(deps.sql, { id, connection: connection.id, cookieHash: tokenHash(cookie) }, now)
      : null;
    return request?.createdAt ?? null;
  });
  const validate = () => serviceProvider(connection, cache).validatePostResponseAsync({ SAMLResponse: samlResponse });
  // Refused although it answers our request (node-saml checks InResponseTo first): perhaps signed with a key the
  // identity provider just rolled over to (key-rollover.ts); once more then. Unsolicited documents cause no fetch.
  const retried = async (error: unknown) => {
    if ((request as SamlRequest | null) && (await deps.keysRolledOver(connection))) return validate();
    throw error;
  };
  const verified = await validate()
    .catch(retried)
    .catch((error: unknown) => {
      deps.logRefusal(connection.id, error);
      // No InResponseTo, or one this browser did not send here (or already used): not an answer to us.
      if (!request) throw new GatehouseError('saml_request_unknown');
      throw invalid();
    });
  const answered = request as SamlRequest | null;
  const profile = verified.profile;
  if (!answered) throw new GatehouseError('saml_request_unknown');
  if (!profile?.nameID) throw refusal(deps, connection, 'no NameID');
  const facts = assertionFacts(profile.getAssertion?.(), answered.id, connection.acsUrl);
  if (facts.issuer !== connection.idpEntityId) throw refusal(deps, connection, `Issuer ${facts.issuer}`);
  if (responseDestination(xml) !== connection.acsUrl) throw refusal(deps, connection, 'Destination is not our ACS');
  if (!facts.confirmedUntil) throw refusal(deps, connection, 'no bearer confirmation for our ACS and request');
  if (!facts.id) throw refusal(deps, connection, 'assertion without ID');
  // Kept until the assertion could no longer pass the time checks anyway, then housekeeping forgets it.
  const keepUntil = new Date(facts.confirmedUntil.getTime() + CLOCK_SKEW_MS);
  if (!(await recordAssertionId(deps.sql, connection.id, facts.id, keepUntil)))
    throw new GatehouseError('saml_assertion_replayed');
  const person = personAttributes(profile.attributes, connection.config);
  return {
    request: answered,
    nameId: profile.nameID,
    displayName: person.displayName ?? profile.nameID,
    email: person.email,
    authnContexts: facts.authnContexts,
  };
}

function refusal(deps: SamlDeps, connection: SamlConnection, reason: string): GatehouseError {
  deps.logRefusal(connection.id, new Error(reason));
  return invalid();
}
