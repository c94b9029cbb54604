/**
 * Assertions the console's browser tests share: the page's one `h1`, and axe-core with no serious
 * or critical violation in both themes. (Not in harness.ts: that file also serves
 * `npm run screenshots`, which runs outside Vitest.)
 */
import type { Page } from 'playwright-core'
import { expect } from 'vitest'
import { axeViolations, type AxeViolation } from './harness.ts'

/** Waits until the page's heading says `text` (pages load lazily, and focus follows the heading). */
export async function expectHeading(page: Page, text: string, timeout = 15_000): Promise<void> {
  await expect.poll(async () => (await page.locator('h1').allTextContents()).join(' | ').trim(), { timeout }).toBe(text)
}

/**
 * axe in the light and then the dark theme; `record` sees every violation of each pass (a test may
 * report what it checked). Leaves the page in the light theme.
 */
export async function checkAccessibility(page: Page, name: string, record?: (pass: string, violations: AxeViolation[]) => void): Promise<void> {
  for (const colorScheme of ['light', 'dark'] as const) {
    await page.emulateMedia({ colorScheme })
    const violations = await axeViolations(page)
    record?.(`${name} (${colorScheme})`, violations)
    const grave = violations.filter((v) => v.impact === 'serious' || v.impact === 'critical')
    expect(
      grave.map((v) => `${v.impact} ${v.id}: ${v.help} at ${v.nodes.map((n) => n.target.join(' ')).join(', ')}`),
      `${name}, ${colorScheme}`,
    ).toEqual([])
  }
  await page.emulateMedia({ colorScheme: 'light' })
}
