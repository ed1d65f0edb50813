// Which of the selected test files drive a browser: those that import test/helpers/browser.ts, directly or through
// other helpers. `npm test` checks for Chromium only when the run includes one.
import { globSync, readFileSync } from 'node:fs';
import path from 'node:path';

const BROWSER_HELPER = path.resolve(import.meta.dirname, '../test/helpers/browser.ts');
const RELATIVE_IMPORT = /\bfrom '(\.{1,2}\/[^']+\.tsx?)'/g;

export function browserTestFiles(patterns: string[]): string[] {
  const known = new Map<string, boolean>();
  const reachesBrowser = (file: string): boolean => {
    if (file === BROWSER_HELPER) return true;
    const answer = known.get(file);
    if (answer !== undefined) return answer;
    known.set(file, false); // an import cycle adds nothing
    let source: string;
    try {
      source = readFileSync(file, 'utf8');
    } catch {
      return false;
    }
    for (const [, target] of source.matchAll(RELATIVE_IMPORT))
      if (target && reachesBrowser(path.resolve(path.dirname(file), target))) {
        known.set(file, true);
        return true;
      }
    return false;
  };
  return globSync(patterns)
    .map((file) => path.resolve(file))
    .filter(reachesBrowser);
}
