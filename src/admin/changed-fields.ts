// What an update would change, so that one which changes nothing writes nothing and records nothing (docs/admin.md):
// updated_at stays, and no `*.updated` record claims a change that did not happen.

const same = (a: unknown, b: unknown) =>
  Array.isArray(a) && Array.isArray(b) ? a.length === b.length && a.every((value, i) => value === b[i]) : a === b;

/**
 * The request names (`fields` maps record keys to them) of the fields whose value in `next` differs from `current`,
 * in the order of `fields`. Lists are compared entry by entry in order: a new order is a change, since it is stored
 * and shown.
 */
export function changedFields<T extends object>(current: T, next: T, fields: { [K in keyof T]?: string }): string[] {
  return (Object.keys(fields) as (keyof T)[]).flatMap((key) =>
    same(current[key], next[key]) ? [] : [fields[key] as string],
  );
}
