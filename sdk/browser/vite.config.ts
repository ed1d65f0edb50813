// Library build of @gatehouse/browser: one ES module in dist/, jose left as a dependency for the app's bundler to
// share and tree-shake. Declarations come from `tsc -p sdk/browser/tsconfig.build.json` (see the root `build:sdk` script).
import { defineConfig } from 'vite';

export default defineConfig({
  build: {
    outDir: new URL('./dist', import.meta.url).pathname,
    emptyOutDir: true,
    minify: false,
    sourcemap: true,
    target: 'es2022',
    lib: { entry: new URL('./src/index.ts', import.meta.url).pathname, formats: ['es'], fileName: 'index' },
    rolldownOptions: { external: ['jose'] },
  },
});
