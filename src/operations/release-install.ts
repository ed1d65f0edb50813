// The installed releases under <root>/opt/gatehouse, laid out as packaging/install.sh leaves them: one directory per
// version, `current` a symlink to one of them (switched with one rename, so it always names a whole release), and
// `channel` naming the channel `gatehouse update` follows.
import {
  existsSync,
  mkdirSync,
  readFileSync,
  readlinkSync,
  renameSync,
  rmSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import path from 'node:path';
import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { extract } from 'tar';
import type { Channel } from '../../packaging/build/release-layout.ts';
import { OperationRefused } from './errors.ts';

export interface Installation {
  opt: string;
}

export const installationAt = (root: string): Installation => ({ opt: path.join(root, 'opt/gatehouse') });

export function currentVersion(inst: Installation): string {
  try {
    return path.basename(readlinkSync(path.join(inst.opt, 'current')));
  } catch {
    throw new OperationRefused(
      `no installed release at ${inst.opt} (no current symlink): install with install.sh first`,
    );
  }
}

/** The channel recorded by the last upgrade; before any, the one the installed version was published to. */
export function followedChannel(inst: Installation, version: string): Channel {
  const file = path.join(inst.opt, 'channel');
  const recorded = existsSync(file) ? readFileSync(file, 'utf8').trim() : '';
  if (recorded === 'stable' || recorded === 'rc') return recorded;
  return version.includes('-') ? 'rc' : 'stable';
}

export function recordChannel(inst: Installation, channel: Channel): void {
  writeFileSync(path.join(inst.opt, 'channel'), `${channel}\n`, { mode: 0o644 });
}

/** Unpacks a verified bundle beside the others as `.<version>.new`; `place()` then moves it to <version>. */
export async function unpackBundle(inst: Installation, version: string, data: Buffer) {
  const staging = path.join(inst.opt, `.${version}.new`);
  rmSync(staging, { recursive: true, force: true });
  mkdirSync(staging, { recursive: true, mode: 0o755 });
  await pipeline(Readable.from([data]), extract({ cwd: staging, strip: 1 }));
  const target = path.join(inst.opt, version);
  return {
    dir: staging,
    discard: () => rmSync(staging, { recursive: true, force: true }),
    place(): string {
      rmSync(target, { recursive: true, force: true });
      renameSync(staging, target);
      return target;
    },
  };
}

/** Points `current` at `version` in one rename. */
export function switchCurrent(inst: Installation, version: string): void {
  const temporary = path.join(inst.opt, '.current.new');
  rmSync(temporary, { force: true });
  symlinkSync(version, temporary);
  renameSync(temporary, path.join(inst.opt, 'current'));
}

/** The migrations a bundle carries (MIGRATIONS: "<file> <sha256>" per line, written by packaging/release.ts). */
export function bundleMigrations(dir: string): Map<string, string> | null {
  const file = path.join(dir, 'MIGRATIONS');
  if (!existsSync(file)) return null;
  const entries = readFileSync(file, 'utf8')
    .split('\n')
    .map((line) => line.trim().split(/\s+/))
    .filter((parts): parts is [string, string] => parts.length === 2 && parts[0] !== '');
  return new Map(entries);
}
