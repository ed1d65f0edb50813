import type { ComponentChildren } from 'preact';
import { useEffect } from 'preact/hooks';
import type { ApiError } from '../../api.ts';
import { brand } from '../../brand.ts';
import { useSignInMethods } from '../../hooks/use-sign-in-methods.ts';
import { NotAllowed } from './NotAllowed.tsx';

const SECTIONS = [
  ['home', 'Overview'],
  ['applications', 'Applications'],
  ['clients', 'Clients'],
  ['resources', 'Resources'],
  ['identities', 'Identities'],
  ['members', 'Members'],
  ['audit', 'Audit log'],
  ['single-sign-on', 'Single sign-on'],
  ['status', 'Status'],
] as const;

/**
 * The console frame: a skip link, section navigation with the current page marked, and the page body. `access` is
 * the error of the page's first load: when the guard refuses (403 admin_required), the person sees why instead.
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
  // The Mailbox page exists only on an instance with the development mailbox (its API route does too).
  const methods = useSignInMethods();
  const sections = methods?.dev_mailbox ? [...SECTIONS, ['mailbox', 'Mailbox'] as const] : SECTIONS;
  useEffect(() => {
    if (!denied) document.title = `${title} · Console · ${brand.organization}`;
  }, [title, denied]);
  if (access && denied) return <NotAllowed error={access} />;
  return (
    <div class="console">
      <a class="skip" href="#content">
        Skip to content
      </a>
      <header class="console-header">
        <p class="console-brand">
          {brand.logo && <img class="brand-logo" src={brand.logo} alt="" />}
          <span>{brand.organization} console</span>
        </p>
        <nav aria-label="Console sections">
          <ul>
            {sections.map(([id, label]) => (
              <li key={id}>
                <a
                  href={id === 'home' ? '/admin/console' : `/admin/console/${id}`}
                  aria-current={section === id ? 'page' : undefined}
                >
                  {label}
                </a>
              </li>
            ))}
          </ul>
        </nav>
      </header>
      <main id="content" class="console-main" tabIndex={-1}>
        <h1>{title}</h1>
        {children}
      </main>
    </div>
  );
}
