import type { ComponentChildren } from 'preact';
import { useEffect } from 'preact/hooks';
import { brand } from '../brand.ts';
import { Brand } from './Brand.tsx';

/** Page frame: the organization's header, one h1, a main landmark, and the document title kept in step for screen readers and history. */
export function Page({ title, children }: { title: string; children: ComponentChildren }) {
  useEffect(() => {
    document.title = `${title} · ${brand.organization}`;
  }, [title]);
  return (
    <>
      <Brand />
      <main class="page">
        <h1>{title}</h1>
        {children}
      </main>
    </>
  );
}
