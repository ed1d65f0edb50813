import { useEffect, useRef } from 'preact/hooks';

/** An edit form's heading, focused when the form opens so keyboard users land on it and hear what they edit. */
export function EditHeading({ id, text }: { id: string; text: string }) {
  const heading = useRef<HTMLHeadingElement>(null);
  useEffect(() => heading.current?.focus(), []);
  return (
    <h2 id={id} tabIndex={-1} ref={heading}>
      {text}
    </h2>
  );
}
