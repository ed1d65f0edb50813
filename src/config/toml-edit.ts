// A configuration edit applied to the file's own text: keys that change are rewritten in place and new ones added,
// so the operator's comments, ordering and layout survive `gatehouse config …` and a rerun of `gatehouse setup`.
// @decimalturn/toml-patch diffs the parsed document against the wanted values and patches its syntax tree.
import { patch } from '@decimalturn/toml-patch';
import { parse, stringify } from 'smol-toml';

type Table = Record<string, unknown>;

/** New tables become `[section.sub]` headers as the operator would write them, not inline `{ … }` values. */
const NEW_TABLES_AS_SECTIONS = { inlineTableStart: 64 };

/** `previous` (TOML text) changed to hold exactly `wanted`, comments kept. */
export function editedToml(previous: string, wanted: Table): string {
  const text = patch(previous, wanted, NEW_TABLES_AS_SECTIONS);
  // The file must say exactly what was validated: should the patch ever read differently, write the values plainly.
  return stringify(parse(text)) === stringify(wanted) ? text : `${stringify(wanted)}\n`;
}
