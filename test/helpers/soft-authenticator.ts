// A WebAuthn authenticator in software for HTTP tests: real P-256 keys (node:crypto), real CBOR attestation objects
// (fmt "none") and real assertion signatures, so the server verifies them exactly as it does a browser's. The
// browser tests use Chromium's virtual authenticator instead.
import { createHash, createPublicKey, generateKeyPairSync, type KeyObject, randomBytes, sign } from 'node:crypto';
import type {
  AuthenticationResponseJSON,
  PublicKeyCredentialCreationOptionsJSON,
  PublicKeyCredentialRequestOptionsJSON,
  RegistrationResponseJSON,
} from '@simplewebauthn/server';

type Cbor = number | string | Uint8Array | Map<number | string, Cbor>;

/** The few CBOR (RFC 8949) items attestation objects and COSE keys use: ints, text, bytes and maps. */
function cbor(value: Cbor): Buffer {
  const head = (major: number, n: number) => {
    if (n < 24) return Buffer.from([(major << 5) | n]);
    if (n < 256) return Buffer.from([(major << 5) | 24, n]);
    const b = Buffer.alloc(3);
    b[0] = (major << 5) | 25;
    b.writeUInt16BE(n, 1);
    return b;
  };
  if (typeof value === 'number') return value >= 0 ? head(0, value) : head(1, -1 - value);
  if (typeof value === 'string') return Buffer.concat([head(3, Buffer.byteLength(value)), Buffer.from(value)]);
  if (value instanceof Uint8Array) return Buffer.concat([head(2, value.length), value]);
  return Buffer.concat([head(5, value.size), ...[...value].flatMap(([k, v]) => [cbor(k), cbor(v)])]);
}

const sha256 = (data: Buffer | string) => createHash('sha256').update(data).digest();
const b64 = (data: Buffer) => data.toString('base64url');

export interface SoftCredential {
  id: Buffer;
  privateKey: KeyObject;
  userHandle: string;
  signCount: number;
}

export interface AuthenticatorOptions {
  origin: string;
  /** Defaults to the origin's host. */
  rpId?: string;
  userVerified?: boolean;
  backupEligible?: boolean;
}

export class SoftAuthenticator {
  readonly credentials: SoftCredential[] = [];
  readonly #o: Required<AuthenticatorOptions>;

  constructor(options: AuthenticatorOptions) {
    this.#o = {
      rpId: new URL(options.origin).hostname,
      userVerified: true,
      backupEligible: false,
      ...options,
    };
  }

  #flags(extra: number) {
    return 0x01 | (this.#o.userVerified ? 0x04 : 0) | (this.#o.backupEligible ? 0x08 : 0) | extra;
  }

  #clientData(type: string, challenge: string, origin = this.#o.origin) {
    return Buffer.from(JSON.stringify({ type, challenge, origin, crossOrigin: false }));
  }

  /** Creates a credential; `reuse` presents an existing one's id and key again (as a second account's would). */
  register(options: PublicKeyCredentialCreationOptionsJSON, reuse?: SoftCredential): RegistrationResponseJSON {
    const privateKey = reuse?.privateKey ?? generateKeyPairSync('ec', { namedCurve: 'P-256' }).privateKey;
    const publicKey = createPublicKey(privateKey);
    const jwk = publicKey.export({ format: 'jwk' });
    const cose = cbor(
      new Map<number, Cbor>([
        [1, 2],
        [3, -7],
        [-1, 1],
        [-2, Buffer.from(jwk.x as string, 'base64url')],
        [-3, Buffer.from(jwk.y as string, 'base64url')],
      ]),
    );
    const id = reuse?.id ?? randomBytes(16);
    if (!reuse) this.credentials.push({ id, privateKey, userHandle: options.user.id, signCount: 0 });
    const length = Buffer.alloc(2);
    length.writeUInt16BE(id.length);
    const authData = Buffer.concat([
      sha256(options.rp.id ?? this.#o.rpId),
      Buffer.from([this.#flags(0x40)]),
      Buffer.alloc(4),
      Buffer.alloc(16),
      length,
      id,
      cose,
    ]);
    const attestationObject = cbor(
      new Map<string, Cbor>([
        ['fmt', 'none'],
        ['attStmt', new Map()],
        ['authData', authData],
      ]),
    );
    return {
      id: b64(id),
      rawId: b64(id),
      type: 'public-key',
      response: {
        clientDataJSON: b64(this.#clientData('webauthn.create', options.challenge)),
        attestationObject: b64(attestationObject),
        transports: ['internal'],
      },
      authenticatorAttachment: 'platform',
      clientExtensionResults: {},
    };
  }

  /**
   * Answers a challenge with a credential (the first by default). `signCount` overrides the counter this assertion
   * carries (to stage a regression); `rpId` and `origin` override what the assertion claims.
   */
  assert(
    options: PublicKeyCredentialRequestOptionsJSON,
    with_: { credential?: SoftCredential; signCount?: number; rpId?: string; origin?: string } = {},
  ): AuthenticationResponseJSON {
    const credential = with_.credential ?? this.credentials[0];
    if (!credential) throw new Error('no credential registered');
    credential.signCount = with_.signCount ?? credential.signCount + 1;
    const counter = Buffer.alloc(4);
    counter.writeUInt32BE(credential.signCount);
    const authData = Buffer.concat([sha256(with_.rpId ?? this.#o.rpId), Buffer.from([this.#flags(0)]), counter]);
    const clientDataJSON = this.#clientData('webauthn.get', options.challenge, with_.origin);
    const signature = sign('sha256', Buffer.concat([authData, sha256(clientDataJSON)]), credential.privateKey);
    return {
      id: b64(credential.id),
      rawId: b64(credential.id),
      type: 'public-key',
      response: {
        clientDataJSON: b64(clientDataJSON),
        authenticatorData: b64(authData),
        signature: b64(signature),
        userHandle: credential.userHandle,
      },
      authenticatorAttachment: 'platform',
      clientExtensionResults: {},
    };
  }
}
