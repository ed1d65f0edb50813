// Questions a command asks on a terminal when a flag is missing. The streams are passed in (the process's own for
// the CLI), so tests hold the conversation. A refused answer is asked again with the reason, a few times.
import { createInterface } from 'node:readline/promises';
import { UsageError } from './args.ts';

export interface Terminal {
  /** Where answers are read. */
  input: NodeJS.ReadableStream;
  /** Where questions and reasons for asking again go (stderr for the CLI, so stdout stays the report). */
  prompts: NodeJS.WritableStream;
  /** Where the command's report goes. */
  output: NodeJS.WritableStream;
  /** True when a person can answer (stdin is a terminal). */
  interactive: boolean;
}

export function processTerminal(): Terminal {
  return {
    input: process.stdin,
    prompts: process.stderr,
    output: process.stdout,
    interactive: Boolean(process.stdin.isTTY),
  };
}

export interface Question {
  /** The flag the answer stands for, without `--`. */
  key: string;
  text: string;
  /** What is wrong with a (trimmed) answer, or null when it is fine. */
  problem(answer: string): string | null;
}

export const MAX_ATTEMPTS = 3;

/** Asks every question whose key has no answer yet; refuses after MAX_ATTEMPTS answers that are still wrong. */
export async function askMissing(
  terminal: Terminal,
  questions: Question[],
  answers: Record<string, string | undefined>,
): Promise<void> {
  const missing = questions.filter(({ key }) => !answers[key]);
  if (missing.length === 0) return;
  const rl = createInterface({ input: terminal.input, output: terminal.prompts, terminal: false });
  const inputEnded = () => new UsageError('the input ended before every question was answered');
  const ended = new Promise<never>((_, reject) => rl.once('close', () => reject(inputEnded())));
  ended.catch(() => {});
  const ask = async (text: string) => {
    try {
      return await Promise.race([rl.question(`${text}: `), ended]);
    } catch (error) {
      // Asking on an interface whose input already ended throws instead of waiting.
      if ((error as NodeJS.ErrnoException).code === 'ERR_USE_AFTER_CLOSE') throw inputEnded();
      throw error;
    }
  };
  try {
    for (const question of missing) {
      for (let attempt = 1; ; attempt += 1) {
        const answer = (await ask(question.text)).trim();
        const problem = question.problem(answer);
        if (!problem) {
          answers[question.key] = answer;
          break;
        }
        if (attempt === MAX_ATTEMPTS) throw new UsageError(`${question.text}: ${problem} (asked ${attempt} times)`);
        terminal.prompts.write(`  ${problem}; try again.\n`);
      }
    }
  } finally {
    rl.close();
  }
}
