// One ACME order (RFC 8555 §7.4) for the issuer's host name with `acme-client`: account (key generated once, kept
// in data.dir/tls, acme-files.ts), HTTP-01 challenges answered from PostgreSQL by every node's challenge listener,
// finalize with a fresh ECDSA P-256 key, download the chain. acme-client (and its axios and forge) is imported only
// here, on first use, so the other TLS modes never load it.

import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { Agent, get } from 'node:https';
import path from 'node:path';
import { isReservedHostname } from '../config/placeholders.ts';
import type { Sql } from '../db/pool.ts';
import { type AcmePaths, readIfPresent } from './acme-files.ts';
import { AcmeUnreachable, errorText } from './acme-start-failure.ts';
import { deleteChallenge, putChallenge } from './challenge-store.ts';

export interface AcmeSettings {
  directoryUrl: string;
  /** Contact for the account (RFC 8555 §7.3); empty registers none. */
  email: string;
  /** PEM of a private authority that signed the directory's HTTPS certificate; marks the authority as private. */
  caFile: string;
  domain: string;
}

export class AcmeRefused extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'AcmeRefused';
  }
}

/** A challenge row outlives any sane order, and is deleted when the order ends. */
const CHALLENGE_TTL_MS = 15 * 60_000;

/**
 * SPEC.md "TLS": reserved and test names never go to a public authority. An authority reached through a private CA
 * (tls.acme_ca_file) is the operator's own, which may issue for any name.
 */
export function assertOrderAllowed(settings: AcmeSettings): void {
  if (isReservedHostname(settings.domain) && settings.caFile === '')
    throw new AcmeRefused(
      `${settings.domain} is a reserved name: no certificate is ordered from the public authority ${settings.directoryUrl} (use tls.mode "files" or "external", or a private ACME authority with tls.acme_ca_file)`,
    );
}

/**
 * The ACME account key: this node's file, else the one an earlier release kept in secrets.dir (copied here so the
 * account carries on), else a new one.
 */
async function accountKey(paths: AcmePaths, create: () => Promise<Buffer>): Promise<Buffer> {
  const existing = readIfPresent(paths.accountKey);
  if (existing) return existing;
  const key = readIfPresent(paths.legacy.accountKey) ?? (await create());
  mkdirSync(path.dirname(paths.accountKey), { recursive: true, mode: 0o700 });
  try {
    // 'wx': two nodes sharing a data directory never replace each other's account key.
    writeFileSync(paths.accountKey, key, { mode: 0o600, flag: 'wx' });
    return key;
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
    return readFileSync(paths.accountKey);
  }
}

/** How long the directory may take to answer the reachability check. */
const DIRECTORY_TIMEOUT_MS = 10_000;

/**
 * Fetches the directory once before the order. acme-client retries an unreachable server for over a minute and then
 * loses the cause (its retry interceptor fails on the missing response), so an authority that is down is named here,
 * at once, with the network error.
 */
function checkDirectory(url: string, agent: Agent | undefined): Promise<void> {
  return new Promise((resolve, reject) => {
    const fail = (why: string) => reject(new AcmeUnreachable(`the ACME directory ${url} is unreachable: ${why}`));
    const request = get(url, { ...(agent ? { agent } : {}), timeout: DIRECTORY_TIMEOUT_MS }, (response) => {
      response.resume();
      if (response.statusCode === 200) resolve();
      else fail(`HTTP ${response.statusCode}`);
    });
    request.on('timeout', () => request.destroy(new Error(`no answer within ${DIRECTORY_TIMEOUT_MS / 1000} s`)));
    request.on('error', (error) => fail(errorText(error)));
  });
}

export async function orderCertificate(deps: {
  sql: Sql;
  clock: () => Date;
  settings: AcmeSettings;
  paths: AcmePaths;
}): Promise<{ cert: string; key: string }> {
  const { settings } = deps;
  assertOrderAllowed(settings);
  const agent = settings.caFile === '' ? undefined : new Agent({ ca: readFileSync(settings.caFile) });
  await checkDirectory(settings.directoryUrl, agent);
  const acme = await import('acme-client');
  // acme-client talks through one axios instance; the private authority's CA is trusted there and nowhere else.
  if (agent) acme.axios.defaults.httpsAgent = agent;
  const registered =
    readIfPresent(deps.paths.accountKey) !== null || readIfPresent(deps.paths.legacy.accountKey) !== null;
  const client = new acme.Client({
    directoryUrl: settings.directoryUrl,
    accountKey: await accountKey(deps.paths, () => acme.crypto.createPrivateEcdsaKey()),
    backoffAttempts: 8,
    backoffMin: 250,
    backoffMax: 5000,
  });
  if (registered) {
    // A renewal (or a restart) with the account of an earlier order: look it up (RFC 8555 §7.3.1 onlyReturnExisting)
    // instead of registering again. Registering an existing account makes acme-client send an account update, which
    // without a contact address carries nothing but the terms, and strict servers refuse that as an empty update.
    // An account the authority no longer knows is registered anew by client.auto below.
    await client.createAccount({ onlyReturnExisting: true }).catch(() => {});
  }
  const [key, csr] = await acme.crypto.createCsr(
    { commonName: settings.domain, altNames: [settings.domain] },
    await acme.crypto.createPrivateEcdsaKey(),
  );
  const cert = await client.auto({
    csr,
    ...(settings.email ? { email: settings.email } : {}),
    // Choosing tls.mode "acme" is the operator's agreement to the authority's terms.
    termsOfServiceAgreed: true,
    challengePriority: ['http-01'],
    // The authority's own validation is the check; a self-check from inside the host proves nothing about port 80.
    skipChallengeVerification: true,
    challengeCreateFn: async (_authz, challenge, keyAuthorization) => {
      const now = deps.clock();
      await putChallenge(deps.sql, challenge.token, keyAuthorization, new Date(now.getTime() + CHALLENGE_TTL_MS), now);
    },
    challengeRemoveFn: async (_authz, challenge) => {
      await deleteChallenge(deps.sql, challenge.token);
    },
  });
  return { cert, key: key.toString() };
}
