// The shape of GET /admin/stats (docs/admin.md "Overview figures") and the ranges the overview offers.

export interface Figures {
  sign_ins: number;
  sign_ins_by_method: Record<string, number>;
  failed_sign_ins: number;
  sign_ups: number;
  active_identities: number;
}

export interface Stats {
  bucket: 'hour' | 'day';
  from: string;
  to: string;
  time_zone: 'UTC';
  methods: string[];
  buckets: (Figures & { start: string })[];
  totals: Figures;
}

export type Bucket = Stats['bucket'];

export const RANGES = [
  { id: '24h', label: 'Last 24 hours', days: 1 },
  { id: '7d', label: 'Last 7 days', days: 7 },
  { id: '30d', label: 'Last 30 days', days: 30 },
  { id: '90d', label: 'Last 90 days', days: 90 },
  { id: '365d', label: 'Last 365 days', days: 365 },
] as const;
export type RangeId = (typeof RANGES)[number]['id'];

/** The server answers at most 31 days of hours (src/audit/stats.ts). */
export const hoursAllowed = (range: RangeId) => (RANGES.find((r) => r.id === range)?.days ?? 0) <= 31;

const STEP: Record<Bucket, number> = { hour: 3_600_000, day: 86_400_000 };

/** The stats path for a range ending with the bucket now is in: exactly that many buckets, the current one last. */
export function statsPath(range: RangeId, bucket: Bucket, now = Date.now()): string {
  const days = RANGES.find((r) => r.id === range)?.days ?? 30;
  const step = STEP[bucket];
  const count = (days * STEP.day) / step;
  // Both ends from this browser's clock: a server whose clock reads a little earlier would otherwise end the range a
  // bucket sooner (to defaults to the end of the server's current bucket).
  const to = new Date(Math.floor(now / step) * step + step);
  const from = new Date(to.getTime() - count * step);
  return `/admin/stats?${new URLSearchParams({ bucket, from: from.toISOString(), to: to.toISOString() })}`;
}

/** A bucket's start as people read it, in UTC like the buckets themselves. */
export function bucketLabel(start: string, bucket: Bucket): string {
  const date = new Date(start);
  return bucket === 'day'
    ? date.toLocaleDateString(undefined, { timeZone: 'UTC', year: 'numeric', month: 'short', day: 'numeric' })
    : date.toLocaleString(undefined, {
        timeZone: 'UTC',
        month: 'short',
        day: 'numeric',
        hour: '2-digit',
        minute: '2-digit',
      });
}

/** Sign-in methods as the console names them elsewhere. */
export const METHOD_NAMES: Record<string, string> = {
  password: 'Password',
  passkey: 'Passkey',
  federated: 'Other provider',
  saml: 'SAML',
  ldap: 'Directory (LDAP)',
  web3: 'Wallet',
  other: 'Other',
};
export const methodName = (method: string) => METHOD_NAMES[method] ?? method;
