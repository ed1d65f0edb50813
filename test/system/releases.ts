// The release directories the system tests install and update from, each laid out as `npm run release` writes it
// (docs/operations.md "Release directory"):
// - current: the release .ci/run built with `npm run release` (dist/release), the package.json version;
// - newer: a real build with a higher version (release.ts --version) from a copy of this tree with one more
//   migration, as a next release has: after `update` to it, going back to `current` is a downgrade whose schema is
//   older than the database's, which `update` refuses;
// - broken: a higher version still, repacked from newer with a `bin/gatehouse` whose `serve` never opens its
//   listener (everything else goes to the real executable), to see `update` return to the previous release.
import { execFileSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import {
  chmodSync,
  cpSync,
  existsSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  renameSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import path from 'node:path';
import { bundleName } from '../../packaging/build/release-layout.ts';

const ROOT = path.resolve(import.meta.dirname, '../..');
const CHANNEL = 'rc';
const ARCH = 'x64';

export interface Releases {
  dir: string;
  current: string;
  newer: string;
  broken: string;
  /** The migration only newer (and broken) carry, as schema_migrations names it. */
  newerMigration: string;
}

/** 1.1.0-rc1 → 1.1.<patch + by>-rc1: a higher version in the same channel. */
function bumped(version: string, by: number): string {
  const [core = '', pre] = version.split('-', 2);
  const [major, minor, patch] = core.split('.').map(Number);
  return `${major}.${minor}.${(patch ?? 0) + by}${pre === undefined ? '' : `-${pre}`}`;
}

function publish(dir: string, version: string, tarball: string): void {
  const versionDir = path.join(dir, CHANNEL, version);
  mkdirSync(versionDir, { recursive: true });
  const name = bundleName(version, ARCH);
  const digest = createHash('sha256').update(readFileSync(tarball)).digest('hex');
  if (path.resolve(tarball) !== path.join(versionDir, name)) cpSync(tarball, path.join(versionDir, name));
  writeFileSync(path.join(versionDir, 'SHA256SUMS'), `${digest}  ${name}\n`);
  writeFileSync(path.join(dir, CHANNEL, 'LATEST'), `${version}\n`);
  cpSync(path.join(ROOT, 'packaging/install.sh'), path.join(dir, 'install.sh'));
}

function buildNewer(work: string, out: string, version: string): string {
  const tree = path.join(work, 'tree');
  // What release.ts reads: the sources, the migrations, the built web UI and its sources (for the licence list).
  const skip = (file: string) => path.basename(file) === 'node_modules';
  for (const part of ['src', 'migrations', 'packaging', 'web', 'package.json', 'package-lock.json', 'LICENSE'])
    if (existsSync(path.join(ROOT, part)))
      cpSync(path.join(ROOT, part), path.join(tree, part), { recursive: true, filter: (file) => !skip(file) });
  symlinkSync(path.join(ROOT, 'node_modules'), path.join(tree, 'node_modules'));
  mkdirSync(path.join(tree, '.cache'));
  symlinkSync(path.join(ROOT, '.cache/node-platform'), path.join(tree, '.cache/node-platform'));
  const last =
    readdirSync(path.join(tree, 'migrations'))
      .filter((f) => /^\d{4}_.*\.sql$/.test(f))
      .sort()
      .at(-1) ?? '0000';
  const number = String(Number(last.slice(0, 4)) + 1).padStart(4, '0');
  const migration = `${number}_system_test_next_release`;
  writeFileSync(
    path.join(tree, 'migrations', `${migration}.sql`),
    "-- Only in the system tests' newer release: a schema the current release does not know.\ncreate table system_test_next_release (id integer primary key);\n",
  );
  execFileSync(process.execPath, ['packaging/release.ts', '--arch', ARCH, '--version', version, '--out', out], {
    cwd: tree,
    stdio: ['ignore', 'ignore', 'inherit'],
  });
  return migration;
}

/** newer's bundle with bin/gatehouse moved to bin/gatehouse-real behind a script whose `serve` never listens. */
function buildBroken(work: string, newerTarball: string, version: string): string {
  const unpack = path.join(work, 'broken');
  mkdirSync(unpack, { recursive: true });
  execFileSync('tar', ['-xzf', newerTarball, '-C', unpack]);
  const [top = ''] = readdirSync(unpack);
  const top2 = `gatehouse-${version}-linux-${ARCH}`;
  renameSync(path.join(unpack, top), path.join(unpack, top2));
  const bin = path.join(unpack, top2, 'bin');
  renameSync(path.join(bin, 'gatehouse'), path.join(bin, 'gatehouse-real'));
  writeFileSync(
    path.join(bin, 'gatehouse'),
    [
      '#!/bin/sh',
      '# A release that never becomes ready (system tests): serve waits without listening.',
      'if [ "$1" = serve ]; then echo "system test: this release never opens its listener" >&2; exec sleep infinity; fi',
      'exec "$(dirname "$(readlink -f "$0")")/gatehouse-real" "$@"',
      '',
    ].join('\n'),
  );
  chmodSync(path.join(bin, 'gatehouse'), 0o755);
  const tarball = path.join(work, bundleName(version, ARCH));
  execFileSync('tar', ['--owner=0', '--group=0', '--numeric-owner', '-czf', tarball, '-C', unpack, top2]);
  return tarball;
}

export async function prepareReleases(dir: string, log: (line: string) => void): Promise<Releases> {
  const built = path.join(ROOT, 'dist/release');
  if (!existsSync(path.join(built, CHANNEL, 'LATEST')))
    throw new Error('no release in dist/release: run `npm run release` first (.ci/run does)');
  const current = readFileSync(path.join(built, CHANNEL, 'LATEST'), 'utf8').trim();
  const currentTarball = path.join(built, CHANNEL, current, bundleName(current, ARCH));
  if (!existsSync(currentTarball)) throw new Error(`dist/release has no ${bundleName(current, ARCH)}`);
  publish(path.join(dir, 'current'), current, currentTarball);

  const newer = bumped(current, 1);
  const broken = bumped(current, 2);
  const work = path.join(dir, '..', 'release-work');
  log(`system tests: building release ${newer} (x64) with one more migration`);
  const newerMigration = buildNewer(work, path.join(dir, 'newer'), newer);
  const newerTarball = path.join(dir, 'newer', CHANNEL, newer, bundleName(newer, ARCH));
  publish(path.join(dir, 'broken'), broken, buildBroken(work, newerTarball, broken));
  return { dir, current, newer, broken, newerMigration };
}
