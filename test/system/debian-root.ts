// The Debian 13 root file system the system tests boot: built by Debian's mmdebstrap from deb.debian.org with the
// packages in rootfs-packages, as one tarball cached outside the checkout (CI clones afresh on every run) under
// $GATEHOUSE_SYSTEM_CACHE (default /var/cache/gatehouse-system-test), named by a digest of the package list, so it
// is rebuilt only when that list changes. Each boot unpacks a fresh copy: nothing of a run survives into the next.
import { execFileSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, renameSync, rmSync } from 'node:fs';
import path from 'node:path';

const SUITE = 'trixie';
const MIRROR = 'http://deb.debian.org/debian';
const LIST = path.join(import.meta.dirname, 'rootfs-packages');

export const cacheDir = () => process.env.GATEHOUSE_SYSTEM_CACHE ?? '/var/cache/gatehouse-system-test';

function packages(): string[] {
  return readFileSync(LIST, 'utf8')
    .split('\n')
    .map((line) => line.trim())
    .filter((line) => line !== '' && !line.startsWith('#'));
}

/** The cached tarball for the current package list, built first when it is missing (a cold build: about 2 min). */
export function debianRootTarball(log: (line: string) => void): string {
  const list = packages();
  const key = createHash('sha256')
    .update(`${SUITE}\n${MIRROR}\n${list.join('\n')}`)
    .digest('hex')
    .slice(0, 16);
  const tarball = path.join(cacheDir(), `debian-${SUITE}-${key}.tar`);
  if (existsSync(tarball)) return tarball;
  mkdirSync(cacheDir(), { recursive: true });
  const partial = `${tarball}.partial`;
  rmSync(partial, { force: true });
  log(`building ${tarball} with mmdebstrap (${list.join(', ')})`);
  execFileSync(
    'mmdebstrap',
    ['--quiet', '--variant=minbase', `--include=${list.join(',')}`, '--format=tar', SUITE, partial, MIRROR],
    { stdio: ['ignore', 'inherit', 'inherit'] },
  );
  renameSync(partial, tarball);
  return tarball;
}
