// A configuration edit applied to the file's own text: keys that change are rewritten in place and new ones added,
// so the operator's comments, ordering and layout survive `gatehouse config …` and a rerun of `gatehouse setup`.
// @decimalturn/toml-patch diffs the parsed document against the wanted values and patches its syntax tree.
import { patch } from '@decimalturn/toml-patch';
import { parse, stringify } from 'smol-toml';

type Table = Record<string, unknown>;

/** New tables become `[section.sub]` headers as the operator would write them, not inline `{ … }` values. */
const NEW_TABLES_AS_SECTIONS = { inlineTableStart: 64 };

/** Tables with their keys sorted, so two documents that differ only in key order compare equal. */
function canonical(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(canonical);
  if (typeof value !== 'object' || value === null || value instanceof Date) return value;
  const table = value as Table;
  return Object.fromEntries(
    Object.keys(table)
      .sort()
      .map((key) => [key, canonical(table[key])]),
  );
}

const sameValues = (a: Table, b: Table) => stringify(canonical(a) as Table) === stringify(canonical(b) as Table);

/** `previous` (TOML text) changed to hold exactly `wanted`, comments kept. */
export function editedToml(previous: string, wanted: Table): string {
  const plain = `${stringify(wanted)}\n`;
  let text: string;
  try {
    text = patch(previous, wanted, NEW_TABLES_AS_SECTIONS);
  } catch {
    return plain; // a document shape the patcher cannot edit: the values, without the comments
  }
  // The file must say exactly what was validated: should the patch ever read differently, write the values plainly.
  // Order is not meaning: the patcher may append new sub-tables in another order than `wanted` lists them.
  return sameValues(parse(text), wanted) ? text : plain;
}
