/**
 * The user's theme: `light`, `dark`, or `auto` (follow the system, in CSS through
 * prefers-color-scheme). Stored on the account, applied to <html data-theme>.
 */
export type Theme = 'auto' | 'light' | 'dark'

export function applyTheme(theme: Theme): void {
  document.documentElement.dataset.theme = theme
}
