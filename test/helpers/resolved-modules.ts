// Every module URL this process resolves from the call on: module.registerHooks sees import and require alike, and
// the test runner gives each test file a process of its own. For tests of what a process loads.
import { registerHooks } from 'node:module';

export function recordResolvedModules(): Set<string> {
  const resolved = new Set<string>();
  registerHooks({
    resolve(specifier, context, next) {
      const answer = next(specifier, context);
      resolved.add(answer.url);
      return answer;
    },
  });
  return resolved;
}
