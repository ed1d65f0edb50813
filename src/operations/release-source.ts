// A release location as packaging/install.sh reads it (docs/operations.md "Release directory"): an https:// URL or a
// local directory holding <channel>/LATEST and <channel>/<version>/{SHA256SUMS, gatehouse-<version>-linux-<arch>.tar.gz}.
// Same rules and the same refusals as the installer: never plain http, a version must look like one (so a hostile
// LATEST cannot name a path outside the location), and a bundle is used only when it matches its SHA256SUMS line.
import { createHash } from 'node:crypto';
import { existsSync, readFileSync, statSync } from 'node:fs';
import path from 'node:path';
import { bundleName, type Channel } from '../../packaging/build/release-layout.ts';
import { OperationRefused } from './errors.ts';

export const CHANNELS: readonly Channel[] = ['stable', 'rc'];
const VERSION_SHAPE = /^[0-9]+\.[0-9]+\.[0-9]+(-[0-9A-Za-z.]+)?$/;

/** Reads one file under the location; null when it is not there (HTTP 404 or no such file). */
export type ReleaseReader = (relative: string) => Promise<Buffer | null>;

export function releaseReader(from: string): ReleaseReader {
  if (/^https:\/\//.test(from))
    return async (relative) => {
      const url = `${from.replace(/\/$/, '')}/${relative}`;
      let response: Response;
      try {
        response = await fetch(url, { signal: AbortSignal.timeout(120_000) });
      } catch (error) {
        // fetch says only "fetch failed"; the reason (certificate, DNS, refused) is its cause.
        const cause = (error as { cause?: { message?: string } }).cause?.message;
        throw new OperationRefused(`cannot download ${url}: ${(error as Error).message}${cause ? ` (${cause})` : ''}`);
      }
      if (response.status === 404) return null;
      if (!response.ok) throw new OperationRefused(`cannot download ${url}: HTTP ${response.status}`);
      return Buffer.from(await response.arrayBuffer());
    };
  if (/^[a-z]+:\/\//i.test(from))
    throw new OperationRefused(`refusing ${from}: the release location must be https:// or a local directory`);
  if (!existsSync(from) || !statSync(from).isDirectory())
    throw new OperationRefused(`release location ${from} is not a directory`);
  return async (relative) => {
    const file = path.join(from, relative);
    return existsSync(file) ? readFileSync(file) : null;
  };
}

export async function latestVersion(read: ReleaseReader, from: string, channel: Channel): Promise<string> {
  const latest = await read(`${channel}/LATEST`);
  if (!latest) throw new OperationRefused(`no ${channel} channel at ${from} (${channel}/LATEST is missing)`);
  const version = latest.toString('utf8').split('\n')[0]?.trim() ?? '';
  if (!VERSION_SHAPE.test(version)) throw new OperationRefused(`not a version: "${version}" in ${channel}/LATEST`);
  return version;
}

/** The bundle for `arch`, checked against SHA256SUMS; refuses a missing, unlisted or mismatching one. */
export async function verifiedBundle(
  read: ReleaseReader,
  from: string,
  channel: Channel,
  version: string,
  arch: string,
): Promise<{ name: string; data: Buffer; sha256: string }> {
  const name = bundleName(version, arch);
  const sums = await read(`${channel}/${version}/SHA256SUMS`);
  if (!sums)
    throw new OperationRefused(
      `no release ${version} in the ${channel} channel at ${from} (${channel}/${version}/SHA256SUMS is missing)`,
    );
  const expected = sums
    .toString('utf8')
    .split('\n')
    .map((line) => line.trim().split(/\s+/))
    .find(([, file]) => file === name || file === `*${name}`)?.[0];
  if (!expected)
    throw new OperationRefused(
      `no bundle for linux-${arch} in release ${version} (${name} is not in SHA256SUMS); nothing was installed`,
    );
  const data = await read(`${channel}/${version}/${name}`);
  if (!data)
    throw new OperationRefused(`${name} is listed in SHA256SUMS but missing at ${from}; nothing was installed`);
  const actual = createHash('sha256').update(data).digest('hex');
  if (actual !== expected)
    throw new OperationRefused(
      `checksum mismatch for ${name} (SHA256SUMS says ${expected}, the file is ${actual}); nothing was installed`,
    );
  return { name, data, sha256: actual };
}
