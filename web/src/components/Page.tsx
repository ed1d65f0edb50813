import type { ComponentChildren } from 'preact';
import { useEffect } from 'preact/hooks';

/** Page frame: one h1, a main landmark, and the document title kept in step for screen readers and history. */
export function Page({ title, children }: { title: string; children: ComponentChildren }) {
  useEffect(() => {
    document.title = `${title} · Gatehouse`;
  }, [title]);
  return (
    <main class="page">
      <h1>{title}</h1>
      {children}
    </main>
  );
}
