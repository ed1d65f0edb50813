// The message catalogues against English and against the code: every language has every key and no other, each
// message parses and names the same placeholders (plural, select and tag included) as English, each plural covers the
// categories the language's plural rules use, every English key is used in the code and every key the code asks for
// exists. Two catalogue sets: the server's (pages it renders, mails) and the web UI's.
import assert from 'node:assert/strict';
import { globSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, test } from 'node:test';
import { IntlMessageFormat } from 'intl-messageformat';
import { errorCatalogue } from '../http/error-catalogue.ts';
import { LOCALES, type Locale } from './locales.ts';

const ROOT = path.resolve(import.meta.dirname, '../..');

// The AST node types of @formatjs/icu-messageformat-parser (its TYPE enum), named here so the test reads.
const TYPE = { literal: 0, argument: 1, number: 2, date: 3, time: 4, select: 5, plural: 6, pound: 7, tag: 8 } as const;
const KIND_NAMES = Object.fromEntries(Object.entries(TYPE).map(([name, value]) => [value, name]));

interface AstNode {
  type: number;
  value?: string;
  options?: Record<string, { value: AstNode[] }>;
  pluralType?: 'cardinal' | 'ordinal';
  children?: AstNode[];
}

interface CatalogueSet {
  name: string;
  dir: string;
  /** Where the code that uses these keys lives. */
  sources: string[];
  /** Whether <tag>…</tag> in a message is markup (the web UI's rich messages) or plain text (the server escapes). */
  tags: boolean;
}

const SETS: CatalogueSet[] = [
  { name: 'server', dir: 'src/i18n/messages', sources: ['src/**/*.ts'], tags: false },
  { name: 'web', dir: 'web/src/i18n/messages', sources: ['web/src/**/*.ts', 'web/src/**/*.tsx'], tags: true },
];

const readCatalogue = (set: CatalogueSet, locale: Locale): Record<string, string> =>
  JSON.parse(readFileSync(path.join(ROOT, set.dir, `${locale}.json`), 'utf8'));

const parse = (set: CatalogueSet, locale: Locale, text: string) =>
  new IntlMessageFormat(text, locale, undefined, { ignoreTag: !set.tags }).getAst() as unknown as AstNode[];

/**
 * What a message asks of the code, one line per placeholder: "count plural", "unit select{days,hours,other}",
 * "b tag". Plural options are left out (each language has its own categories); select options are the values the
 * code passes, so they must match.
 */
function placeholders(nodes: AstNode[], into = new Set<string>()): Set<string> {
  for (const node of nodes) {
    if (node.type === TYPE.literal || node.type === TYPE.pound) continue;
    const kind = KIND_NAMES[node.type];
    const selects = Object.keys(node.options ?? {}).sort();
    const options = node.type === TYPE.select ? `{${selects.join(',')}}` : '';
    into.add(`${node.value} ${kind}${options}`);
    for (const option of Object.values(node.options ?? {})) placeholders(option.value, into);
    if (node.children) placeholders(node.children, into);
  }
  return into;
}

/** Plural categories a message leaves out for its language (exact matches like =0 add to them, never replace). */
function missingCategories(nodes: AstNode[], locale: Locale, found: string[] = []): string[] {
  const needed = new Intl.PluralRules(locale).resolvedOptions().pluralCategories;
  for (const node of nodes) {
    if (node.type === TYPE.plural && node.pluralType !== 'ordinal') {
      const have = Object.keys(node.options ?? {});
      for (const category of needed) if (!have.includes(category)) found.push(`${node.value}: ${category}`);
    }
    for (const option of Object.values(node.options ?? {})) missingCategories(option.value, locale, found);
    if (node.children) missingCategories(node.children, locale, found);
  }
  return found;
}

const sourceText = (set: CatalogueSet) =>
  set.sources
    .flatMap((pattern) => globSync(pattern, { cwd: ROOT }))
    .filter((file) => !file.endsWith('.test.ts'))
    .map((file) => readFileSync(path.join(ROOT, file), 'utf8'))
    .join('\n');

for (const set of SETS) {
  const english = readCatalogue(set, 'en');
  const keys = Object.keys(english).sort();

  describe(`${set.name} message catalogues (${set.dir})`, () => {
    for (const locale of LOCALES) {
      test(`${locale} has every English key and no other`, () => {
        const theirs = Object.keys(readCatalogue(set, locale)).sort();
        assert.deepEqual(
          { missing: keys.filter((k) => !theirs.includes(k)), unknown: theirs.filter((k) => !keys.includes(k)) },
          { missing: [], unknown: [] },
        );
      });

      test(`${locale} messages parse and name the same placeholders as English`, () => {
        const catalogue = readCatalogue(set, locale);
        const mismatched = keys.flatMap((key) => {
          const text = catalogue[key];
          if (text === undefined) return [];
          const ours = [...placeholders(parse(set, 'en', english[key] ?? ''))].sort();
          const theirs = [...placeholders(parse(set, locale, text))].sort();
          return JSON.stringify(ours) === JSON.stringify(theirs) ? [] : [{ key, en: ours, [locale]: theirs }];
        });
        assert.deepEqual(mismatched, []);
      });

      test(`${locale} plurals cover the categories of ${locale}'s plural rules`, () => {
        const catalogue = readCatalogue(set, locale);
        const gaps = keys.flatMap((key) =>
          missingCategories(parse(set, locale, catalogue[key] ?? ''), locale).map((gap) => `${key} ${gap}`),
        );
        assert.deepEqual(gaps, []);
      });

      if (locale !== 'en')
        test(`${locale} is translated, not English left in place`, () => {
          const catalogue = readCatalogue(set, locale);
          // Short labels may coincide ("Passkeys", "Cancel"); sentences may not.
          const untranslated = keys.filter((key) => {
            const text = english[key] ?? '';
            return text.length > 20 && catalogue[key] === text;
          });
          assert.deepEqual(untranslated, []);
        });
    }

    test('every English key is used by the code (no unused key)', () => {
      const code = sourceText(set);
      const unused = keys.filter((key) => !code.includes(`'${key}'`));
      assert.deepEqual(unused, []);
    });

    test('every key the code asks for exists (no missing key)', () => {
      const code = sourceText(set);
      const asked = new Set(
        [...code.matchAll(/\b(?:t|tx|htmlMessage\(t,)\(?\s*'([A-Za-z0-9_.]+)'/g)].map((match) => match[1] ?? ''),
      );
      assert.ok(asked.size > 10, `found only ${asked.size} keys asked for: the pattern no longer matches the code`);
      assert.deepEqual(
        [...asked].filter((key) => !(key in english)),
        [],
      );
    });
  });
}

describe('error messages of the hosted pages', () => {
  test('every errorCode.* key names a code of the error catalogue', () => {
    const english = readCatalogue(SETS[1] as CatalogueSet, 'en');
    const unknown = Object.keys(english)
      .filter((key) => key.startsWith('errorCode.'))
      .map((key) => key.slice('errorCode.'.length))
      .filter((code) => !Object.hasOwn(errorCatalogue, code));
    assert.deepEqual(unknown, []);
  });
});
