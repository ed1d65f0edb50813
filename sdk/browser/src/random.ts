// State, nonce and PKCE material from WebCrypto's CSPRNG, and the hashes built on SHA-256.

const encoder = new TextEncoder();

export function base64url(bytes: Uint8Array): string {
  let binary = '';
  for (const byte of bytes) binary += String.fromCharCode(byte);
  return btoa(binary).replace(/\+/g, '-').replace(/\//g, '_').replace(/=+$/, '');
}

/** 32 random bytes, base64url: 256 bits, 43 characters (RFC 7636 §4.1 asks the verifier for 43–128). */
export function randomToken(): string {
  return base64url(crypto.getRandomValues(new Uint8Array(32)));
}

async function sha256(text: string): Promise<Uint8Array> {
  return new Uint8Array(await crypto.subtle.digest('SHA-256', encoder.encode(text)));
}

/** RFC 7636 §4.2: S256 code challenge. */
export async function codeChallenge(verifier: string): Promise<string> {
  return base64url(await sha256(verifier));
}

/** OIDC Core §3.1.3.6: the left half of the access token's SHA-256 (RS256), base64url. */
export async function accessTokenHash(accessToken: string): Promise<string> {
  return base64url((await sha256(accessToken)).slice(0, 16));
}
