// The executable's side of packaging/build/script-assets.ts: a script asset read back. Bundled into the main script
// and the command line's, apart from the build's compressor, so that neither loads node:zlib or node:fs for it.
import { getAsset } from 'node:sea';

/**
 * A script asset's text, in the executable. It is ASCII, so each byte is one character. node:zlib is taken when a
 * script is first read: a handed-over supervisor, which reads none, does not load it.
 */
export function readScriptAsset(key: string): string {
  const zlib = process.getBuiltinModule('node:zlib');
  return zlib.brotliDecompressSync(getAsset(key)).toString('latin1');
}
