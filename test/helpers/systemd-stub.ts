// A stand-in for systemd on PATH: `systemctl` and `journalctl` scripts whose gatehouse.service is a real
// `gatehouse serve --config FILE` child, started, stopped and restarted as systemd would, and whose every call is
// recorded. The CLI under test runs the real systemctl code path against it.
import { chmodSync, existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { after } from 'node:test';
import { MAIN } from './cli.ts';
import { scratchDir } from './config.ts';

export interface SystemdStub {
  /** Put first on PATH. */
  bin: string;
  /** systemctl and journalctl calls so far, one line each. */
  calls(): string[];
  /** What the service printed (stdout and stderr). */
  serviceLog(): string;
  env: NodeJS.ProcessEnv;
}

const SYSTEMCTL = `#!/bin/sh
# $STUB: state directory; $SERVICE_CONFIG: the config gatehouse.service runs with.
echo "systemctl $*" >> "$STUB/calls"
running() { [ -f "$STUB/pid" ] && kill -0 "$(cat "$STUB/pid")" 2>/dev/null; }
stop() {
  if running; then pid=$(cat "$STUB/pid"); kill -TERM "$pid"; tail --pid="$pid" -f /dev/null; fi
  rm -f "$STUB/pid"
}
start() {
  "$STUB_NODE" "$STUB_MAIN" serve --config "$SERVICE_CONFIG" >> "$STUB/service.log" 2>&1 < /dev/null &
  echo $! > "$STUB/pid"
  date +%s > "$STUB/since"
}
case "$1" in
  show)
    if running; then
      printf 'LoadState=loaded\\nActiveState=active\\nSubState=running\\nMainPID=%s\\nActiveEnterTimestamp=@%s\\n' "$(cat "$STUB/pid")" "$(cat "$STUB/since")"
    else
      printf 'LoadState=loaded\\nActiveState=inactive\\nSubState=dead\\nMainPID=0\\nActiveEnterTimestamp=\\n'
    fi ;;
  reset-failed) ;;
  start) running || start ;;
  stop) stop ;;
  restart) stop; start ;;
  *) echo "stub systemctl: $1 not supported" >&2; exit 1 ;;
esac
`;

const JOURNALCTL = `#!/bin/sh
echo "journalctl $*" >> "$STUB/calls"
printf '{"level":30,"msg":"from the journal"}\\n'
`;

/** `serviceConfig`: the file the service runs with; env.SERVICE_CONFIG may be set later, before it starts. */
export function systemdStub(serviceConfig = ''): SystemdStub {
  // Registered before scratchDir's own hook, which removes the directory: node:test runs `after` hooks in the order
  // they were registered, and a service left running is found only through its pid file. The other order left one
  // `gatehouse serve` running after its test file ended.
  let dir = '';
  after(() => {
    const pidFile = path.join(dir, 'pid');
    if (dir !== '' && existsSync(pidFile))
      try {
        process.kill(Number(readFileSync(pidFile, 'utf8')), 'SIGKILL');
      } catch {
        // already gone
      }
  });
  dir = scratchDir('gatehouse-systemd-');
  const bin = path.join(dir, 'bin');
  mkdirSync(bin);
  for (const [name, text] of [
    ['systemctl', SYSTEMCTL],
    ['journalctl', JOURNALCTL],
  ] as const) {
    writeFileSync(path.join(bin, name), text);
    chmodSync(path.join(bin, name), 0o755);
  }
  const env = {
    PATH: `${bin}:${process.env.PATH ?? ''}`,
    STUB: dir,
    STUB_NODE: process.execPath,
    STUB_MAIN: MAIN,
    SERVICE_CONFIG: serviceConfig,
  };
  const read = (name: string) => (existsSync(path.join(dir, name)) ? readFileSync(path.join(dir, name), 'utf8') : '');
  return {
    bin,
    env,
    calls: () => read('calls').split('\n').filter(Boolean),
    serviceLog: () => read('service.log'),
  };
}
