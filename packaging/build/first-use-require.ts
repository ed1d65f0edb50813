// The executable's `require` for the packages of first use (first-use-packages.ts): each is read from its SEA asset.
// Bundled into the main script only, where the application's imports of those packages are routed here.
import { createFirstUseRequire } from './first-use-packages.ts';
import { readScriptAsset } from './script-asset-read.ts';

export const requireFirstUse = createFirstUseRequire(readScriptAsset);
