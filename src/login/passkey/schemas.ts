// Request schemas for the WebAuthn JSON the browser sends (WebAuthn Level 3 §5.1.8 toJSON(), as
// @simplewebauthn/browser produces it). Base64url fields are passed to the verifier unmodified, so the schema
// only insists they are base64url of a sane size: anything else is a 400 envelope before any lookup.
import { Type } from '../../schema/type.ts';

const b64url = (maxLength: number) => Type.String({ minLength: 1, maxLength, pattern: '^[A-Za-z0-9_-]+$' });
/** §5.1: credential ids are at most 1023 bytes. */
const credentialId = b64url(1366);
const extensions = Type.Object({}, { additionalProperties: true, maxProperties: 16 });
const attachment = Type.Optional(Type.Union([Type.Literal('platform'), Type.Literal('cross-platform')]));

export const RegistrationCredential = Type.Object(
  {
    id: credentialId,
    rawId: credentialId,
    type: Type.Literal('public-key'),
    response: Type.Object(
      {
        clientDataJSON: b64url(8192),
        attestationObject: b64url(32_768),
        authenticatorData: Type.Optional(b64url(16_384)),
        publicKey: Type.Optional(b64url(4096)), // an ML-DSA-87 key is 2592 bytes
        publicKeyAlgorithm: Type.Optional(Type.Integer({ minimum: -65_536, maximum: 65_535 })),
        transports: Type.Optional(Type.Array(Type.String({ maxLength: 32 }), { maxItems: 8 })),
      },
      { additionalProperties: false },
    ),
    authenticatorAttachment: attachment,
    clientExtensionResults: extensions,
  },
  { additionalProperties: false },
);

export const AuthenticationCredential = Type.Object(
  {
    id: credentialId,
    rawId: credentialId,
    type: Type.Literal('public-key'),
    response: Type.Object(
      {
        clientDataJSON: b64url(8192),
        authenticatorData: b64url(16_384),
        // Up to an ML-DSA-87 signature (4627 bytes), which current authenticators and the verifier support.
        signature: b64url(8192),
        /** §5.4.3: at most 64 bytes. */
        userHandle: Type.Optional(b64url(86)),
      },
      { additionalProperties: false },
    ),
    authenticatorAttachment: attachment,
    clientExtensionResults: extensions,
  },
  { additionalProperties: false },
);

export const challengeId = Type.String({ minLength: 1, maxLength: 64, pattern: '^pkc_[A-Za-z0-9_-]+$' });
export const passkeyName = Type.String({ minLength: 1, maxLength: 64, pattern: '\\S' });
export const password = Type.String({ minLength: 1, maxLength: 1024 });
