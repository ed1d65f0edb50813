// What a SAML response must also satisfy after node-saml has verified its signature, time window and Audience
// (SAML 2.0 profiles §4.1.4.2-3, Web Browser SSO): no DTD at all, the Issuer we configured, our ACS as Destination and
// as Recipient of a bearer confirmation that answers our request, and an assertion ID seen never before.
import { xmlLibraries } from './xml-libraries.ts';

/**
 * SAML messages never need a DTD, and a DTD is how entity expansion (billion laughs) and external entities (XXE)
 * get in: a document declaring one is refused before any parser reads it.
 */
export const declaresDtd = (xml: string): boolean => /<!(DOCTYPE|ENTITY)/i.test(xml);

/** The Destination attribute of the outer Response (it may be unsigned: Recipient below is the signed twin). */
export function responseDestination(xml: string): string | null {
  // node-saml parsed this document already; a second parse only reads one attribute, so its warnings are noise.
  const quiet = () => undefined;
  const { DOMParser, xpath } = xmlLibraries();
  const doc = new DOMParser({ errorHandler: { warning: quiet, error: quiet, fatalError: quiet } }).parseFromString(
    xml,
    'text/xml',
  );
  const found = xpath.select1("/*[local-name()='Response']/@Destination", doc as unknown as Node);
  return found && typeof found === 'object' && 'value' in found ? String(found.value) : null;
}

/** xml2js shape node-saml gives for the verified assertion: elements are arrays, attributes sit under `$`, text `_`. */
type XmlNode = { $?: Record<string, string>; _?: string } & { [child: string]: XmlNode[] | undefined };

const children = (node: XmlNode | undefined, name: string): XmlNode[] => {
  const value = node?.[name];
  return Array.isArray(value) ? value : [];
};

export interface AssertionFacts {
  id: string | null;
  issuer: string | null;
  /** NotOnOrAfter of the bearer confirmation that answers our request at our ACS; null: there is none. */
  confirmedUntil: Date | null;
  authnContexts: string[];
}

const BEARER = 'urn:oasis:names:tc:SAML:2.0:cm:bearer';

/** Reads the checks' inputs from the verified assertion for a request ID and ACS URL. */
export function assertionFacts(verified: unknown, requestId: string, acsUrl: string): AssertionFacts {
  const assertion = (verified as { Assertion?: XmlNode } | null)?.Assertion;
  const issuer = children(assertion, 'Issuer')[0]?._ ?? null;
  let confirmedUntil: Date | null = null;
  for (const subject of children(assertion, 'Subject'))
    for (const confirmation of children(subject, 'SubjectConfirmation')) {
      if (confirmation.$?.Method !== BEARER) continue;
      for (const data of children(confirmation, 'SubjectConfirmationData')) {
        const { Recipient, InResponseTo, NotOnOrAfter } = data.$ ?? {};
        const until = NotOnOrAfter ? new Date(NotOnOrAfter) : null;
        // Profiles §4.1.4.2: a bearer confirmation names the ACS, the request it answers and when it stops counting.
        if (Recipient === acsUrl && InResponseTo === requestId && until && !Number.isNaN(until.getTime()))
          confirmedUntil = until;
      }
    }
  const authnContexts = children(assertion, 'AuthnStatement').flatMap((statement) =>
    children(statement, 'AuthnContext').flatMap((context) =>
      children(context, 'AuthnContextClassRef').flatMap((ref) => (ref._ ? [ref._.trim()] : [])),
    ),
  );
  return { id: assertion?.$?.ID ?? null, issuer, confirmedUntil, authnContexts };
}

/** The first value of an attribute as node-saml maps it (one value: a string; several: an array). */
export function attributeValue(attributes: unknown, name: string): string | null {
  const value = (attributes as Record<string, unknown> | undefined)?.[name];
  const first = Array.isArray(value) ? value[0] : value;
  return typeof first === 'string' && first.trim() !== '' ? first.trim() : null;
}
