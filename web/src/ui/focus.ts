/**
 * Focus for content that replaces what had it: `target()` takes the focus two frames on, after a
 * closing dialog has handed focus back (React Aria does that a frame later, to a trigger that may
 * be gone by then, which would leave focus on <body>).
 */
export function focusAfterDialog(target: () => HTMLElement | null): void {
  requestAnimationFrame(() => requestAnimationFrame(() => target()?.focus()))
}
