// The organization's branding, put into the page's head by the server (src/web/branding.ts): read once, before the
// first render, so the name and logo never flash in.
const meta = (name: string) => document.querySelector<HTMLMetaElement>(`meta[name="${name}"]`)?.content ?? '';

export const brand = {
  organization: meta('gatehouse-organization') || 'Gatehouse',
  /** The logo's local address, or '' when none is configured. */
  logo: meta('gatehouse-logo'),
};
