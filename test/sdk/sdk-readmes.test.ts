// The SDK READMEs quote their examples verbatim, and the examples themselves are compiled (the browser one by
// `npm run typecheck`, the C++ one by sdk/cpp's Makefile): an example changed without its README fails here.
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { describe, test } from 'node:test';

const read = (file: string) => readFileSync(new URL(`../../sdk/${file}`, import.meta.url), 'utf8');

describe('sdk READMEs', () => {
  for (const [readme, example, language] of [
    ['browser/README.md', 'examples/sign-in.ts', 'ts'],
    ['cpp/README.md', 'examples/sign-in.cpp', 'cpp'],
  ] as const)
    test(`sdk/${readme} quotes ${example} in a code block`, () => {
      const code = read(`${readme.split('/')[0]}/${example}`);
      const block = `Quoted from \`${example}\``;
      const text = read(readme);
      assert.ok(text.includes(block), `sdk/${readme} does not name ${example}`);
      assert.ok(
        text.includes(`\`\`\`${language}\n${code}\`\`\`\n`),
        `sdk/${readme} does not quote the current ${example}`,
      );
    });

  test('the browser example is the promised ten-odd lines', () => {
    assert.ok(read('browser/examples/sign-in.ts').trim().split('\n').length <= 12);
  });
});
