// The packages the release executable keeps out of its main script (docs/decisions.md, "The release executable's
// packages of first use"). Each is bundled apart as a SEA asset and compiled the first time the application requires
// it: a node that never signs anyone in with a wallet, SAML or LDAP, never orders a certificate and never proxies
// does not hold those libraries' code as a string in every process, nor their pages of the executable. A checkout
// loads the same packages on first use from node_modules (test/startup-imports.test.ts); this list is the bundle's
// side of it. Shared by the build (bundle-app.ts) and the executable's loader below, so the two cannot disagree.
import { compileFunction } from 'node:vm';

export const FIRST_USE_PACKAGES: readonly string[] = [
  // Sign-in methods a node may not offer: wallets, SAML, LDAP, passkeys, redirect providers, TOTP.
  'viem',
  '@farcaster/auth-client',
  '@node-saml/node-saml',
  '@xmldom/xmldom',
  'xpath',
  'ldapts',
  '@simplewebauthn/server',
  'openid-client',
  'oauth4webapi',
  'otpauth',
  'qrcode',
  // Password strength (sign-up and password change): its dictionaries are the largest part of the bundle.
  '@zxcvbn-ts/core',
  '@zxcvbn-ts/language-common',
  '@zxcvbn-ts/language-en',
  // Mail, ACME certificates, the gateway's upstream pool, private_key_jwt, parent-domain passkey RP IDs, session lists.
  'nodemailer',
  'acme-client',
  '@peculiar/x509',
  'undici',
  'jose',
  'tldts',
  'ua-parser-js',
  // Fastify's compilers: request validators come compiled from the build (src/http/route-validators.ts) and responses
  // are written by JSON.stringify; Ajv compiles only a schema the build did not see.
  '@fastify/ajv-compiler',
  '@fastify/fast-json-stringify-compiler',
  // Commands only: backups and updates (tar), configuration edits (toml-patch).
  'tar',
  '@decimalturn/toml-patch',
];

/** The package a specifier names: `viem/siwe` is viem's, `@zxcvbn-ts/core/x` is @zxcvbn-ts/core's. */
export function packageOf(specifier: string): string {
  const parts = specifier.split('/');
  return (specifier.startsWith('@') ? parts.slice(0, 2) : parts.slice(0, 1)).join('/');
}

const FIRST_USE = new Set(FIRST_USE_PACKAGES);
export const isFirstUse = (specifier: string): boolean => FIRST_USE.has(packageOf(specifier));

/** The SEA asset that holds a package: one CommonJS script whose `modules` are its specifiers' exports. */
export const assetKeyOf = (name: string): string => `first-use/${name.replace('/', '+')}.cjs`;

/**
 * What an asset's script answers for each specifier: the exports `require` gives (null), or only the named ones the
 * application imports (esbuild then leaves the rest of the package out).
 */
export type AssetSpecifiers = Record<string, readonly string[] | null>;

/** An asset's script: `module.exports.modules[specifier]` is what the application's import of it reads. */
export function assetEntry(specifiers: AssetSpecifiers): string {
  const imports: string[] = [];
  const entries = Object.entries(specifiers).map(([specifier, names]) => {
    const quoted = JSON.stringify(specifier);
    if (names === null) return `${quoted}: require(${quoted})`;
    const local = names.map((name) => [name, `i${imports.length}_${name}`] as const);
    imports.push(`import { ${local.map(([name, as]) => `${name} as ${as}`).join(', ')} } from ${quoted};`);
    return `${quoted}: { ${local.map(([name, as]) => `${name}: ${as}`).join(', ')} }`;
  });
  return `${imports.join('\n')}\nexport const modules = { ${entries.join(', ')} };\n`;
}

/** Node's built-in module `id`, refused as the executable's own `require` refuses anything else. */
export function requireBuiltin(id: string): unknown {
  const builtin = process.getBuiltinModule(id);
  if (builtin === undefined)
    throw Object.assign(new Error(`Cannot find module '${id}' in the release executable`), {
      code: 'MODULE_NOT_FOUND',
    });
  return builtin;
}

/**
 * `require` for the packages of first use, reading each package's script with `readAsset` (node:sea's getAsset in the
 * executable; files in the tests). A package's script gets a `require` of its own that answers Node's built-in
 * modules and the other packages of first use (bundled apart too, so each has one instance): anything else was
 * bundled into it, and is refused as the executable's own `require` would refuse it.
 */
export function createFirstUseRequire(readAsset: (key: string) => string): (specifier: string) => unknown {
  const packages = new Map<string, Record<string, unknown> | 'loading'>();

  const requireInAsset = (id: string): unknown => (isFirstUse(id) ? load(id) : requireBuiltin(id));

  function load(specifier: string): unknown {
    const name = packageOf(specifier);
    let modules = packages.get(name);
    // The build would have to have bundled two packages that require each other at load; none does (tested).
    if (modules === 'loading') throw new Error(`${name} is required again while it loads`);
    if (modules === undefined) {
      packages.set(name, 'loading');
      try {
        const module = { exports: {} as { modules?: Record<string, unknown> } };
        const run = compileFunction(readAsset(assetKeyOf(name)), ['exports', 'require', 'module'], {
          filename: `gatehouse:${assetKeyOf(name)}`,
        });
        run(module.exports, requireInAsset, module);
        modules = module.exports.modules ?? {};
      } finally {
        packages.delete(name);
      }
      packages.set(name, modules);
    }
    if (!Object.hasOwn(modules, specifier))
      throw new Error(`The release executable's ${assetKeyOf(name)} has no ${specifier}: rebuild the release`);
    return modules[specifier];
  }

  return load;
}
