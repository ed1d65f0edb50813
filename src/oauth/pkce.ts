// PKCE (RFC 7636), S256 only: `plain` is refused everywhere (RFC 9700 §2.1.1).
import { sha256 } from '../crypto/primitives.ts';

/** RFC 7636 §4.1: 43–128 characters of [A-Z a-z 0-9 - . _ ~]. */
const VERIFIER = /^[A-Za-z0-9\-._~]{43,128}$/;
/** A S256 challenge is BASE64URL(SHA-256(verifier)): exactly 43 characters. */
const CHALLENGE = /^[A-Za-z0-9\-_]{43}$/;

export const isCodeChallenge = (value: string) => CHALLENGE.test(value);
export const isCodeVerifier = (value: string) => VERIFIER.test(value);

/** RFC 7636 §4.6: the challenge the verifier must reproduce. */
export const s256Challenge = (verifier: string) => sha256(verifier).toString('base64url');
