// Turns TypeBox validation errors into one plain problem per key, in the words an operator reads.
import type { TLocalizedValidationError } from 'typebox/error';
import type { ConfigProblem } from './errors.ts';

export function keyFromPointer(pointer: string): string {
  let key = '';
  for (const part of pointer.split('/').slice(1)) {
    const name = part.replace(/~1/g, '/').replace(/~0/g, '~');
    key += /^\d+$/.test(name) ? `[${name}]` : key === '' ? name : `.${name}`;
  }
  return key;
}

/** TOML words for JSON Schema types, with the right article. */
const TYPE_NAMES: Record<string, string> = { object: 'a table', array: 'an array', integer: 'an integer' };

const join = (key: string, child: string) => (key === '' ? child : `${key}.${child}`);

/** Keys earlier versions read, with what to do instead of "unknown key". */
const RETIRED_KEYS: Record<string, string> = {
  'delivery.smtp.password':
    'is no longer read: the password belongs in a 0600 file named by delivery.smtp.password_file; `gatehouse config delivery --smtp-password-stdin` moves it there',
};

function describe(error: TLocalizedValidationError): ConfigProblem[] {
  const key = keyFromPointer(error.instancePath);
  const params = error.params as Record<string, unknown>;
  switch (error.keyword) {
    case 'required':
      return (params.requiredProperties as string[]).map((name) => ({ key: join(key, name), problem: 'is required' }));
    case 'additionalProperties':
      return (params.additionalProperties as string[]).map((name) => ({
        key: join(key, name),
        problem: RETIRED_KEYS[join(key, name)] ?? 'unknown key',
      }));
    case 'boolean':
      return []; // the additionalProperties error for the same key says it better
    case 'type':
      return [{ key, problem: `must be ${TYPE_NAMES[String(params.type)] ?? `a ${params.type}`}` }];
    case 'enum':
      return [
        {
          key,
          problem: `must be one of ${(params.allowedValues as unknown[]).map((v) => JSON.stringify(v)).join(', ')}`,
        },
      ];
    case 'minimum':
      return [{ key, problem: `must be at least ${params.limit}` }];
    case 'maximum':
      return [{ key, problem: `must be at most ${params.limit}` }];
    case 'minItems':
      return [{ key, problem: `must have at least ${params.limit} item(s)` }];
    case 'minLength':
      return [{ key, problem: 'must not be empty' }];
    default:
      return [{ key, problem: error.message }];
  }
}

export function problemsFromSchemaErrors(errors: Iterable<TLocalizedValidationError>): ConfigProblem[] {
  const seen = new Set<string>();
  const problems: ConfigProblem[] = [];
  for (const error of errors) {
    for (const problem of describe(error)) {
      if (seen.has(problem.key)) continue;
      seen.add(problem.key);
      problems.push(problem);
    }
  }
  return problems;
}
