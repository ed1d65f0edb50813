import type { ComponentChildren } from 'preact';
import { useEffect } from 'preact/hooks';

const SECTIONS = [
  ['applications', 'Applications'],
  ['clients', 'Clients'],
  ['resources', 'Resources'],
  ['identities', 'Identities'],
  ['members', 'Members'],
  ['audit', 'Audit log'],
  ['status', 'Status'],
] as const;

/** The console frame: a skip link, section navigation with the current page marked, and the page body. */
export function ConsoleLayout({
  section,
  title,
  children,
}: {
  section: string;
  title: string;
  children: ComponentChildren;
}) {
  useEffect(() => {
    document.title = `${title} · Console · Gatehouse`;
  }, [title]);
  return (
    <div class="console">
      <a class="skip" href="#content">
        Skip to content
      </a>
      <header class="console-header">
        <p class="brand">Gatehouse console</p>
        <nav aria-label="Console sections">
          <ul>
            {SECTIONS.map(([id, label]) => (
              <li key={id}>
                <a href={`/admin/console/${id}`} aria-current={section === id ? 'page' : undefined}>
                  {label}
                </a>
              </li>
            ))}
          </ul>
        </nav>
      </header>
      <main id="content" class="console-main">
        <h1>{title}</h1>
        {children}
      </main>
    </div>
  );
}
