import type { ComponentChildren } from 'preact';
import { useEffect } from 'preact/hooks';
import type { ApiError } from '../../api.ts';
import { brand } from '../../brand.ts';
import { ConsoleHeader } from './ConsoleHeader.tsx';
import { NotAllowed } from './NotAllowed.tsx';

/**
 * The console frame: a skip link, the header (sections with the current page marked, who is signed in), and the
 * page body. `access` is the error of the page's first load: when the guard refuses (403 admin_required), the person
 * sees why instead.
 */
export function ConsoleLayout({
  section,
  title,
  access,
  children,
}: {
  section: string;
  title: string;
  access: ApiError | null;
  children: ComponentChildren;
}) {
  const denied = access?.code === 'admin_required';
  useEffect(() => {
    if (!denied) document.title = `${title} · Console · ${brand.organization}`;
  }, [title, denied]);
  if (access && denied) return <NotAllowed error={access} />;
  return (
    <div class="console">
      <a class="skip" href="#content">
        Skip to content
      </a>
      <ConsoleHeader section={section} />
      <main id="content" class="console-main" tabIndex={-1}>
        <h1>{title}</h1>
        {children}
      </main>
    </div>
  );
}
