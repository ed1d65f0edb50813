// The shape every part of the status report shares: a worst-of status and the lines `gatehouse doctor` prints.
import type { Check, CheckStatus } from '../delivery/check.ts';

export interface Section {
  /** The worst status among `checks`: ok < info < warn < fail. */
  status: CheckStatus;
  checks: Check[];
}

const RANK: Record<CheckStatus, number> = { ok: 0, info: 1, warn: 2, fail: 3 };

export function worst(statuses: CheckStatus[]): CheckStatus {
  return statuses.reduce<CheckStatus>((a, b) => (RANK[b] > RANK[a] ? b : a), 'ok');
}

export const sectionOf = (checks: Check[]): Section => ({ status: worst(checks.map((c) => c.status)), checks });
