// Turns the bundle into a Node single executable application: `node --experimental-sea-config` writes the
// preparation blob (the bundled script plus the assets bundled-files.ts reads), and postject injects it into a copy of
// the target's Node binary. The blob carries no code cache or snapshot, so one blob built on x64 serves both
// architectures; it must come from the same Node version as the binaries, which it does (the pinned one).
import { execFileSync } from 'node:child_process';
import { chmodSync, copyFileSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { inject } from 'postject';

// The fuse the Node binary carries, from Node's single-executable-applications documentation.
const SENTINEL_FUSE = 'NODE_SEA_FUSE_fce680ab2cc467b6e072b8b5df1996b2';

/** Every file under `dirs` (repository-relative), as SEA assets keyed by that same path. */
export function assetsOf(root: string, dirs: string[]): Record<string, string> {
  const assets: Record<string, string> = {};
  for (const dir of dirs)
    for (const entry of readdirSync(path.join(root, dir), { recursive: true, withFileTypes: true }))
      if (entry.isFile()) {
        const file = path.join(entry.parentPath, entry.name);
        assets[path.relative(root, file)] = file;
      }
  return assets;
}

export function writeSeaBlob(options: { node: string; main: string; blob: string; assets: Record<string, string> }) {
  const config = path.join(path.dirname(options.blob), 'sea-config.json');
  const seaConfig = {
    main: options.main,
    output: options.blob,
    disableExperimentalSEAWarning: true,
    useSnapshot: false,
    useCodeCache: false,
    // src/gatehouse.mjs's shebang option (docs/decisions.md, "Idle RSS").
    execArgv: ['--max-semi-space-size=2'],
    assets: options.assets,
  };
  writeFileSync(config, JSON.stringify(seaConfig, null, 2));
  execFileSync(options.node, ['--experimental-sea-config', config], { stdio: ['ignore', 'ignore', 'inherit'] });
}

export async function injectBlob(nodeBinary: string, blob: string, executable: string): Promise<void> {
  copyFileSync(nodeBinary, executable);
  chmodSync(executable, 0o755);
  // postject's LIEF prints "Can't find string offset for section name '.note'" for Node's ELF notes: harmless.
  await inject(executable, 'NODE_SEA_BLOB', readFileSync(blob), { sentinelFuse: SENTINEL_FUSE });
}
