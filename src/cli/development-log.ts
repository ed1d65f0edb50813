// The development instance's JSON log goes to ./.gatehouse/log instead of the terminal, which then shows only the
// start banner and the development mailbox's lines (a /health/ready poll every few seconds buried them).
// `gatehouse logs` run in that directory reads the file; `GATEHOUSE_LOG=stdout npm start` keeps the log on the
// terminal as before. A configured service always logs to stdout (the journal under systemd).
//
// The file is bounded: past MAX_BYTES it is renamed to log.1 (replacing the one before) and a new one started, so
// a long-running instance keeps at most twice that. Writes are synchronous, as pino's stdout destination is: a
// line is on disk before the next request, and a crash loses nothing.
import { closeSync, fstatSync, openSync, renameSync, statSync, writeSync } from 'node:fs';
import type { DestinationStream } from 'pino';
import { developmentLogPath } from '../config/development-file.ts';
import type { LoadedConfig } from '../config/load.ts';
import { writeProblem } from '../crypto/secret-files.ts';
import { UsageError } from './args.ts';

/** 10 MiB: about 40,000 request lines, hours of a busy local test run. */
export const MAX_BYTES = 10 * 1024 * 1024;

/** Appends lines to `file` (0600: a log line can name people), rotating it to `file.1` past `maxBytes`. */
export class RotatingLogFile implements DestinationStream {
  readonly file: string;
  readonly #maxBytes: number;
  #fd: number;
  #size: number;
  #failing = false;

  constructor(file: string, maxBytes = MAX_BYTES) {
    this.file = file;
    this.#maxBytes = maxBytes;
    this.#fd = openSync(file, 'a', 0o600);
    this.#size = fstatSync(this.#fd).size;
  }

  write(line: string): void {
    const bytes = Buffer.byteLength(line);
    try {
      if (this.#size > 0 && this.#size + bytes > this.#maxBytes) this.#rotate();
      writeSync(this.#fd, line);
      this.#size += bytes;
      this.#failing = false;
    } catch (error) {
      // A full disk must not fail the request being logged: the line is lost, and said once until writes work again.
      if (!this.#failing)
        process.stderr.write(`Cannot write the development log ${this.file}: ${writeProblem(error)}; lines are lost\n`);
      this.#failing = true;
    }
  }

  #rotate(): void {
    // Several workers (server.workers > 1) each hold the file open: whichever comes first renames it; the others
    // find a new file under the name and only reopen.
    const ours = fstatSync(this.#fd).ino;
    let current: number | null = null;
    try {
      current = statSync(this.file).ino;
    } catch {}
    closeSync(this.#fd);
    if (current === ours) renameSync(this.file, `${this.file}.1`);
    this.#fd = openSync(this.file, 'a', 0o600);
    this.#size = fstatSync(this.#fd).size;
  }
}

/** Whether GATEHOUSE_LOG asks for the JSON log on the terminal; any other value is refused rather than ignored. */
export function logToTerminal(env: NodeJS.ProcessEnv): boolean {
  const value = env.GATEHOUSE_LOG ?? '';
  if (value !== '' && value !== 'stdout')
    throw new UsageError(`GATEHOUSE_LOG=${value}: the one value is "stdout" (the JSON log on the terminal)`);
  return value === 'stdout';
}

/**
 * The development instance's log file, or null where logs go to stdout (a configured service, GATEHOUSE_LOG). A file
 * that cannot be opened (a read-only or full file system) is said in one line and the log stays on stdout: losing
 * the log file is no reason to stop a development instance, and what does stop it (its secret files, say) is then
 * reported as such.
 */
export function developmentLog(loaded: LoadedConfig, env: NodeJS.ProcessEnv = process.env): RotatingLogFile | null {
  if (!loaded.development || logToTerminal(env)) return null;
  const file = developmentLogPath(process.cwd());
  try {
    return new RotatingLogFile(file);
  } catch (error) {
    process.stderr.write(`Cannot write the development log ${file}: ${writeProblem(error)}; logging to stdout\n`);
    return null;
  }
}
