// The password strength estimator: zxcvbn-ts with its common (breach-derived password list, diceware words,
// keyboard layouts) and English (words, names, Wikipedia) dictionaries. Built once per process, on the first check:
// the dictionaries are several megabytes, so a process that never sets a password never loads them.
import type { ZxcvbnFactory } from '@zxcvbn-ts/core';

/**
 * zxcvbn looks at this many characters at most. Its matchers grow much faster than linearly with length (a random
 * 256-character input takes seconds), and the check runs on the event loop; a password whose first 64 characters
 * are hard to guess is hard to guess, and one that starts with 64 guessable ones is refused as it should be.
 */
export const CHECKED_LENGTH = 64;

export interface Strength {
  /** 0-4: below 10^3, 10^6, 10^8, 10^10 guesses, and beyond. */
  score: number;
  warning: string | null;
  suggestions: string[];
}

let estimator: Promise<ZxcvbnFactory> | null = null;

async function buildEstimator(): Promise<ZxcvbnFactory> {
  const [{ ZxcvbnFactory }, common, en] = await Promise.all([
    import('@zxcvbn-ts/core'),
    import('@zxcvbn-ts/language-common'),
    import('@zxcvbn-ts/language-en'),
  ]);
  return new ZxcvbnFactory({
    translations: {
      ...en.translations,
      // The library's text ("There should not be any personal or page related data.") does not say what it found.
      warnings: {
        ...en.translations.warnings,
        userInputs: 'This contains your name or email address, or the name of this service or organization.',
      },
    },
    graphs: common.adjacencyGraphs,
    dictionary: { ...common.dictionary, ...en.dictionary },
    maxLength: CHECKED_LENGTH,
    // Each l33t variant is another pass over every dictionary; the default 100 costs ten times as much on
    // symbol-heavy input and found nothing more in our tests.
    l33tMaxSubstitutions: 10,
    // Levenshtein matching of the whole password against every dictionary costs hundreds of milliseconds a check.
    useLevenshteinDistance: false,
  });
}

/** How hard `password` is to guess, given the words an attacker would try first for this person (`context`). */
export async function estimateStrength(password: string, context: string[]): Promise<Strength> {
  estimator ??= buildEstimator().catch((error: unknown) => {
    estimator = null;
    throw error;
  });
  const { score, feedback } = (await estimator).check(password.slice(0, CHECKED_LENGTH), context);
  return { score, warning: feedback.warning, suggestions: feedback.suggestions };
}
