import type { RefObject, SyntheticEvent } from 'react';

/**
 * A popover's `onToggle` that places it under its button when it opens: the top layer is positioned
 * against the viewport, so the popover is moved to the button's bottom edge, at the `left` given.
 */
export function placeUnder(button: RefObject<HTMLElement | null>, left: (b: DOMRect) => number): (e: SyntheticEvent<HTMLElement>) => void {
  return (e) => {
    if ((e as unknown as { newState: string }).newState !== 'open') return;
    const b = button.current?.getBoundingClientRect();
    const el = e.currentTarget;
    if (!b) return;
    el.style.top = `${b.bottom + 4}px`;
    el.style.left = `${left(b)}px`;
  };
}
