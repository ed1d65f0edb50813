// A SAML 2.0 identity provider for tests, built from the primitives node-saml itself uses (xml-crypto signs,
// xml-encryption encrypts) with its own key pair from openssl, served over HTTP on loopback. GET /sso takes the
// service provider's HTTP-Redirect AuthnRequest, checks its signature with the SP certificate it was given, and
// answers with an auto-submitting HTTP-POST form to the ACS, as a real IdP does. The builders are exported so attack
// tests can forge, re-sign or rearrange documents the way an attacker would.
import { execFileSync } from 'node:child_process';
import { createPublicKey, createVerify, randomBytes } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import path from 'node:path';
import { inflateRawSync } from 'node:zlib';
import { DOMParser } from '@xmldom/xmldom';
import { SignedXml } from 'xml-crypto';
import xmlenc from 'xml-encryption';
import { scratchDir } from './config.ts';

export interface KeyPair {
  key: string;
  cert: string;
  certFile: string;
  keyFile: string;
}

/** A fresh RSA key and self-signed certificate (openssl, as an operator would make one). */
export function makeKeyPair(name: string, days = 2): KeyPair {
  const dir = scratchDir('gatehouse-saml-keys-');
  const keyFile = path.join(dir, `${name}.key`);
  const certFile = path.join(dir, `${name}.crt`);
  execFileSync(
    'openssl',
    [
      'req',
      '-x509',
      '-newkey',
      'rsa:2048',
      '-nodes',
      '-sha256',
      '-days',
      String(days),
      '-subj',
      `/CN=${name}`,
      '-keyout',
      keyFile,
      '-out',
      certFile,
    ],
    { stdio: 'ignore' },
  );
  return { key: readFileSync(keyFile, 'utf8'), cert: readFileSync(certFile, 'utf8'), certFile, keyFile };
}

const escapeXml = (value: string) => value.replace(/[&<>"]/g, (c) => `&#${c.charCodeAt(0)};`);
const iso = (date: Date) => date.toISOString();
export const samlId = () => `_${randomBytes(16).toString('hex')}`;

export interface AssertionFields {
  issuer: string;
  nameId: string;
  audience: string;
  recipient: string;
  inResponseTo: string | null;
  now: Date;
  /** Seconds the assertion stays valid (Conditions and SubjectConfirmationData). */
  lifetime?: number;
  id?: string;
  authnContext?: string;
  /** Several values: one AttributeValue each (groups). */
  attributes?: Record<string, string | string[]>;
}

export function buildAssertion(f: AssertionFields): string {
  const until = new Date(f.now.getTime() + (f.lifetime ?? 300) * 1000);
  const confirmation = [
    f.inResponseTo === null ? '' : `InResponseTo="${escapeXml(f.inResponseTo)}"`,
    `Recipient="${escapeXml(f.recipient)}"`,
    `NotOnOrAfter="${iso(until)}"`,
  ].join(' ');
  const attributes = Object.entries(f.attributes ?? {})
    .map(
      ([name, values]) =>
        `<saml:Attribute Name="${escapeXml(name)}">${[values]
          .flat()
          .map((value) => `<saml:AttributeValue>${escapeXml(value)}</saml:AttributeValue>`)
          .join('')}</saml:Attribute>`,
    )
    .join('');
  return (
    `<saml:Assertion xmlns:saml="urn:oasis:names:tc:SAML:2.0:assertion" ID="${f.id ?? samlId()}" Version="2.0" IssueInstant="${iso(f.now)}">` +
    `<saml:Issuer>${escapeXml(f.issuer)}</saml:Issuer>` +
    `<saml:Subject><saml:NameID Format="urn:oasis:names:tc:SAML:2.0:nameid-format:persistent">${escapeXml(f.nameId)}</saml:NameID>` +
    `<saml:SubjectConfirmation Method="urn:oasis:names:tc:SAML:2.0:cm:bearer"><saml:SubjectConfirmationData ${confirmation}/></saml:SubjectConfirmation></saml:Subject>` +
    `<saml:Conditions NotBefore="${iso(new Date(f.now.getTime() - 5000))}" NotOnOrAfter="${iso(until)}">` +
    `<saml:AudienceRestriction><saml:Audience>${escapeXml(f.audience)}</saml:Audience></saml:AudienceRestriction></saml:Conditions>` +
    `<saml:AuthnStatement AuthnInstant="${iso(f.now)}" SessionIndex="${samlId()}"><saml:AuthnContext><saml:AuthnContextClassRef>${escapeXml(f.authnContext ?? 'urn:oasis:names:tc:SAML:2.0:ac:classes:PasswordProtectedTransport')}</saml:AuthnContextClassRef></saml:AuthnContext></saml:AuthnStatement>` +
    (attributes ? `<saml:AttributeStatement>${attributes}</saml:AttributeStatement>` : '') +
    '</saml:Assertion>'
  );
}

export interface ResponseFields {
  issuer: string;
  destination: string | null;
  inResponseTo: string | null;
  now: Date;
  id?: string;
}

/** A Response around an assertion (or any inner XML), unsigned. */
export function buildResponse(f: ResponseFields, inner: string): string {
  const attributes = [
    `ID="${f.id ?? samlId()}"`,
    'Version="2.0"',
    `IssueInstant="${iso(f.now)}"`,
    f.destination === null ? '' : `Destination="${escapeXml(f.destination)}"`,
    f.inResponseTo === null ? '' : `InResponseTo="${escapeXml(f.inResponseTo)}"`,
  ].join(' ');
  return (
    `<samlp:Response xmlns:samlp="urn:oasis:names:tc:SAML:2.0:protocol" xmlns:saml="urn:oasis:names:tc:SAML:2.0:assertion" ${attributes}>` +
    `<saml:Issuer>${escapeXml(f.issuer)}</saml:Issuer>` +
    '<samlp:Status><samlp:StatusCode Value="urn:oasis:names:tc:SAML:2.0:status:Success"/></samlp:Status>' +
    inner +
    '</samlp:Response>'
  );
}

/** Signs the element `localName` (its first occurrence) with an enveloped signature after its Issuer. */
export function signElement(xml: string, localName: 'Assertion' | 'Response', keys: Pick<KeyPair, 'key' | 'cert'>) {
  const signer = new SignedXml({
    privateKey: keys.key,
    publicCert: keys.cert,
    signatureAlgorithm: 'http://www.w3.org/2001/04/xmldsig-more#rsa-sha256',
    canonicalizationAlgorithm: 'http://www.w3.org/2001/10/xml-exc-c14n#',
  });
  const element = `//*[local-name(.)='${localName}']`;
  signer.addReference({
    xpath: element,
    transforms: ['http://www.w3.org/2000/09/xmldsig#enveloped-signature', 'http://www.w3.org/2001/10/xml-exc-c14n#'],
    digestAlgorithm: 'http://www.w3.org/2001/04/xmlenc#sha256',
  });
  signer.computeSignature(xml, {
    location: { reference: `${element}/*[local-name(.)='Issuer']`, action: 'after' },
  });
  return signer.getSignedXml();
}

/** An EncryptedAssertion for the service provider's certificate (AES-256-GCM content key, RSA-OAEP key transport). */
export async function encryptAssertion(assertion: string, spCert: string): Promise<string> {
  const encrypted = await new Promise<string>((resolve, reject) =>
    xmlenc.encrypt(
      assertion,
      {
        rsa_pub: createPublicKey(spCert).export({ type: 'spki', format: 'pem' }).toString(),
        pem: spCert,
        encryptionAlgorithm: 'http://www.w3.org/2009/xmlenc11#aes256-gcm',
        keyEncryptionAlgorithm: 'http://www.w3.org/2001/04/xmlenc#rsa-oaep-mgf1p',
        disallowEncryptionWithInsecureAlgorithm: true,
      },
      (error, result) => (error ? reject(error) : resolve(result)),
    ),
  );
  return `<saml:EncryptedAssertion xmlns:saml="urn:oasis:names:tc:SAML:2.0:assertion">${encrypted}</saml:EncryptedAssertion>`;
}

export interface AuthnRequestSeen {
  id: string;
  acsUrl: string;
  issuer: string;
}

/**
 * Reads an HTTP-Redirect AuthnRequest (SAML bindings §3.4.4.1): the signature covers the query's raw
 * SAMLRequest, RelayState and SigAlg, in that order. Throws when it is unsigned or signed by another key.
 */
export function readAuthnRequest(query: string, spCert: string): AuthnRequestSeen {
  const raw = new Map(query.split('&').map((pair) => pair.split('=', 2) as [string, string]));
  const signedPart = ['SAMLRequest', 'RelayState', 'SigAlg']
    .filter((name) => raw.has(name))
    .map((name) => `${name}=${raw.get(name)}`)
    .join('&');
  const signature = raw.get('Signature');
  if (!signature) throw new Error('AuthnRequest is not signed');
  const verifier = createVerify('RSA-SHA256');
  verifier.update(signedPart);
  if (!verifier.verify(spCert, decodeURIComponent(signature), 'base64')) throw new Error('AuthnRequest signature');
  const xml = inflateRawSync(Buffer.from(decodeURIComponent(raw.get('SAMLRequest') ?? ''), 'base64')).toString();
  const root = new DOMParser().parseFromString(xml, 'text/xml').documentElement;
  const issuer = root?.getElementsByTagNameNS('urn:oasis:names:tc:SAML:2.0:assertion', 'Issuer')[0]?.textContent;
  return {
    id: root?.getAttribute('ID') ?? '',
    acsUrl: root?.getAttribute('AssertionConsumerServiceURL') ?? '',
    issuer: issuer ?? '',
  };
}

export interface TestIdp {
  url: string;
  entityId: string;
  ssoUrl: string;
  keys: KeyPair;
  /** Its SAML metadata (EntityDescriptor with IDPSSODescriptor), as an operator would download it. */
  metadataXml: string;
  /** What GET /metadata answers (idp_metadata_url); a test changes it to take the metadata down or roll a key. */
  metadataAnswer: { status: number; body: string };
  /** AuthnRequests received, newest last. */
  requests: AuthnRequestSeen[];
  stop(): Promise<void>;
}

export interface IdpOptions {
  spCert: string;
  /** Who the IdP signs in, and how; called per request. */
  person: () => { nameId: string; attributes: Record<string, string | string[]>; authnContext?: string };
  /** How the response is packaged: the assertion signed (default), the response signed, or encrypted too. */
  mode?: 'sign-assertion' | 'sign-response' | 'encrypt';
  now?: () => Date;
}

export async function startTestIdp(options: IdpOptions): Promise<TestIdp> {
  const keys = makeKeyPair('test-idp');
  const requests: AuthnRequestSeen[] = [];
  let base = '';
  const metadataAnswer = { status: 200, body: '' };
  const server: Server = createServer((req, res) => {
    void (async () => {
      const [pathname, query = ''] = (req.url ?? '').split('?', 2);
      if (req.method === 'GET' && pathname === '/metadata')
        return res
          .writeHead(metadataAnswer.status, { 'content-type': 'application/samlmetadata+xml' })
          .end(metadataAnswer.body);
      if (req.method !== 'GET' || pathname !== '/sso') return res.writeHead(404).end();
      let seen: AuthnRequestSeen;
      try {
        seen = readAuthnRequest(query, options.spCert);
      } catch (error) {
        return res.writeHead(400, { 'content-type': 'text/plain' }).end(String(error));
      }
      requests.push(seen);
      const person = options.person();
      const now = options.now?.() ?? new Date();
      const entityId = `${base}/metadata`;
      const assertion = buildAssertion({
        issuer: entityId,
        nameId: person.nameId,
        audience: seen.issuer,
        recipient: seen.acsUrl,
        inResponseTo: seen.id,
        now,
        attributes: person.attributes,
        ...(person.authnContext ? { authnContext: person.authnContext } : {}),
      });
      const mode = options.mode ?? 'sign-assertion';
      const fields = { issuer: entityId, destination: seen.acsUrl, inResponseTo: seen.id, now };
      const signedAssertion = signElement(assertion, 'Assertion', keys);
      const xml =
        mode === 'sign-response'
          ? signElement(buildResponse(fields, assertion), 'Response', keys)
          : buildResponse(
              fields,
              mode === 'encrypt' ? await encryptAssertion(signedAssertion, options.spCert) : signedAssertion,
            );
      const page =
        // No favicon: Chromium would ask this server for one and log its 404 as a page problem.
        '<!doctype html><html><head><title>Test IdP</title><link rel="icon" href="data:,"></head><body>' +
        `<form method="post" action="${escapeXml(seen.acsUrl)}"><input type="hidden" name="SAMLResponse" value="${Buffer.from(xml).toString('base64')}">` +
        '<p>Signed in at the identity provider.</p><button type="submit">Continue to the service</button></form></body></html>';
      res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' }).end(page);
    })();
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address();
  base = `http://127.0.0.1:${typeof address === 'object' && address ? address.port : 0}`;
  const certificateBody = keys.cert.replace(/-----[A-Z ]+-----|\s/g, '');
  const metadataXml =
    `<md:EntityDescriptor xmlns:md="urn:oasis:names:tc:SAML:2.0:metadata" xmlns:ds="http://www.w3.org/2000/09/xmldsig#" entityID="${base}/metadata">` +
    '<md:IDPSSODescriptor protocolSupportEnumeration="urn:oasis:names:tc:SAML:2.0:protocol" WantAuthnRequestsSigned="true">' +
    `<md:KeyDescriptor use="signing"><ds:KeyInfo><ds:X509Data><ds:X509Certificate>\n${certificateBody}\n</ds:X509Certificate></ds:X509Data></ds:KeyInfo></md:KeyDescriptor>` +
    `<md:SingleSignOnService Binding="urn:oasis:names:tc:SAML:2.0:bindings:HTTP-POST" Location="${base}/sso-post"/>` +
    `<md:SingleSignOnService Binding="urn:oasis:names:tc:SAML:2.0:bindings:HTTP-Redirect" Location="${base}/sso"/>` +
    '</md:IDPSSODescriptor></md:EntityDescriptor>';
  metadataAnswer.body = metadataXml;
  return {
    url: base,
    entityId: `${base}/metadata`,
    metadataAnswer,
    ssoUrl: `${base}/sso`,
    metadataXml,
    keys,
    requests,
    stop: () => new Promise((resolve) => server.close(() => resolve())),
  };
}
