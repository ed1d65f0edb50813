// Colours and progress for a person at a terminal, plain lines for everything else: styleText leaves text alone
// when the stream is not a colour terminal or NO_COLOR (or FORCE_COLOR=0) is set, and progress redraws one line
// only on a terminal.
import { styleText } from 'node:util';

type Colour = 'red' | 'green' | 'yellow' | 'bold' | 'dim';

export function paint(stream: NodeJS.WritableStream): Record<Colour, (text: string) => string> {
  const style = (format: Colour) => (text: string) => styleText(format, text, { stream, validateStream: true });
  return { red: style('red'), green: style('green'), yellow: style('yellow'), bold: style('bold'), dim: style('dim') };
}

export interface Progress {
  /** What is being done now: redrawn in place on a terminal, nothing otherwise (the result lines say it all). */
  step(text: string): void;
  /** A line that stays: what was done. */
  note(text: string): void;
  /** Clears the step line. */
  done(): void;
}

export function progress(stream: NodeJS.WritableStream & { isTTY?: boolean }): Progress {
  const live = Boolean(stream.isTTY) && process.env.TERM !== 'dumb';
  let shown = false;
  const clear = () => {
    if (shown) stream.write('\r\x1b[2K');
    shown = false;
  };
  return {
    step(text) {
      if (!live) return;
      clear();
      stream.write(styleText('dim', `… ${text}`, { stream, validateStream: true }));
      shown = true;
    },
    note(text) {
      clear();
      stream.write(`${text}\n`);
    },
    done: clear,
  };
}
