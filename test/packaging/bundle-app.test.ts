import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { after, before, describe, test } from 'node:test';
import { type AppBundle, assertAscii, bundleApp, namedImports } from '../../packaging/build/bundle-app.ts';
import { COMMAND_LINE_ASSET } from '../../packaging/build/command-line-require.ts';
import {
  assetKeyOf,
  createFirstUseRequire,
  FIRST_USE_PACKAGES,
  packageOf,
} from '../../packaging/build/first-use-packages.ts';

const ROOT = path.resolve(import.meta.dirname, '../..');
const dir = mkdtempSync(path.join(tmpdir(), 'gatehouse-bundle-'));
after(() => rmSync(dir, { recursive: true, force: true }));
const outfile = path.join(dir, 'gatehouse.cjs');
let app: AppBundle;
before(async () => {
  app = await bundleApp(path.join(ROOT, 'packaging/build/sea-entry.ts'), outfile, {
    packageJson: path.join(ROOT, 'package.json'),
    version: '0.0.0-test',
  });
});

/** The command line's script (packaging/build/command-line-require.ts). */
const commandLine = () => {
  const file = app.assets[COMMAND_LINE_ASSET];
  assert.ok(file, 'the command line is an asset');
  return file;
};

/** The inputs of one output file of the build, by their paths (node_modules/<package>/... or src/...). */
const inputsOf = (file: string) => {
  const output = Object.entries(app.metafile.outputs).find(([name]) => path.resolve(ROOT, name) === file);
  assert.ok(output, `${file} is among the outputs`);
  return Object.keys(output[1].inputs);
};

describe("the release executable's main script (packaging/build/bundle-app.ts)", () => {
  test('a file with one character beyond ASCII is refused, naming its line; an ASCII one passes', () => {
    const file = path.join(dir, 'script.cjs');
    writeFileSync(file, 'const a = 1;\nconst dash = /[\\u2010-\\u2014]/;\n');
    assertAscii(file);
    writeFileSync(file, 'const a = 1;\nconst dash = /[\u2010-\u2014]/;\n');
    assert.throws(
      () => assertAscii(file),
      /script\.cjs:2: a character beyond ASCII near "const a = 1;\nconst dash = \/\[/,
    );
  });

  test('the main script and the command line are ASCII, carry no comments, and are smaller than their sources', () => {
    for (const file of [outfile, commandLine()]) {
      assertAscii(file);
      const text = readFileSync(file, 'utf8');
      // The packages' doc comments (over a thousand `@param` lines before), matched without printing megabytes.
      assert.equal(text.includes('@param'), false, `a doc comment is left in ${file}`);
      const inputBytes = inputsOf(file).reduce((sum, input) => sum + (app.metafile.inputs[input]?.bytes ?? 0), 0);
      assert.ok(text.length < inputBytes * 0.8, `${text.length} bytes of ${file} for ${inputBytes} of input`);
    }
    // Names are kept for stack traces.
    assert.equal(readFileSync(commandLine(), 'utf8').includes('function normalizeUserCode('), true);
  });

  // A handed-over supervisor (src/supervisor-handover.ts) runs the main script and never the command line.
  test('the main script holds the entry and the supervisor; the command line is a script of its own', () => {
    const main = inputsOf(outfile);
    assert.ok(main.includes('src/supervisor-main.ts') && main.includes('src/main.ts'), main.join(' '));
    const stayOut = (input: string) =>
      /^src\/(cli\/(program|commands|serve)\.ts|config\/load\.ts|app\.ts|server\.ts)$/.test(input) ||
      input.includes('node_modules/commander/') ||
      // Its lines are written by src/supervisor-log.ts; pino is the workers'.
      input.includes('node_modules/pino/');
    assert.deepEqual(main.filter(stayOut), []);
    const program = inputsOf(commandLine());
    assert.ok(
      program.includes('src/cli/program.ts') && program.includes('src/app.ts'),
      'the command line holds the rest',
    );
    assert.equal(program.includes('src/main.ts'), false);
  });
});

describe('the packages of first use: scripts of their own (packaging/build/first-use-packages.ts)', () => {
  test('the main script holds none of their code, and each package the application imports has its script', () => {
    const bundled = [...inputsOf(outfile), ...inputsOf(commandLine())].filter((input) =>
      FIRST_USE_PACKAGES.some((name) => input.includes(`node_modules/${name}/`)),
    );
    assert.deepEqual(bundled, []);
    // Every package of the list is imported somewhere: a name that no longer is would be a stale entry.
    assert.deepEqual(Object.keys(app.firstUse).sort(), [...FIRST_USE_PACKAGES].sort());
    for (const name of FIRST_USE_PACKAGES) {
      const file = app.assets[assetKeyOf(name)];
      assert.ok(file, `${name} has a script`);
      assertAscii(file);
      // A package's script holds no other package of first use: those are required through the loader.
      const others = inputsOf(file).filter((input) =>
        FIRST_USE_PACKAGES.some((other) => other !== name && input.includes(`node_modules/${other}/`)),
      );
      assert.deepEqual(others, [], `${name}'s script bundles another package of first use`);
    }
  });

  test('each specifier loads from its script with the exports Node gives the package from node_modules', async () => {
    const read: string[] = [];
    const requireFirstUse = createFirstUseRequire((key) => {
      read.push(key);
      const file = app.assets[key];
      if (!file) throw new Error(`no asset ${key}`);
      return readFileSync(file, 'utf8');
    });
    for (const [name, specifiers] of Object.entries(app.firstUse))
      for (const [specifier, names] of Object.entries(specifiers)) {
        assert.equal(packageOf(specifier), name);
        const loaded = requireFirstUse(specifier) as Record<string, unknown>;
        const fromNodeModules = (await import(specifier)) as Record<string, unknown>;
        // A script built from named imports holds those names; otherwise every export.
        const expected =
          names ?? Object.keys(fromNodeModules).filter((key) => key !== 'default' && key !== 'module.exports');
        assert.ok(expected.length > 0, `${specifier}: nothing to compare`);
        const missing = expected.filter((key) => typeof loaded[key] !== typeof fromNodeModules[key]);
        assert.deepEqual(missing, [], `${specifier}: exports missing or of another type`);
        if (names) assert.deepEqual(Object.keys(loaded).sort(), [...names].sort(), `${specifier}: more than its names`);
      }
    // Named imports leave the rest of a package out: viem's script is a fraction of viem.
    assert.deepEqual(app.firstUse.viem?.['viem/chains'], ['optimism']);
    assert.ok(
      readFileSync(app.assets[assetKeyOf('viem')] as string).length < 1_000_000,
      "viem's script is tree-shaken",
    );
    // Each script is read and run once, however many specifiers and packages require it.
    assert.deepEqual(read.sort(), FIRST_USE_PACKAGES.map(assetKeyOf).sort());
  });

  test('a specifier its script was not built with, or a module it did not bundle, is refused by name', () => {
    const requireFirstUse = createFirstUseRequire((key) => {
      if (key === assetKeyOf('jose')) return 'module.exports = { modules: { jose: { ok: true } } };';
      if (key === assetKeyOf('tldts')) return 'require("left-out"); module.exports = { modules: {} };';
      throw new Error(`no asset ${key}`);
    });
    assert.deepEqual(requireFirstUse('jose'), { ok: true });
    assert.throws(() => requireFirstUse('jose/jwt/sign'), /first-use\/jose\.cjs has no jose\/jwt\/sign: rebuild/);
    assert.throws(() => requireFirstUse('tldts'), /Cannot find module 'left-out' in the release executable/);
  });
});

describe('what a package of first use is imported for (namedImports)', () => {
  test('named imports, aliases and type-only members, over several statements and either quote', () => {
    const source = [
      "import { a, b as c, type T } from 'pkg';",
      'import type { U } from "pkg";',
      'import {',
      '  d,',
      '  type V,',
      '} from "pkg";',
      "import { e } from 'pkg/sub';",
    ].join('\n');
    assert.deepEqual(namedImports(source, 'pkg'), ['a', 'b', 'd']);
    assert.deepEqual(namedImports(source, 'pkg/sub'), ['e']);
  });

  test('a namespace, a default, a re-export, a side-effect import or a stray mention takes the whole package', () => {
    for (const source of [
      "import * as all from 'pkg';",
      "import def from 'pkg';",
      "import def, { a } from 'pkg';",
      "import { a } from 'pkg';\nexport { b } from 'pkg';",
      "import { a } from 'pkg';\nimport 'pkg';",
      "import { a } from 'pkg';\nconst lazy = () => import('pkg');",
      "// see 'pkg'\nimport { a } from 'pkg';",
      "import type { T } from 'pkg';",
      "const x = 1;import { a } from 'pkg';",
    ])
      assert.equal(namedImports(source, 'pkg'), null, source);
    // Another package whose name starts the same is not a mention.
    assert.deepEqual(namedImports("import { a } from 'pkg';\nimport { b } from 'pkg-two';", 'pkg'), ['a']);
  });
});
