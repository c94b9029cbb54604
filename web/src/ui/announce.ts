/**
 * A polite live region for successes that show nowhere else (the region lives in index.html's
 * body).
 */
export function announce(message: string): void {
  let region = document.getElementById('announcer')
  if (region === null) {
    region = document.createElement('div')
    region.id = 'announcer'
    region.className = 'visually-hidden'
    region.setAttribute('role', 'status')
    region.setAttribute('aria-live', 'polite')
    document.body.append(region)
  }
  region.textContent = ''
  const target = region
  window.setTimeout(() => (target.textContent = message), 50)
}
