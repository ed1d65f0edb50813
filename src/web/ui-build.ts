// The built web UI (web/dist): its index.html, and the hashed stylesheet it links, which the server-rendered
// protocol pages (consent, logout, errors) reuse so every page looks alike under one `style-src 'self'`.
import { BUNDLE_ROOT, readBundledFile } from '../bundled-files.ts';

/** web/dist in a checkout; the embedded copy in the release executable. */
export const WEB_DIST = `${BUNDLE_ROOT}web/dist/`;

export interface UiBuild {
  dist: string;
  /** index.html, or null when the UI is not built. */
  index: string | null;
  /** The stylesheet's local path (`/assets/index-<hash>.css`), or null without a build. */
  stylesheet: string | null;
}

export function readUiBuild(dist = WEB_DIST): UiBuild {
  const index = readBundledFile(`${dist}index.html`)?.toString('utf8') ?? null;
  const stylesheet =
    /<link rel="stylesheet"[^>]*\shref="(\/assets\/[A-Za-z0-9._-]+\.css)"/.exec(index ?? '')?.[1] ?? null;
  return { dist, index, stylesheet };
}
