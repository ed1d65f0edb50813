// Input from a file or the command line checked against the admin API's own request schemas (src/admin/schemas.ts),
// so the shell accepts exactly what the API accepts. Problems come back as the API's field problems.
import type { TSchema } from 'typebox';
import type { FieldProblem } from '../http/errors.ts';
import { invalidFields } from '../http/validation-messages.ts';
import { fits, typeboxSchema } from '../schema/fits.ts';

const dotted = (pointer: string) =>
  pointer
    .split('/')
    .slice(1)
    .map((part) => `.${part.replace(/~1/g, '/').replace(/~0/g, '~')}`)
    .join('');

export function schemaProblems(schema: TSchema, value: unknown, context: string): FieldProblem[] {
  // TypeBox reports an unknown field twice: as the false schema it met and as additionalProperties; keep the second.
  if (fits(schema, value) === true) return [];
  const errors = typeboxSchema()
    .Errors(schema, value)[1]
    .filter((e) => e.keyword !== 'boolean');
  return errors.flatMap((error) => {
    const base = `${context}${dotted(error.instancePath)}`;
    const params = error.params as Record<string, unknown>;
    if (error.keyword === 'required')
      return (params.requiredProperties as string[]).map((name) => ({
        path: `${base}.${name}`,
        problem: 'is required',
      }));
    if (error.keyword === 'additionalProperties')
      return (params.additionalProperties as string[]).map((name) => ({
        path: `${base}.${name}`,
        problem: 'is not a known field',
      }));
    return [{ path: base, problem: error.message }];
  });
}

/** Throws the API's invalid_request (with fields) when `value` does not fit `schema`. */
export function assertFits(schema: TSchema, value: unknown, context: string): void {
  const problems = schemaProblems(schema, value, context);
  if (problems.length > 0) throw invalidFields(problems);
}
