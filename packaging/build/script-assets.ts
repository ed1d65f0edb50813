// The executable's scripts kept as SEA assets (the command line, the packages of first use) are stored
// Brotli-compressed. An asset is read from the executable's own pages, and a page read stays resident in every
// process that read it, as part of its RSS, beside the string compiled from it: the command line alone is 2.2 MB
// of such pages in every worker. Compressed, a worker reads about a quarter of that (docs/decisions.md, "The
// executable's scripts compressed").
import { readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { brotliCompressSync, constants } from 'node:zlib';

/** The assets that are scripts: their keys end in .cjs (bundle-app.ts writes them ASCII). */
export const isScriptAsset = (key: string): boolean => key.endsWith('.cjs');

/** `assets` with each script replaced by a compressed copy written under `dir`. */
export function compressScriptAssets(assets: Record<string, string>, dir: string): Record<string, string> {
  return Object.fromEntries(
    Object.entries(assets).map(([key, file]) => {
      if (!isScriptAsset(key)) return [key, file];
      const compressed = path.join(dir, `${key.replaceAll('/', '+')}.br`);
      writeFileSync(
        compressed,
        brotliCompressSync(readFileSync(file), {
          params: { [constants.BROTLI_PARAM_QUALITY]: 11, [constants.BROTLI_PARAM_SIZE_HINT]: 0 },
        }),
      );
      return [key, compressed];
    }),
  );
}
