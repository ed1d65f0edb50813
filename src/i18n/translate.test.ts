// The translator answers a message without a formatter when its text has nothing to format, and that shortcut must
// never change what a person reads: every message in every language comes out exactly as intl-messageformat renders
// it. The pages built at startup must not reach ICU's locale data at all (about 4.5 MB of every worker's RSS).
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { IntlMessageFormat } from 'intl-messageformat';
import { LOCALES } from './locales.ts';
import { type MessageKey, SERVER_CATALOGUES, translator } from './translate.ts';

/** A value for every argument a message names: a number serves plain arguments, plurals and selects alike. */
const valuesFor = (text: string) => Object.fromEntries([...text.matchAll(/\{\s*(\w+)/g)].map(([, name]) => [name, 3]));

describe('translator', () => {
  // First: the tests below compile messages, and a compiled message is kept for the process's life.
  test('the localized pages built at startup construct no Intl object', async () => {
    const constructed: string[] = [];
    const originals = new Map<string, unknown>();
    const intl = Intl as unknown as Record<string, new (...args: unknown[]) => object>;
    for (const name of ['Locale', 'PluralRules', 'NumberFormat', 'DateTimeFormat', 'Collator', 'ListFormat']) {
      const original = intl[name];
      if (!original) continue;
      originals.set(name, original);
      intl[name] = new Proxy(original, {
        construct(target, args) {
          constructed.push(name);
          return Reflect.construct(target, args);
        },
      });
    }
    try {
      const { localizedIndex } = await import('../web/localized-index.ts');
      const pageFor = localizedIndex('<html lang="en"><body><noscript>x</noscript></body></html>');
      for (const locale of LOCALES) assert.match(pageFor(locale) ?? '', new RegExp(`<html lang="${locale}"`));
      assert.deepEqual(constructed, []);
    } finally {
      for (const [name, original] of originals) intl[name] = original as never;
    }
  });

  test('every message in every language reads as intl-messageformat renders it', () => {
    let plain = 0;
    let formatted = 0;
    for (const locale of LOCALES) {
      const translate = translator(locale);
      for (const [key, text] of Object.entries(SERVER_CATALOGUES[locale])) {
        const values = valuesFor(text);
        const expected = String(new IntlMessageFormat(text, locale, undefined, { ignoreTag: true }).format(values));
        assert.equal(translate(key as MessageKey, values), expected, `${locale} ${key}`);
        if (/[{}']/.test(text)) formatted += 1;
        else plain += 1;
      }
    }
    // Both paths were taken, or this test proves nothing about one of them.
    assert.ok(plain > 0 && formatted > 0, `plain ${plain}, formatted ${formatted}`);
  });

  test("a message's arguments are still formatted, plurals by the language's rules", () => {
    const key = Object.keys(SERVER_CATALOGUES.en).find((k) => /plural/.test(SERVER_CATALOGUES.en[k] ?? ''));
    assert.ok(key, 'the English catalogue has a plural message');
    const one = translator('en')(key as MessageKey, valuesFor(SERVER_CATALOGUES.en[key] ?? ''));
    assert.doesNotMatch(one, /[{}]/);
  });
});
