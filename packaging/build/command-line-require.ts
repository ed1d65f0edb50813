// The release executable's command line (src/cli/program.ts and everything it imports) is a SEA asset of its own, not
// part of the main script: the main script holds only the entry (src/main.ts) and the handed-over supervisor
// (src/supervisor-handover.ts), so a multi-worker node's supervisor never parses the command line's 2 MB of
// JavaScript (docs/decisions.md, "A supervisor that loads almost nothing"). Bundled into the main script only, where
// main.ts's import of the command line is routed here (bundle-app.ts).
import { compileFunction } from 'node:vm';
import { requireBuiltin } from './first-use-packages.ts';
import { readScriptAsset } from './script-asset-read.ts';

export const COMMAND_LINE_ASSET = 'app/command-line.cjs';

let exports: unknown;

/** The command line's exports, its script compiled the first time they are asked for. */
export function requireCommandLine(): unknown {
  if (exports === undefined) {
    const module = { exports: {} };
    const run = compileFunction(readScriptAsset(COMMAND_LINE_ASSET), ['exports', 'require', 'module'], {
      filename: `gatehouse:${COMMAND_LINE_ASSET}`,
    });
    // Inside the command line's script `require` answers Node's built-in modules: everything else was bundled into it.
    run(module.exports, requireBuiltin, module);
    exports = module.exports;
  }
  return exports;
}
