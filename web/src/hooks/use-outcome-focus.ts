import { useEffect, useRef, useState } from 'preact/hooks';

/**
 * Moves focus to the outcome of a create, edit or delete once the page has re-rendered with it, so keyboard and
 * screen-reader users learn what happened without hunting for it: the first field the server refused, else the
 * message saying how it went (an element marked `data-outcome`). `ref` marks the region to look in (a form, or the
 * notices at the top of a page); call `settled()` when the request has finished, whatever the answer.
 */
export function useOutcomeFocus<T extends HTMLElement>() {
  const ref = useRef<T>(null);
  const [generation, setGeneration] = useState(0);
  useEffect(() => {
    const region = ref.current;
    if (generation === 0 || !region) return;
    const target =
      region.querySelector<HTMLElement>('[aria-invalid="true"]') ?? region.querySelector<HTMLElement>('[data-outcome]');
    target?.focus();
  }, [generation]);
  return { ref, settled: () => setGeneration((g) => g + 1) };
}
