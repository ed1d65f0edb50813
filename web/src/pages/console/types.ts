// Shapes of the administration API's JSON (see docs/oauth.md).
export type Environment = 'development' | 'staging' | 'production';
export type ClientKind = 'browser' | 'native' | 'web' | 'service';

export interface Application {
  id: string;
  identifier: string;
  name: string;
  environment: Environment;
  created_at: string;
}

export interface Client {
  client_id: string;
  application_id: string;
  name: string;
  kind: ClientKind;
  redirect_uris: string[];
  post_logout_redirect_uris: string[];
  scopes: string[];
  audiences: string[];
  first_party: boolean;
  token_endpoint_auth_method: 'none' | 'client_secret_post' | 'private_key_jwt';
  jwks: { keys: unknown[] } | null;
  jwks_uri: string | null;
  dpop_bound_access_tokens: boolean;
  require_pushed_authorization_requests: boolean;
  backchannel_logout_uri: string | null;
  backchannel_logout_session_required: boolean;
  /** RFC 8693: registered audiences the client may exchange a person's access token for; empty: none. */
  token_exchange_audiences: string[];
  device_authorization_grant: boolean;
  created_at: string;
  client_secret?: string;
}

export interface Resource {
  id: string;
  audience: string;
  name: string;
  scopes: string[];
  created_at: string;
}

/** "a b\nc" → ["a", "b", "c"]: lists are typed one per line or separated by spaces. */
export const splitList = (text: string) => text.split(/[\s,]+/).filter(Boolean);

export type IdentityState = 'pending_verification' | 'active' | 'suspended' | 'deleted';
export type Ial = 'ial1' | 'ial2';

export interface IdentitySummary {
  sub: string;
  state: IdentityState;
  ial: Ial;
  display_name: string;
  email: string | null;
  /** Active, but the person has not used their invitation (enrollment) link yet: nobody can sign in to it. */
  invited: boolean;
  created_at: string;
}

/** The state as the console shows it: "invited" until the person accepts, then the identity's state. */
export const shownState = (identity: { state: IdentityState; invited: boolean }) =>
  identity.invited ? 'invited' : identity.state;

export interface IdentityDetail {
  sub: string;
  state: IdentityState;
  ial: Ial;
  display_name: string;
  invited: boolean;
  created_at: string;
  emails: { address: string; primary: boolean; verified: boolean; created_at: string }[];
  sign_in_methods: {
    id: string;
    kind: string;
    provider: string;
    label: string;
    created_at: string;
    last_used_at: string | null;
  }[];
  memberships: { organization_id: string; organization_name: string; roles: string[]; joined_at: string }[];
  sessions: {
    id: string;
    aal: string;
    created_at: string;
    last_seen_at: string;
    client_ip: string | null;
    user_agent: string | null;
    /** The browser and system in words, e.g. "Firefox 128 on Windows 10"; null when the User-Agent names neither. */
    device: string | null;
  }[];
}

export interface Organization {
  id: string;
  name: string;
  bootstrap: boolean;
}

export interface Member extends Omit<IdentitySummary, 'created_at'> {
  roles: string[];
  joined_at: string;
}

export const when = (iso: string | null) => (iso ? new Date(iso).toLocaleString() : 'never');
