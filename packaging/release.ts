// `npm run release`: per architecture, the `gatehouse` single executable (src/ bundled by esbuild, migrations/ and
// web/dist embedded as SEA assets, Node from the registry's platform package), packed with the systemd unit, an
// example configuration and the licences as gatehouse-<version>-linux-<arch>.tar.gz, then SHA256SUMS, into the
// release directory packaging/install.sh installs from (release-layout.ts). Options: --out DIR (default
// dist/release), --arch x64|arm64 (repeatable; default both), --version V (default package.json's: the system tests
// build a newer release to update to without editing package.json). See docs/operations.md.
import { execFileSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { copyFileSync, existsSync, mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { readMigrations } from '../src/db/migrate.ts';
import { bundleApp } from './build/bundle-app.ts';
import { ARCHES, type Arch, fetchNodeDistribution, pinnedNodeVersion } from './build/node-binary.ts';
import { bundleName, channelsOf, compareVersions } from './build/release-layout.ts';
import { compressScriptAssets } from './build/script-assets.ts';
import { assetsOf, injectBlob, writeSeaBlob } from './build/sea.ts';
import { bundledPackages, thirdPartyLicenses } from './build/third-party-licenses.ts';

const ROOT = path.resolve(import.meta.dirname, '..');
const { values } = parseArgs({
  options: {
    out: { type: 'string', default: 'dist/release' },
    arch: { type: 'string', multiple: true },
    version: { type: 'string' },
  },
});
const arches = (values.arch ?? [...ARCHES]) as Arch[];
for (const arch of arches) if (!ARCHES.includes(arch)) throw new Error(`--arch must be one of ${ARCHES.join(', ')}`);

const version =
  values.version ?? (JSON.parse(readFileSync(path.join(ROOT, 'package.json'), 'utf8')) as { version: string }).version;
if (!/^[0-9]+\.[0-9]+\.[0-9]+(-[0-9A-Za-z.]+)?$/.test(version)) throw new Error(`not a version: "${version}"`);
const nodeVersion = pinnedNodeVersion(ROOT);
const out = path.resolve(ROOT, values.out);
const work = path.join(ROOT, '.cache/release-work');
const log = (line: string) => process.stdout.write(`release: ${line}\n`);

if (!existsSync(path.join(ROOT, 'web/dist/index.html')))
  throw new Error('web/dist is missing: run `npm run build:web`');
rmSync(work, { recursive: true, force: true });
mkdirSync(work, { recursive: true });

log(`gatehouse ${version} on Node ${nodeVersion} for ${arches.join(', ')}`);
const bundle = path.join(work, 'gatehouse.cjs');
const app = await bundleApp(path.join(ROOT, 'packaging/build/sea-entry.ts'), bundle, {
  packageJson: path.join(ROOT, 'package.json'),
  version,
});
const blob = path.join(work, 'gatehouse.blob');
writeSeaBlob({
  node: process.execPath,
  main: bundle,
  blob,
  assets: { ...assetsOf(ROOT, ['migrations', 'web/dist']), ...compressScriptAssets(app.assets, work) },
});
const packages = bundledPackages(ROOT, app.metafile);

/** One line per migration file: "<file> <sha256>", as src/operations/release-install.ts reads it. */
const migrationsManifest = () =>
  `${readMigrations(path.join(ROOT, 'migrations/'))
    .map((m) => `${m.file} ${m.checksum}`)
    .join('\n')}\n`;

const sums: string[] = [];
for (const arch of arches) {
  const node = fetchNodeDistribution(path.join(ROOT, '.cache/node-platform'), arch, nodeVersion);
  const top = `gatehouse-${version}-linux-${arch}`;
  const stage = path.join(work, top);
  mkdirSync(path.join(stage, 'bin'), { recursive: true });
  await injectBlob(node.binary, blob, path.join(stage, 'bin/gatehouse'));
  copyFileSync(path.join(ROOT, 'packaging/gatehouse.service'), path.join(stage, 'gatehouse.service'));
  copyFileSync(path.join(ROOT, 'packaging/jemalloc.conf'), path.join(stage, 'jemalloc.conf'));
  copyFileSync(path.join(ROOT, 'packaging/gatehouse.example.toml'), path.join(stage, 'gatehouse.example.toml'));
  if (existsSync(path.join(ROOT, 'LICENSE'))) copyFileSync(path.join(ROOT, 'LICENSE'), path.join(stage, 'LICENSE'));
  writeFileSync(path.join(stage, 'THIRD-PARTY-LICENSES'), thirdPartyLicenses(packages, nodeVersion, node.license));
  // The schema this release expects, read by `gatehouse update` before it installs the release (a downgrade whose
  // schema is older than the database's is refused: src/operations/upgrade.ts).
  writeFileSync(path.join(stage, 'MIGRATIONS'), migrationsManifest());
  const tarball = path.join(work, bundleName(version, arch));
  // Reproducible archive: sorted names, root-owned, fixed times, gzip without a timestamp.
  execFileSync('tar', [
    '--sort=name',
    '--owner=0',
    '--group=0',
    '--numeric-owner',
    '--mtime=@0',
    '-I',
    'gzip -n',
    '-cf',
    tarball,
    '-C',
    work,
    top,
  ]);
  const digest = createHash('sha256').update(readFileSync(tarball)).digest('hex');
  sums.push(`${digest}  ${bundleName(version, arch)}`);
  log(`built ${bundleName(version, arch)} (${digest.slice(0, 12)}…)`);
}

for (const channel of channelsOf(version)) {
  const dir = path.join(out, channel, version);
  rmSync(dir, { recursive: true, force: true });
  mkdirSync(dir, { recursive: true });
  for (const arch of arches)
    copyFileSync(path.join(work, bundleName(version, arch)), path.join(dir, bundleName(version, arch)));
  writeFileSync(path.join(dir, 'SHA256SUMS'), `${sums.join('\n')}\n`);
  const versions = readdirSync(path.join(out, channel), { withFileTypes: true })
    .filter((entry) => entry.isDirectory())
    .map((entry) => entry.name)
    .sort(compareVersions);
  writeFileSync(path.join(out, channel, 'LATEST'), `${versions.at(-1)}\n`);
  log(`${path.relative(ROOT, dir)}: ${arches.length} bundle(s) and SHA256SUMS`);
}
// The installer beside the channels, so a host can fetch it from the same place it installs from.
copyFileSync(path.join(ROOT, 'packaging/install.sh'), path.join(out, 'install.sh'));
log(`${path.relative(ROOT, out)}/install.sh`);

// The staged executables and archives are copies of what is now in the release directory.
rmSync(work, { recursive: true, force: true });
