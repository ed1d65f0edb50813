// Which attributes of a verified assertion give a new identity its email address and display name. Identity
// providers name the same fact differently: pysaml2 and Shibboleth send SAML 2.0 URI names (the OIDs of eduPerson
// and inetOrgPerson, attrname-format:uri) by default, ADFS and Entra ID claim URIs, others the LDAP names. So the
// defaults (email_attribute = "email", display_name_attribute = "displayName") stand for every common name of the
// fact, tried in order; a name the operator sets instead is used alone, since they said exactly which one it is.
import { attributeValue } from './response-checks.ts';

export const DEFAULT_EMAIL_ATTRIBUTE = 'email';
export const DEFAULT_DISPLAY_NAME_ATTRIBUTE = 'displayName';

/** mail (RFC 4524 / inetOrgPerson), its OID, and the claim URI of ADFS and Entra ID. */
export const EMAIL_NAMES = [
  'email',
  'mail',
  'urn:oid:0.9.2342.19200300.100.1.3',
  'emailAddress',
  'http://schemas.xmlsoap.org/ws/2005/05/identity/claims/emailaddress',
];

/** displayName (inetOrgPerson) and cn, by name and OID, and the display name claim of Entra ID. */
export const DISPLAY_NAME_NAMES = [
  'displayName',
  'urn:oid:2.16.840.1.113730.3.1.241',
  'http://schemas.microsoft.com/identity/claims/displayname',
  'cn',
  'urn:oid:2.5.4.3',
];

/** Failing every display name: givenName and sn together (both by name or OID), as "Given Surname". */
const GIVEN_NAMES = ['givenName', 'urn:oid:2.5.4.42'];
const SURNAMES = ['sn', 'urn:oid:2.5.4.4'];

const firstOf = (attributes: unknown, names: readonly string[]) => {
  for (const name of names) {
    const value = attributeValue(attributes, name);
    if (value !== null) return value;
  }
  return null;
};

export interface PersonAttributes {
  email: string | null;
  displayName: string | null;
}

/** The email and display name an assertion's attributes (as node-saml maps them: Name → value(s)) carry. */
export function personAttributes(
  attributes: unknown,
  settings: { email_attribute: string; display_name_attribute: string },
): PersonAttributes {
  const email =
    settings.email_attribute === DEFAULT_EMAIL_ATTRIBUTE
      ? firstOf(attributes, EMAIL_NAMES)
      : attributeValue(attributes, settings.email_attribute);
  if (settings.display_name_attribute !== DEFAULT_DISPLAY_NAME_ATTRIBUTE)
    return { email, displayName: attributeValue(attributes, settings.display_name_attribute) };
  const given = firstOf(attributes, GIVEN_NAMES);
  const surname = firstOf(attributes, SURNAMES);
  const joined = given && surname ? `${given} ${surname}` : null;
  return { email, displayName: firstOf(attributes, DISPLAY_NAME_NAMES) ?? joined };
}
