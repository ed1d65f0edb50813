// One sign-in in flight: what login() created and handleCallback() needs, kept in the tab's sessionStorage so
// another tab or a later visit cannot complete it, and removed the moment the callback reads it.
import type { GatehouseConfig } from './config.ts';

export interface Transaction {
  state: string;
  nonce: string;
  verifier: string;
  redirectUri: string;
}

const KEY = 'gatehouse.transaction';

const storageOf = (config: GatehouseConfig) => config.storage ?? sessionStorage;

export function saveTransaction(config: GatehouseConfig, transaction: Transaction): void {
  storageOf(config).setItem(KEY, JSON.stringify(transaction));
}

/** The transaction, removed: a callback is handled once, whatever its outcome. */
export function takeTransaction(config: GatehouseConfig): Transaction | null {
  const storage = storageOf(config);
  const raw = storage.getItem(KEY);
  storage.removeItem(KEY);
  if (!raw) return null;
  try {
    const value = JSON.parse(raw) as Partial<Transaction>;
    if (
      typeof value.state === 'string' &&
      typeof value.nonce === 'string' &&
      typeof value.verifier === 'string' &&
      typeof value.redirectUri === 'string'
    )
      return value as Transaction;
  } catch {}
  return null;
}
