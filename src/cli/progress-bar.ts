// Progress of a long command: a bar redrawn in place on a terminal, one plain line per step otherwise (a log file
// or a pipe gets no control characters).
import type { ProgressSink } from '../operations/progress.ts';

const WIDTH = 24;

export interface ProgressReporter {
  sink: ProgressSink;
  /** Ends the bar's line on a terminal; nothing otherwise. */
  end(): void;
}

export function progressReporter(
  stream: Pick<NodeJS.WriteStream, 'write'> & { isTTY?: boolean },
  title: string,
): ProgressReporter {
  let drawn = false;
  if (!stream.isTTY) return { sink: (s) => stream.write(`${title}: ${s.done}/${s.total} ${s.label}\n`), end: () => {} };
  return {
    sink(s) {
      const filled = s.total === 0 ? WIDTH : Math.round((s.done / s.total) * WIDTH);
      // \r + "erase line": the bar replaces itself; the label is cut so the line never wraps.
      stream.write(
        `\r\x1b[2K${title} [${'#'.repeat(filled)}${'-'.repeat(WIDTH - filled)}] ${s.done}/${s.total} ${s.label.slice(0, 40)}`,
      );
      drawn = true;
    },
    end() {
      if (drawn) stream.write('\n');
    },
  };
}
