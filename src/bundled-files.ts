// Files that ship with the code rather than with the configuration: migrations/ and the built UI (web/dist). From a
// checkout they are read from the repository. Inside the release executable (a Node single executable application,
// packaging/) there is no tree beside the binary: they are SEA assets keyed by the same repository-relative path, and
// BUNDLE_ROOT is a name only those assets answer to. Callers keep passing directories, so tests still point the
// readers at scratch directories on disk.
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import sea from 'node:sea';

const inExecutable = sea.isSea();

/** The repository root (with a trailing slash), or the assets' virtual root inside the release executable. */
export const BUNDLE_ROOT = inExecutable ? '/gatehouse.sea/' : `${path.resolve(import.meta.dirname, '..')}/`;

/** True in the release executable, where the embedded PostgreSQL and anything else from node_modules is absent. */
export const runsFromReleaseExecutable = (): boolean => inExecutable;

const assetKey = (file: string): string | null =>
  inExecutable && file.startsWith(BUNDLE_ROOT) ? file.slice(BUNDLE_ROOT.length) : null;

/** The names of the regular files directly in `dir`, sorted; none when it does not exist. */
export function listFiles(dir: string): string[] {
  const key = assetKey(dir.endsWith('/') ? dir : `${dir}/`);
  if (key !== null)
    return sea
      .getAssetKeys()
      .filter((name) => name.startsWith(key) && !name.slice(key.length).includes('/'))
      .map((name) => name.slice(key.length))
      .sort();
  try {
    return readdirSync(dir, { withFileTypes: true })
      .filter((entry) => entry.isFile())
      .map((entry) => entry.name)
      .sort();
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return [];
    throw error;
  }
}

/** A file's bytes, or null when it does not exist. */
export function readBundledFile(file: string): Buffer | null {
  const key = assetKey(file);
  if (key !== null) return sea.getAssetKeys().includes(key) ? Buffer.from(sea.getAsset(key)) : null;
  try {
    return readFileSync(file);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return null;
    throw error;
  }
}
