// tls.mode = "files": the operator's certificate and key, served as they are and reloaded when they change (the
// files are stat-polled, which also sees a renewal tool replacing them by rename) or on SIGHUP. A reload that
// fails keeps serving the previous certificate and says why; a restart with bad files refuses to start.
import { type Stats, unwatchFile, watchFile } from 'node:fs';
import { type CertificatePair, readCertificatePair } from './certificate-pair.ts';

export interface FilesModeDeps {
  certFile: string;
  keyFile: string;
  /** Installs a new pair on the listener (server.setSecureContext). */
  apply: (pair: CertificatePair) => void;
  log: { info(obj: object, msg: string): void; error(obj: object, msg: string): void };
  /** How often the files are stat-ed; 10 s in production, shorter in tests. */
  pollMs?: number;
}

export interface FilesMode {
  /** The pair read at start (throws TlsFileError naming the file when it is unusable). */
  readonly initial: CertificatePair;
  /** Reads the files again and installs them; on failure keeps the old pair. Returns whether it reloaded. */
  reload(reason: string): boolean;
  stop(): void;
}

const POLL_MS = 10_000;

export function startFilesMode(deps: FilesModeDeps): FilesMode {
  const initial = readCertificatePair(deps.certFile, deps.keyFile);
  let serving = initial;
  const reload = (reason: string): boolean => {
    let next: CertificatePair;
    try {
      next = readCertificatePair(deps.certFile, deps.keyFile);
    } catch (error) {
      deps.log.error(
        { reason, error: (error as Error).message, serving: serving.leaf.fingerprint256 },
        'TLS reload refused: still serving the previous certificate',
      );
      return false;
    }
    deps.apply(next);
    serving = next;
    deps.log.info(
      { reason, subject: next.leaf.subject, not_after: next.leaf.validToDate.toISOString() },
      'TLS certificate reloaded',
    );
    return true;
  };
  // A certificate and key are often replaced one after the other: the first change may see a mismatched pair, which
  // is refused, and the second change reloads the matching pair.
  const interval = deps.pollMs ?? POLL_MS;
  const listeners = [deps.certFile, deps.keyFile].map((file) => {
    const listener = (current: Stats, previous: Stats) => {
      if (current.mtimeMs !== previous.mtimeMs || current.ino !== previous.ino) reload(`${file} changed`);
    };
    watchFile(file, { interval, persistent: false }, listener);
    return { file, listener };
  });
  return {
    initial,
    reload,
    stop() {
      for (const { file, listener } of listeners) unwatchFile(file, listener);
    },
  };
}
