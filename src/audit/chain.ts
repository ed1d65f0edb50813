import { hmac } from '../crypto/primitives.ts';

export const GENESIS_HASH = '0'.repeat(64);

export interface ChainRecord {
  chain: string;
  seq: number;
  occurredAt: string;
  event: string;
  actor: string | null;
  subject: string | null;
  clientIp: string | null;
  requestId: string | null;
  details: Record<string, unknown>;
}

/** JSON with sorted keys at every level, so the same record always hashes the same. */
export function canonicalJson(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonicalJson).join(',')}]`;
  if (value !== null && typeof value === 'object') {
    const entries = Object.entries(value as Record<string, unknown>).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
    return `{${entries.map(([k, v]) => `${JSON.stringify(k)}:${canonicalJson(v)}`).join(',')}}`;
  }
  return JSON.stringify(value);
}

export function canonicalRecord(record: ChainRecord): string {
  return canonicalJson(record);
}

export function chainHash(key: Buffer, prevHash: string, canonical: string): string {
  return hmac(key, prevHash, '\n', canonical).toString('hex');
}
