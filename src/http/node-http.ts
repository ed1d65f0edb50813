// node:http for code that calls it, read with process.getBuiltinModule rather than `import ... from 'node:http'`.
// An ES import of node:http reads every export of the module to link it, and three of them (WebSocket, CloseEvent,
// MessageEvent) are lazy getters that load Node's own fetch implementation (its bundled undici, 745 KB of source)
// into every process that imports it, though nothing here uses fetch. In an idle worker that was 1.6 MB of heap and
// 0.9 MB of external memory. Types still come from `import type { ... } from 'node:http'`, which is erased.
// test/startup-imports.test.ts keeps the undici out.
export const nodeHttp = process.getBuiltinModule('node:http');
