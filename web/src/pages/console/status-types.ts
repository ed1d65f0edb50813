// Shape of GET /admin/status (docs/admin.md "Audit log and status"), and how each status reads in words.
export type CheckStatus = 'ok' | 'info' | 'warn' | 'fail';

export interface Check {
  status: CheckStatus;
  name: string;
  detail: string;
}

interface Section {
  status: CheckStatus;
  checks: Check[];
}

export interface StatusReport {
  status: CheckStatus;
  checked_at: string;
  database: Section & {
    reachable: boolean;
    location: string;
    server_version: string | null;
    migrations: { known: number; pending: string[] } | null;
  };
  delivery: Section & { kind: string; state: 'ready' | 'deferred' | 'not_configured'; reason: string };
  providers: Section & {
    providers: { id: string; kind: 'redirect' | 'web3'; state: 'enabled' | 'deferred' | 'off'; detail: string }[];
  };
  tls: Section & {
    mode: 'acme' | 'files' | 'external';
    certificate?: { subject: string; issuer: string; not_before: string; not_after: string; days_left: number } | null;
    acme?: { directory_url: string; domain: string; contact_email: string };
  };
  signing_keys: Section & {
    keys: { kid: string; created_at: string | null; retired_at: string | null; signing: boolean }[];
  };
}

/** Words, not colour alone: the badge text is what a screen reader and a colour-blind reader get. */
export const STATUS_WORDS: Record<CheckStatus, string> = {
  ok: 'OK',
  info: 'Note',
  warn: 'Warning',
  fail: 'Error',
};

export const DELIVERY_STATES = { ready: 'Configured', deferred: 'Deferred', not_configured: 'Not configured' };
export const PROVIDER_STATES = { enabled: 'Enabled', deferred: 'Deferred', off: 'Off' };
