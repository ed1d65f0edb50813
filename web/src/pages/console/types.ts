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
