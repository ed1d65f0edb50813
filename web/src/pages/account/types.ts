import type { Locale } from '../../../../src/i18n/locales.ts';
export interface Profile {
  identity_id: string;
  display_name: string;
  email: string | null;
  email_verified: boolean;
  assurance: string;
  /** Without a password, changes are confirmed by signing in again with another method. */
  password_set: boolean;
  /** The chosen language (src/i18n/locales.ts); null follows the browser. */
  locale: Locale | null;
}

export interface SessionView {
  id: string;
  current: boolean;
  aal: string;
  created_at: string;
  last_seen_at: string;
  client_ip: string | null;
  user_agent: string | null;
  /** Browser and system in words ("Firefox 128 on Ubuntu"), from the server. */
  device: string | null;
}

export interface Connection {
  id: string;
  kind: string;
  provider: string;
  /** An LDAP directory's configured name, else null. */
  provider_name: string | null;
  label: string;
  subject: string | null;
  created_at: string;
  last_used_at: string | null;
}
