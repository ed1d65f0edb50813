import { secureRandomBytes } from '../crypto/primitives.ts';

/** An OAuth client id. `cli_` keeps it disjoint from identity subs (`usr_`), RFC 9700 §4.15. */
export type ClientId = string & { readonly __brand: 'ClientId' };

const newId = (prefix: string) => `${prefix}_${secureRandomBytes(16).toString('base64url')}`;

export const newClientId = () => newId('cli') as ClientId;
export const newApplicationId = () => newId('app');
export const newResourceId = () => newId('res');
