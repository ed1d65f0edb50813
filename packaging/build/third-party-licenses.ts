// THIRD-PARTY-LICENSES: the licence of every npm package whose code esbuild put into the executable (read from the
// bundle's metafile, so it lists exactly what ships), the packages the web UI imports (Vite bundles them into
// web/dist), and Node.js itself, the executable's runtime.
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import type { Metafile } from 'esbuild';

interface Package {
  name: string;
  version: string;
  license: string;
  texts: string[];
}

const LICENSE_FILE = /^(licen[cs]e|copying|notice)(\.(md|txt|markdown))?$/i;

/** The package directory of a bundled input: the path up to and including the last node_modules/<name>. */
function packageDir(input: string): string | null {
  const parts = input.split('/');
  const at = parts.lastIndexOf('node_modules');
  if (at < 0) return null;
  const scoped = parts[at + 1]?.startsWith('@');
  return parts.slice(0, at + (scoped ? 3 : 2)).join('/');
}

function readPackage(root: string, dir: string): Package {
  const manifest = JSON.parse(readFileSync(path.join(root, dir, 'package.json'), 'utf8')) as {
    name: string;
    version: string;
    license?: string;
  };
  const texts = readdirSync(path.join(root, dir))
    .filter((file) => LICENSE_FILE.test(file))
    .sort()
    .map((file) => readFileSync(path.join(root, dir, file), 'utf8').trim());
  return { name: manifest.name, version: manifest.version, license: manifest.license ?? 'UNKNOWN', texts };
}

const BARE_IMPORT = /\bfrom '((?:@[^/'.][^/']*\/)?[^/'.][^/']*)[^']*'/g;

/** node_modules/<name> of every package web/src imports by name. */
function webPackageDirs(root: string): string[] {
  const names = new Set<string>();
  for (const entry of readdirSync(path.join(root, 'web/src'), { recursive: true, withFileTypes: true })) {
    if (!entry.isFile() || !/\.tsx?$/.test(entry.name)) continue;
    for (const [, name] of readFileSync(path.join(entry.parentPath, entry.name), 'utf8').matchAll(BARE_IMPORT))
      if (name) names.add(name);
  }
  return [...names].map((name) => `node_modules/${name}`);
}

/** The shipped packages, by name@version; throws when one has neither a licence file nor a licence field. */
export function bundledPackages(root: string, metafile: Metafile): Package[] {
  const dirs = new Set([
    ...Object.keys(metafile.inputs)
      .map(packageDir)
      .filter((dir): dir is string => dir !== null),
    ...webPackageDirs(root),
  ]);
  const packages = new Map<string, Package>();
  for (const dir of dirs) {
    if (!existsSync(path.join(root, dir, 'package.json'))) continue;
    const found = readPackage(root, dir);
    if (found.texts.length === 0 && found.license === 'UNKNOWN')
      throw new Error(`${found.name}@${found.version} is bundled but states no licence`);
    packages.set(`${found.name}@${found.version}`, found);
  }
  return [...packages.values()].sort((a, b) => a.name.localeCompare(b.name) || a.version.localeCompare(b.version));
}

export function thirdPartyLicenses(packages: Package[], nodeVersion: string, nodeLicense: string): string {
  const sections = [
    `Node.js ${nodeVersion} (the runtime of this executable)\nLicense: MIT and others, as follows\n\n${readFileSync(nodeLicense, 'utf8').trim()}`,
    ...packages.map(
      (p) =>
        `${p.name} ${p.version}\nLicense: ${p.license}\n\n${p.texts.join('\n\n') || `(The package ships no licence file; its package.json states ${p.license}.)`}`,
    ),
  ];
  const rule = `\n\n${'='.repeat(79)}\n\n`;
  return `Third-party software in this Gatehouse release\n\n${sections.join(rule)}\n`;
}
