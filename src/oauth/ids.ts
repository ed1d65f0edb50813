import { secureRandomBytes } from '../crypto/primitives.ts';

export const newGrantId = () => `grt_${secureRandomBytes(16).toString('base64url')}`;
export const newTokenId = () => secureRandomBytes(16).toString('base64url');
