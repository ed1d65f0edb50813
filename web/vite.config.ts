import preact from '@preact/preset-vite';
import { defineConfig } from 'vite';

// Built into web/dist and served by Gatehouse itself under a strict CSP: no inline scripts or styles, no third-party
// origins, so nothing here may be inlined into index.html.
export default defineConfig({
  root: 'web',
  base: '/',
  plugins: [preact()],
  build: {
    outDir: 'dist',
    emptyOutDir: true,
    assetsDir: 'assets',
    assetsInlineLimit: 0,
    modulePreload: { polyfill: false },
    sourcemap: false,
  },
});
