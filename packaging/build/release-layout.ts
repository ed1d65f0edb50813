// Where a release goes, as packaging/install.sh reads it (docs/operations.md "Release directory"):
//   <release dir>/install.sh                                         the installer itself
//   <release dir>/<channel>/LATEST                                   the newest version of the channel
//   <release dir>/<channel>/<version>/gatehouse-<version>-linux-<arch>.tar.gz
//   <release dir>/<channel>/<version>/SHA256SUMS                     one line per bundle (sha256sum format)
// A version with a pre-release part (1.1.0-rc1) is published to rc only; a stable one to stable and to rc, so the
// rc channel always offers the newest build whatever its kind.

export type Channel = 'stable' | 'rc';

export const bundleName = (version: string, arch: string) => `gatehouse-${version}-linux-${arch}.tar.gz`;

export const channelsOf = (version: string): Channel[] => (version.includes('-') ? ['rc'] : ['stable', 'rc']);

/** Orders versions like 1.2.0-rc1 < 1.2.0-rc2 < 1.2.0 < 1.10.0 (numeric parts, a release after its candidates). */
export function compareVersions(a: string, b: string): number {
  const [coreA = '', preA] = a.split('-', 2);
  const [coreB = '', preB] = b.split('-', 2);
  const partsA = coreA.split('.').map(Number);
  const partsB = coreB.split('.').map(Number);
  for (let i = 0; i < Math.max(partsA.length, partsB.length); i++) {
    const diff = (partsA[i] ?? 0) - (partsB[i] ?? 0);
    if (diff !== 0) return diff;
  }
  if (preA === undefined || preB === undefined) return (preA === undefined ? 1 : 0) - (preB === undefined ? 1 : 0);
  return preA.localeCompare(preB, 'en', { numeric: true });
}
