// Keeps package-lock.json installable with `npm ci` on every platform. The registry this project is developed
// against does not serve some platform-specific optional packages (e.g. Biome's macOS and Windows binaries), so npm
// leaves them out of the lock, and `npm ci` then refuses the lock as out of sync. This adds the missing entries,
// marked optional with their os/cpu, exactly as npm writes them for packages it could fetch. Run after
// `npm install` changes the lock: `node scripts/lock-optional-platforms.ts`.
import { readFileSync, writeFileSync } from 'node:fs';

type Entry = { version?: string; optionalDependencies?: Record<string, string>; [key: string]: unknown };
const file = new URL('../package-lock.json', import.meta.url);
const lock = JSON.parse(readFileSync(file, 'utf8')) as { packages: Record<string, Entry> };

const PLATFORM =
  /-(android|darwin|freebsd|linux|win32|openbsd|sunos|aix)-(arm64|x64|ia32|arm|ppc64|s390x)(-(musl|gnu|msvc))?$/;
let added = 0;
for (const [location, entry] of Object.entries(lock.packages)) {
  for (const [name, version] of Object.entries(entry.optionalDependencies ?? {})) {
    const match = PLATFORM.exec(name);
    const target = `${location === '' ? '' : `${location}/`}node_modules/${name}`.replace(/^\//, '');
    const hoisted = `node_modules/${name}`;
    if (!match || lock.packages[target] || lock.packages[hoisted]) continue;
    const sibling = Object.entries(lock.packages).find(
      ([key]) => key.startsWith(hoisted.replace(PLATFORM, '')) && PLATFORM.test(key),
    );
    lock.packages[hoisted] = {
      version,
      cpu: [match[2]],
      os: [match[1]],
      ...(match[4] ? { libc: [match[4]] } : {}),
      ...(entry.dev ? { dev: true } : {}),
      optional: true,
      ...(sibling?.[1].license ? { license: sibling[1].license } : {}),
      ...(sibling?.[1].engines ? { engines: sibling[1].engines } : {}),
    };
    added += 1;
  }
}
lock.packages = Object.fromEntries(
  Object.entries(lock.packages).sort(([a], [b]) => (a === '' ? -1 : b === '' ? 1 : a < b ? -1 : 1)),
);
writeFileSync(file, `${JSON.stringify(lock, null, 2)}\n`);
process.stdout.write(`package-lock.json: ${added} platform entr${added === 1 ? 'y' : 'ies'} added\n`);
