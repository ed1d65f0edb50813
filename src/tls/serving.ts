// The TLS side of the listener for each tls.mode: the certificate it opens with, and how a new one reaches the
// running server (server.setSecureContext, so open connections keep theirs and new handshakes get the new one).
import type { Server as HttpsServer } from 'node:https';
import { parseListen } from '../config/listen-address.ts';
import type { Config } from '../config/schema.ts';
import type { Sql } from '../db/pool.ts';
import { acmePaths } from './acme-files.ts';
import { type AcmeMode, type RenewalOutcome, startAcmeMode } from './acme-mode.ts';
import type { CertificatePair } from './certificate-pair.ts';
import { type ChallengeListener, startChallengeListener } from './challenge-listener.ts';
import { startFilesMode } from './files-mode.ts';

type Log = {
  info(obj: object, msg: string): void;
  warn(obj: object, msg: string): void;
  error(obj: object, msg: string): void;
};

export interface ServedTls {
  /** What the HTTPS listener opens with; null in mode external (plain HTTP). */
  readonly initial: { cert: string; key: string } | null;
  /** After listen: later certificates go to this server. */
  attach(server: HttpsServer): void;
  /** SIGHUP: files re-reads the certificate and key; acme checks whether renewal is due. */
  reload(reason: string): Promise<boolean | RenewalOutcome>;
  /** Mode acme only: the plain-HTTP challenge listener's port (tests point the authority at it). */
  readonly challengePort: number | null;
  stop(): Promise<void>;
}

export interface ServeTlsOptions {
  /** Tests: stat interval of mode files (ms). */
  filesPollMs?: number;
  /** Tests: hourly renewal check interval of mode acme (ms); 0 turns the timer off. */
  acmeCheckMs?: number;
}

export async function prepareTls(
  deps: { config: Config; sql: Sql; clock: () => Date; log: Log },
  options: ServeTlsOptions = {},
): Promise<ServedTls> {
  const { config, log } = deps;
  let target: HttpsServer | null = null;
  const apply = (pair: CertificatePair) => target?.setSecureContext({ cert: pair.cert, key: pair.key });

  if (config.tls.mode === 'files') {
    const files = startFilesMode({
      certFile: config.tls.cert_file,
      keyFile: config.tls.key_file,
      apply,
      log,
      ...(options.filesPollMs ? { pollMs: options.filesPollMs } : {}),
    });
    return {
      initial: files.initial,
      attach: (server) => {
        target = server;
      },
      reload: async (reason) => files.reload(reason),
      challengePort: null,
      stop: async () => files.stop(),
    };
  }

  if (config.tls.mode === 'acme') {
    const listen = parseListen(config.tls.acme_http_listen) ?? { host: '::', port: 80 };
    const challenges: ChallengeListener = await startChallengeListener(
      deps.sql,
      config.server.issuer,
      listen,
      deps.clock,
      log,
    );
    let acme: AcmeMode;
    try {
      acme = await startAcmeMode({
        sql: deps.sql,
        clock: deps.clock,
        settings: {
          directoryUrl: config.tls.acme_directory_url,
          email: config.tls.acme_email,
          caFile: config.tls.acme_ca_file,
          domain: new URL(config.server.issuer).hostname,
        },
        paths: acmePaths({ secretsDir: config.secrets.dir, dataDir: config.data.dir }),
        renewBeforeDays: config.tls.acme_renew_days,
        apply,
        log,
        ...(options.acmeCheckMs !== undefined ? { checkMs: options.acmeCheckMs } : {}),
      });
    } catch (error) {
      await challenges.close();
      throw error;
    }
    return {
      initial: acme.initial,
      attach: (server) => {
        target = server;
      },
      reload: () => acme.renewIfDue(),
      challengePort: challenges.port,
      stop: async () => {
        acme.stop();
        await challenges.close();
      },
    };
  }

  return {
    initial: null,
    attach: () => {},
    reload: async () => {
      log.info({}, 'tls.mode is external: no certificate to reload');
      return false;
    },
    challengePort: null,
    stop: async () => {},
  };
}
