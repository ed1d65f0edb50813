// The built UI's hashed assets (web/dist/assets: one script and one stylesheet from Vite), read once at startup
// and answered from memory. They are a handful of files whose names never change once built, so a general static
// file server (and the 1.7 MB of idle RSS @fastify/static and its dependencies cost) buys nothing here. Read through
// bundled-files.ts, so the release executable answers them from its embedded assets.
import path from 'node:path';
import { listFiles, readBundledFile } from '../bundled-files.ts';

export interface Asset {
  body: Buffer;
  contentType: string;
}

// What Vite emits for this UI, and what an added image or font would be; anything else is served as bytes.
const CONTENT_TYPES: Record<string, string> = {
  '.js': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.svg': 'image/svg+xml',
  '.png': 'image/png',
  '.ico': 'image/x-icon',
  '.woff2': 'font/woff2',
  '.map': 'application/json; charset=utf-8',
};

/** The media types assets are served as, for the published contract (routes.ts). */
export const ASSET_MEDIA_TYPES = [
  ...new Set([...Object.values(CONTENT_TYPES), 'application/octet-stream'].map((type) => type.split(';')[0] as string)),
];

// Vite's names: `index-<hash>.js`. Hidden files and anything stranger are not served.
const ASSET_NAME = /^[A-Za-z0-9_-][A-Za-z0-9._-]*$/;

/** The regular files directly under `dir`, by name; an empty map when the directory does not exist. */
export function readAssets(dir: string): Map<string, Asset> {
  const assets = new Map<string, Asset>();
  for (const name of listFiles(dir)) {
    const body = ASSET_NAME.test(name) ? readBundledFile(path.join(dir, name)) : null;
    if (!body) continue;
    const contentType = CONTENT_TYPES[path.extname(name)] ?? 'application/octet-stream';
    assets.set(name, { body, contentType });
  }
  return assets;
}
