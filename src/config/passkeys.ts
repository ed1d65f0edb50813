// The WebAuthn relying party this configuration describes (passkeys.rp_id, passkeys.allowed_origins), and the rule
// that the RP ID is a registrable domain suffix of the issuer host (WebAuthn Level 3 §5.1.3 step 8, §13.4.9): a
// browser refuses every ceremony otherwise. Shared by config validation (refuse to start) and `gatehouse doctor`.
import { createRequire } from 'node:module';
import { isIP } from 'node:net';
import type * as Tldts from 'tldts';
import type { Config } from './schema.ts';

// tldts (the public suffix list, about 350 kB of source and its tables) loads only for an rp_id that is a parent of
// the issuer host, the one case that consults the list: configuration is checked in every process, supervisor
// included, and most configurations name no rp_id. Its CommonJS build keeps the check synchronous.
const require = createRequire(import.meta.url);
let tldts: typeof Tldts | null = null;
const publicSuffixOf = (domain: string) => {
  tldts ??= require('tldts') as typeof Tldts;
  return tldts.getPublicSuffix(domain, { allowPrivateDomains: true });
};

export interface RelyingParty {
  id: string;
  name: string;
  /** Origins a ceremony's clientDataJSON.origin may name: the issuer origin and the configured extra ones. */
  origins: string[];
}

export function relyingParty(config: Config): RelyingParty {
  const issuer = new URL(config.server.issuer);
  return {
    id: config.passkeys.rp_id === '' ? issuer.hostname : config.passkeys.rp_id,
    // Shown by the authenticator next to the account: the organization people know, else the host.
    name: config.organization.name === '' ? issuer.hostname : config.organization.name,
    origins: [issuer.origin, ...config.passkeys.allowed_origins],
  };
}

const isSuffixOf = (rpId: string, host: string) => host === rpId || host.endsWith(`.${rpId}`);

/** Null when `rpId` may serve `host`: the host itself or a parent domain that is not a public suffix. */
export function rpIdProblem(rpId: string, host: string): string | null {
  // WebAuthn §5.1.3: an RP ID is a domain; an IP-address issuer (http://127.0.0.1:8080) cannot have passkeys.
  if (isIP(rpId.replace(/^\[|\]$/g, '')) !== 0) return `${rpId} is an IP address; passkeys need a domain name`;
  if (!/^[a-z0-9.-]+$/.test(rpId) || rpId.startsWith('.') || rpId.endsWith('.'))
    return `"${rpId}" is not a lower-case domain name`;
  if (!isSuffixOf(rpId, host)) return `"${rpId}" is not the issuer host ${host} or a parent domain of it`;
  // A public suffix (com, co.uk, github.io) would let every site under it claim these passkeys; browsers refuse it.
  if (rpId !== host && publicSuffixOf(rpId) === rpId) return `"${rpId}" is a public suffix, not a registrable domain`;
  return null;
}

/** Null when the origin may run ceremonies for `rpId`: https (http only on localhost) and a host under the RP ID. */
export function allowedOriginProblem(origin: string, rpId: string): string | null {
  let url: URL;
  try {
    url = new URL(origin);
  } catch {
    return `"${origin}" is not an origin such as https://app.example.com`;
  }
  if (url.origin !== origin) return `"${origin}" must be an origin alone (scheme, host and port; no path or slash)`;
  if (url.protocol !== 'https:' && !(url.protocol === 'http:' && url.hostname === 'localhost'))
    return `"${origin}" must use https (http only for localhost)`;
  if (!isSuffixOf(rpId, url.hostname)) return `"${origin}" is not under the RP ID ${rpId}`;
  return null;
}

/** Why passkeys cannot be offered with this configuration, or null when they can (enabled and a valid RP ID). */
export function passkeysUnavailable(config: Config): string | null {
  if (!config.passkeys.enabled) return 'passkeys.enabled is false';
  return rpIdProblem(relyingParty(config).id, new URL(config.server.issuer).hostname);
}
