import { useEffect, useRef, useState } from 'preact/hooks';
import { brand } from '../../brand.ts';
import { SignOutButton } from '../../components/SignOutButton.tsx';
import { useSignInMethods } from '../../hooks/use-sign-in-methods.ts';
import { useSignedInPerson } from './use-signed-in-person.ts';

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
 * The console's header: the organization, the sections, and who is signed in with a link to their account page and
 * "Sign out". On a wide screen the sections are one row under the brand; on a phone (styles: console-shell.css) they
 * and the person fold behind a "Menu" button, so the page starts on the first screen instead of under four lines
 * of links.
 */
export function ConsoleHeader({ section }: { section: string }) {
  // The Mailbox page exists only on an instance with the development mailbox (its API route does too).
  const methods = useSignInMethods();
  const sections = methods?.dev_mailbox ? [...SECTIONS, ['mailbox', 'Mailbox'] as const] : SECTIONS;
  const person = useSignedInPerson();
  const [open, setOpen] = useState(false);
  const button = useRef<HTMLButtonElement>(null);

  // Escape closes an open menu and gives the focus back to its button, as a disclosure should.
  useEffect(() => {
    if (!open) return;
    const onKey = (event: KeyboardEvent) => {
      if (event.key !== 'Escape') return;
      setOpen(false);
      button.current?.focus();
    };
    document.addEventListener('keydown', onKey);
    return () => document.removeEventListener('keydown', onKey);
  }, [open]);

  return (
    <header class="console-header">
      <p class="console-brand">
        {brand.logo && <img class="brand-logo" src={brand.logo} alt="" />}
        <span>{brand.organization} console</span>
      </p>
      <button
        ref={button}
        type="button"
        class="menu-button"
        aria-expanded={open}
        aria-controls="console-menu"
        onClick={() => setOpen(!open)}
      >
        Menu
      </button>
      <div id="console-menu" class={open ? 'console-menu open' : 'console-menu'}>
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
        {person && (
          <div class="console-person">
            <a href="/settings" title="Your account">
              <span class="visually-hidden">Signed in as </span>
              <span class="person-name">{person.display_name}</span>
              {person.email && person.email !== person.display_name && (
                <>
                  {' '}
                  <span class="person-email">{person.email}</span>
                </>
              )}
              <span class="visually-hidden"> (your account)</span>
            </a>
            <SignOutButton label="Sign out" class="sign-out" />
          </div>
        )}
      </div>
    </header>
  );
}
