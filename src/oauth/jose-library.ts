// jose, loaded at its first use: private_key_jwt client authentication (client assertions and the clients' key
// sets). A node whose clients all authenticate with a secret, or none, never loads it (docs/decisions.md "Smaller
// processes"). require() of this ES module is synchronous in Node 24, which keeps the callers' shapes.
import { createRequire } from 'node:module';
import type * as Jose from 'jose';

const require = createRequire(import.meta.url);
let loaded: typeof Jose | null = null;

export function jose(): typeof Jose {
  loaded ??= require('jose') as typeof Jose;
  return loaded;
}
