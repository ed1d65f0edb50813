import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { HIDDEN_CHARACTERS, hex, hiddenProblem } from '../../test/helpers/hidden-characters.ts';
import { assertDisplayText, displayTextProblem } from './display-text.ts';
import { GatehouseError } from './errors.ts';

describe('display text (names shown to people)', () => {
  for (const code of HIDDEN_CHARACTERS) {
    const character = String.fromCodePoint(code);
    it(`refuses ${hex(code)} at the start, in the middle and at the end, naming it`, () => {
      for (const name of [`${character}Acme`, `Ac${character}me`, `Acme${character}`])
        assert.equal(displayTextProblem(name), hiddenProblem(code), JSON.stringify(name));
    });
  }

  it('names the first hidden character when there are several', () => {
    assert.equal(displayTextProblem('exe.\u202Egnp\u200B'), hiddenProblem(0x202e));
  });

  it('refuses a name of spaces only', () => {
    for (const name of [' ', '   ', '\u00a0', '\u3000 '])
      assert.equal(displayTextProblem(name), 'enter at least one visible character', JSON.stringify(name));
  });

  it('accepts names in any script, right-to-left ones included, with accents, punctuation and emoji', () => {
    for (const name of [
      'Acme Billing',
      'Zoë Ångström-Nuñez',
      '渡辺 麻友',
      'محمد علي',
      'שלום עליכם',
      'नमस्ते दुनिया',
      'Café – “Prod” (EU)',
      '🚀 Launch pad',
      'O’Brien & Sons, Inc.',
    ])
      assert.equal(displayTextProblem(name), null, name);
  });

  it('throws invalid_request naming the field, and lets an absent value pass', () => {
    assert.doesNotThrow(() => assertDisplayText(undefined, 'body.name'));
    assert.throws(
      () => assertDisplayText('Acme\u202E', 'body.display_name'),
      (error: unknown) => {
        assert.ok(error instanceof GatehouseError);
        assert.equal(error.code, 'invalid_request');
        assert.equal(error.status, 400);
        assert.equal(error.message, `Name: ${hiddenProblem(0x202e)}.`);
        assert.deepEqual(error.fields, [{ path: 'body.display_name', problem: hiddenProblem(0x202e) }]);
        return true;
      },
    );
  });
});
