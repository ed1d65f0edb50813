// The handed-over supervisor's log lines (src/supervisor-main.ts), written without pino: it logs a handful of lines
// in the node's life, and pino with its serializers and worker-thread transport was about 7 MB of the process that
// otherwise holds only node:cluster (docs/decisions.md, "The supervisor's lines without pino"). Each line is what
// pino writes with src/http/logger.ts's options, byte for byte: level, time, service, pid, the fields (secrets
// redacted the same way), msg. src/supervisor-log.test.ts compares the two.
import { redactSecrets } from './http/logger.ts';

/** What the supervisor logs through; pino's Logger has the same two methods. */
export interface SupervisorLog {
  info(fields: Record<string, unknown>, message: string): void;
  info(message: string): void;
  error(fields: Record<string, unknown>, message: string): void;
}

/** pino's level numbers: a line is written when its level is at least the configured one's; `silent` writes none. */
const LEVELS = { trace: 10, debug: 20, info: 30, warn: 40, error: 50, fatal: 60, silent: Number.POSITIVE_INFINITY };

/**
 * stdout, as pino's destination treats it: once its reader has gone (EPIPE: a log shipper or `| tee` that exited),
 * later lines are dropped instead of the write error ending the supervisor and every worker with it.
 */
function stdoutLines(): (line: string) => void {
  let broken = false;
  process.stdout.on('error', (error: NodeJS.ErrnoException) => {
    if (error.code !== 'EPIPE') throw error;
    broken = true;
  });
  return (line) => {
    if (!broken) process.stdout.write(line);
  };
}

export function supervisorLineLog(
  level: keyof typeof LEVELS,
  write: (line: string) => void = stdoutLines(),
): SupervisorLog {
  const threshold = LEVELS[level];
  const line = (at: number, fields: Record<string, unknown> | string, message?: string) => {
    if (at < threshold) return;
    const [own, text] = typeof fields === 'string' ? [{}, fields] : [fields, message];
    // Built key by key as pino does: a field named like a base key (pid) is written again, and JSON readers keep
    // the last, the field's.
    let record = `{"level":${at},"time":"${new Date().toISOString()}","service":"gatehouse","pid":${process.pid}`;
    for (const [key, value] of Object.entries(redactSecrets(own) as Record<string, unknown>))
      if (value !== undefined) record += `,${JSON.stringify(key)}:${JSON.stringify(value)}`;
    write(`${record},"msg":${JSON.stringify(text)}}\n`);
  };
  return {
    info: (fields: Record<string, unknown> | string, message?: string) => line(LEVELS.info, fields, message),
    error: (fields, message) => line(LEVELS.error, fields, message),
  };
}
