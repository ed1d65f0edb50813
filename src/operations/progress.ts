// How a long operation reports where it is: the CLI draws a bar on a terminal and plain lines elsewhere
// (src/cli/progress-bar.ts); tests and library callers pass nothing.
export interface ProgressStep {
  done: number;
  total: number;
  label: string;
}

export type ProgressSink = (step: ProgressStep) => void;

export const silent: ProgressSink = () => {};
