// Branding on every hosted page: the organization's name, an optional logo and an accent colour (config [branding]).
// The logo is a raster file read once at startup and served by us from /branding/logo, so pages keep
// `img-src 'self'` and no third party learns who opens a sign-in page; SVG is refused since it can carry script.
// The accent reaches pages as a tiny stylesheet (/branding/accent.css): CSP allows no inline style.
import { readFileSync, statSync } from 'node:fs';
import type { Config } from '../config/schema.ts';

export const LOGO_PATH = '/branding/logo';
export const ACCENT_PATH = '/branding/accent.css';
const MAX_LOGO_BYTES = 256 * 1024;

export interface Logo {
  body: Buffer;
  contentType: string;
}

export interface Branding {
  organizationName: string;
  accentColor: string;
  logo: Logo | null;
}

/** The raster formats taken, by their leading bytes: the extension proves nothing. */
const SIGNATURES: [string, (b: Buffer) => boolean][] = [
  ['image/png', (b) => b.subarray(0, 8).equals(Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]))],
  ['image/jpeg', (b) => b[0] === 0xff && b[1] === 0xd8 && b[2] === 0xff],
  ['image/webp', (b) => b.toString('latin1', 0, 4) === 'RIFF' && b.toString('latin1', 8, 12) === 'WEBP'],
];

/** The media types a logo is served as, for the published contract (routes.ts). */
export const LOGO_MEDIA_TYPES = SIGNATURES.map(([type]) => type);

export class BrandingError extends Error {
  constructor(problem: string) {
    super(`branding.logo_file ${problem}`);
    this.name = 'BrandingError';
  }
}

export function readLogo(file: string): Logo {
  let size: number;
  try {
    size = statSync(file).size;
  } catch {
    throw new BrandingError(`cannot be read: ${file}`);
  }
  if (size > MAX_LOGO_BYTES) throw new BrandingError(`is ${size} bytes; the limit is ${MAX_LOGO_BYTES}`);
  const body = readFileSync(file);
  const type = SIGNATURES.find(([, matches]) => matches(body))?.[0];
  if (!type) throw new BrandingError('must be a PNG, JPEG or WebP image (SVG is refused: it can carry script)');
  return { body, contentType: type };
}

export function loadBranding(config: Config): Branding {
  return {
    organizationName: config.organization.name || 'Gatehouse',
    accentColor: config.branding.accent_color.toLowerCase(),
    logo: config.branding.logo_file === '' ? null : readLogo(config.branding.logo_file),
  };
}

/** The accent as CSS custom properties; the value passed the config's #rrggbb pattern, so it is inert here. */
export const accentCss = (b: Branding) => `:root{--accent:${b.accentColor}}\n`;

const escapeHtml = (value: string) => value.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);

/**
 * The UI's index.html with the branding in its head: the accent stylesheet, the organization's name and the logo's
 * address as meta tags the UI reads before its first render (no flash, no extra request), and the title.
 */
export function brandIndex(index: string, b: Branding): string {
  const head =
    `<link rel="stylesheet" href="${ACCENT_PATH}">` +
    `<meta name="gatehouse-organization" content="${escapeHtml(b.organizationName)}">` +
    (b.logo ? `<meta name="gatehouse-logo" content="${LOGO_PATH}">` : '');
  return index
    .replace('<title>Gatehouse</title>', `<title>${escapeHtml(b.organizationName)}</title>`)
    .replace('</head>', `${head}</head>`);
}

/** The same header the UI draws (Brand.tsx), for the server-rendered pages. */
export function brandHeaderHtml(b: Branding): string {
  const logo = b.logo ? `<img class="brand-logo" src="${LOGO_PATH}" alt="">` : '';
  return `<header class="brand">${logo}<span class="brand-name">${escapeHtml(b.organizationName)}</span></header>`;
}
