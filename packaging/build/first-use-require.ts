// The executable's `require` for the packages of first use (first-use-packages.ts): each is read from its SEA asset.
// Bundled into the main script only, where the application's imports of those packages are routed here.
import { getAsset } from 'node:sea';
import { createFirstUseRequire } from './first-use-packages.ts';

export const requireFirstUse = createFirstUseRequire((key) => getAsset(key, 'utf8'));
