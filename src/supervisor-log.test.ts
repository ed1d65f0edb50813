import assert from 'node:assert/strict';
import { test } from 'node:test';
import { pino } from 'pino';
import { loggerOptions } from './http/logger.ts';
import { type SupervisorLog, supervisorLineLog } from './supervisor-log.ts';

/** The lines each logger writes for the same calls, with the time (the only difference allowed) masked. */
function linesOf(make: (write: (line: string) => void) => SupervisorLog, level: string) {
  const lines: string[] = [];
  const log = make((line) => lines.push(line));
  log.info({ worker: 1, pid: 4242, listen: 'http://127.0.0.1:8080' }, 'worker listening');
  log.error(
    { worker: 2, pid: 4243, exitCode: null, signal: 'SIGKILL', restartInMs: 250, code: 'abc' },
    'worker exited unexpectedly; restarting it',
  );
  log.info('stopped');
  log.info(
    { note: 'a "quoted" line\nwith\ttabs, \u2028 and ünïcödé', nested: { token: 'secret', kept: [1, 2] } },
    'odd',
  );
  if (level !== 'info') assert.ok(lines.length < 4, 'the level filters');
  return lines.map((line) => {
    const time = /"time":"([^"]+)"/.exec(line)?.[1] ?? '';
    assert.ok(!Number.isNaN(Date.parse(time)), `an ISO time in ${line}`);
    return line.replace(time, 'TIME');
  });
}

for (const level of ['info', 'warn', 'error', 'silent'] as const)
  test(`the handed-over supervisor's lines are pino's, byte for byte, at level ${level}`, () => {
    const ours = linesOf((write) => supervisorLineLog(level, write), level);
    const theirs = linesOf((write) => pino(loggerOptions(level), { write }), level);
    assert.deepEqual(ours, theirs);
    if (level === 'info') {
      assert.equal(ours.length, 4);
      assert.match(ours[1] as string, /"exitCode":null,.*"code":"\[redacted\]"/);
      assert.match(ours[3] as string, /"token":"\[redacted\]"/);
    }
  });
