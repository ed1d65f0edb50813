// The issuer's discovery document (OIDC Discovery 1.0), fetched once per issuer and page.
import type { ClientConfig } from './config.ts';
import { DiscoveryError } from './errors.ts';

export interface ProviderMetadata {
  issuer: string;
  authorization_endpoint: string;
  token_endpoint: string;
  userinfo_endpoint: string;
  jwks_uri: string;
  end_session_endpoint?: string;
  authorization_response_iss_parameter_supported?: boolean;
}

const cache = new Map<string, Promise<ProviderMetadata>>();

async function load(issuer: string): Promise<ProviderMetadata> {
  const response = await fetch(`${issuer.replace(/\/$/, '')}/.well-known/openid-configuration`);
  if (!response.ok) throw new DiscoveryError(`discovery answered ${response.status}`);
  const metadata = (await response.json()) as Partial<ProviderMetadata>;
  // OIDC Discovery §4.3: the document must name exactly the issuer it was fetched for.
  if (metadata.issuer !== issuer) throw new DiscoveryError(`discovery names issuer ${String(metadata.issuer)}`);
  for (const field of ['authorization_endpoint', 'token_endpoint', 'userinfo_endpoint', 'jwks_uri'] as const)
    if (typeof metadata[field] !== 'string') throw new DiscoveryError(`discovery has no ${field}`);
  return metadata as ProviderMetadata;
}

export function discover(config: ClientConfig): Promise<ProviderMetadata> {
  let pending = cache.get(config.issuer);
  if (!pending) {
    pending = load(config.issuer);
    // A failed fetch is not remembered: the next call tries again.
    pending.catch(() => cache.delete(config.issuer));
    cache.set(config.issuer, pending);
  }
  return pending;
}
