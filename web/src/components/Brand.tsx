import { brand } from '../brand.ts';

/** The organization's logo and name at the top of every page (the server-rendered pages draw the same header). */
export function Brand() {
  return (
    <header class="brand">
      {brand.logo && <img class="brand-logo" src={brand.logo} alt="" />}
      <span class="brand-name">{brand.organization}</span>
    </header>
  );
}
