// `gatehouse logs`: the service's log lines. The service logs JSON to its stdout; under systemd that is the journal,
// read with journalctl. Where the operator sends stdout to a file instead, --file names it. In the directory of a
// development instance it is the instance's ./.gatehouse/log (development-log.ts), with log.1 before it.
import { spawn } from 'node:child_process';
import { createReadStream, existsSync, statSync, watch } from 'node:fs';
import { open } from 'node:fs/promises';
import { developmentLogPath, isDevelopmentConfig } from '../config/development-file.ts';
import { resolveConfigPath } from '../config/load.ts';
import type { CommandInput } from './args.ts';
import { UsageError } from './args.ts';
import { UnavailableError } from './failures.ts';
import { serviceState, UNIT } from './service.ts';

type Values = { lines?: string; follow?: boolean; file?: string };

function lineCount(value: string | undefined): number {
  const lines = value === undefined ? 100 : Number(value);
  if (!Number.isInteger(lines) || lines < 0) throw new UsageError('--lines must be a whole number');
  return lines;
}

/** The last `count` lines of a file, reading backwards in blocks so a large log is not read whole. */
async function lastLines(file: string, count: number): Promise<{ text: string; end: number }> {
  const handle = await open(file, 'r');
  try {
    const { size } = await handle.stat();
    let position = size;
    let text = '';
    while (position > 0 && text.split('\n').length <= count + 1) {
      const length = Math.min(65_536, position);
      position -= length;
      const buffer = Buffer.alloc(length);
      await handle.read(buffer, 0, length, position);
      text = buffer.toString('utf8') + text;
    }
    const lines = text.split('\n');
    if (lines.at(-1) === '') lines.pop();
    const kept = count === 0 ? [] : lines.slice(-count);
    return { text: kept.length ? `${kept.join('\n')}\n` : '', end: size };
  } finally {
    await handle.close();
  }
}

/** Prints what is appended to `file` from `offset` on, until the process is stopped. */
function follow(file: string, offset: number): Promise<number> {
  let position = offset;
  let reading = false;
  const readMore = () => {
    if (reading) return;
    const size = statSync(file).size;
    if (size < position) position = 0; // truncated or rotated in place
    if (size === position) return;
    reading = true;
    createReadStream(file, { start: position, end: size - 1 })
      .on('data', (chunk) => process.stdout.write(chunk))
      .on('end', () => {
        position = size;
        reading = false;
        readMore();
      });
  };
  watch(file, readMore);
  // What was appended between the first read and the watch starting has no event of its own; and a file system
  // without change events (some network mounts) still gets read every second.
  readMore();
  setInterval(readMore, 1000);
  return new Promise(() => {});
}

function journalctl(lines: number, followIt: boolean): Promise<number> {
  const args = ['--unit', UNIT, '--lines', String(lines), '--no-pager', '--output', 'cat'];
  if (followIt) args.push('--follow');
  return new Promise((resolve, reject) => {
    const child = spawn('journalctl', args, { stdio: 'inherit' });
    child.on('error', (error: NodeJS.ErrnoException) =>
      reject(error.code === 'ENOENT' ? new UnavailableError('journalctl was not found: pass --file FILE') : error),
    );
    child.on('exit', (code) => resolve(code ?? 1));
  });
}

/** The development instance's log when this directory holds one (its configuration file), else null. */
function developmentLogHere(): string | null {
  const cwd = process.cwd();
  const config = resolveConfigPath({ cwd });
  if (config === null || !isDevelopmentConfig(config, cwd)) return null;
  const file = developmentLogPath(cwd);
  if (!existsSync(file))
    throw new UnavailableError(
      `no log in ${file} yet: the development instance writes it while it runs (unless started with GATEHOUSE_LOG=stdout)`,
    );
  return file;
}

/** The last `count` lines of the development log, reaching into the rotated log.1 when the current one is short. */
async function lastDevelopmentLines(file: string, count: number): Promise<{ text: string; end: number }> {
  const current = await lastLines(file, count);
  const have = current.text === '' ? 0 : current.text.split('\n').length - 1;
  if (have >= count || !existsSync(`${file}.1`)) return current;
  const earlier = await lastLines(`${file}.1`, count - have);
  return { text: earlier.text + current.text, end: current.end };
}

export async function logs({ values }: CommandInput<Values>): Promise<number> {
  const lines = lineCount(values.lines);
  const development = values.file ? null : developmentLogHere();
  if (development) {
    const { text, end } = await lastDevelopmentLines(development, lines);
    process.stdout.write(text);
    return values.follow ? follow(development, end) : 0;
  }
  if (values.file) {
    const { text, end } = await lastLines(values.file, lines);
    process.stdout.write(text);
    return values.follow ? follow(values.file, end) : 0;
  }
  const state = await serviceState();
  if (state?.load !== 'loaded')
    throw new UnavailableError(
      `${UNIT} is not installed here, so there is no journal to read: the service logs JSON to its stdout; pass --file FILE where you keep it`,
    );
  return journalctl(lines, Boolean(values.follow));
}
