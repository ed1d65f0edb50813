// `npm run build:sdk`: builds @gatehouse/browser into sdk/browser/dist — the ES module with Vite's library mode,
// the declarations with tsc (tsconfig.build.json). `prepare` runs it, so tests always drive the package as built.
import { execFileSync } from 'node:child_process';
import { globSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { build } from 'vite';

const root = path.resolve(import.meta.dirname, '..');
const sdk = path.join(root, 'sdk/browser');

await build({ configFile: path.join(sdk, 'vite.config.ts'), logLevel: 'warn' });
execFileSync(path.join(root, 'node_modules/.bin/tsc'), ['-p', path.join(sdk, 'tsconfig.build.json')], {
  stdio: 'inherit',
});

// tsc keeps the sources' `.ts` specifiers in declarations; published files are `.js` + `.d.ts`.
for (const file of globSync(path.join(sdk, 'dist/*.d.ts'))) {
  const text = readFileSync(file, 'utf8');
  writeFileSync(file, text.replace(/(from '\.\/[\w-]+)\.ts'/g, "$1.js'"));
}
