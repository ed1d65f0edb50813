// Reads what the service provider needs from an identity provider's SAML metadata document (SAML 2.0 metadata §2.4.3,
// IDPSSODescriptor): its entity id, the SingleSignOnService for the HTTP-Redirect binding, and the certificates of
// its KeyDescriptors for signing (use="signing", or no use: both). The file is the operator's, read at startup; it is
// still refused with a DTD, like every SAML document here. Its own signature, if any, is not checked: trusting the
// file is the operator's choice, as with a certificate file.
import { X509Certificate } from 'node:crypto';
import { declaresDtd } from './response-checks.ts';
import { xmlLibraries } from './xml-libraries.ts';

export interface IdpMetadata {
  entityId: string;
  ssoUrl: string;
  certificates: string[];
}

const REDIRECT = 'urn:oasis:names:tc:SAML:2.0:bindings:HTTP-Redirect';
const select = (expression: string, node: Node) => xmlLibraries().xpath.select(expression, node) as Node[];
const textOf = (node: Node) => (node.textContent ?? '').replace(/\s+/g, '');

const pemOf = (base64: string) =>
  `-----BEGIN CERTIFICATE-----\n${base64.match(/.{1,64}/g)?.join('\n') ?? ''}\n-----END CERTIFICATE-----\n`;

export function parseIdpMetadata(document: string): IdpMetadata {
  if (declaresDtd(document)) throw new Error('declares a DTD, which SAML metadata never needs');
  const problems: string[] = [];
  const doc = new (xmlLibraries().DOMParser)({
    errorHandler: { warning: () => undefined, error: (m) => problems.push(m), fatalError: (m) => problems.push(m) },
  }).parseFromString(document, 'text/xml');
  const root = doc.documentElement as unknown as Element | null;
  if (problems.length > 0 || !root || root.localName !== 'EntityDescriptor')
    throw new Error('is not one SAML EntityDescriptor');
  const entityId = root.getAttribute('entityID') ?? '';
  const [idp, ...more] = select("./*[local-name()='IDPSSODescriptor']", root);
  if (!entityId || !idp || more.length > 0) throw new Error('needs an entityID and one IDPSSODescriptor');
  const ssoUrl = select(`./*[local-name()='SingleSignOnService'][@Binding='${REDIRECT}']/@Location`, idp).map(
    (a) => (a as Attr).value,
  )[0];
  if (!ssoUrl) throw new Error('has no SingleSignOnService for the HTTP-Redirect binding');
  const certificates = select(
    "./*[local-name()='KeyDescriptor'][not(@use) or @use='signing']//*[local-name()='X509Certificate']",
    idp,
  ).map((node) => {
    const pem = pemOf(textOf(node));
    new X509Certificate(pem);
    return pem;
  });
  if (certificates.length === 0) throw new Error('has no signing certificate (KeyDescriptor)');
  return { entityId, ssoUrl, certificates };
}
