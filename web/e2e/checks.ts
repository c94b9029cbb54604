/**
 * Assertions the console's browser tests share: the page's one `h1`, and axe-core with no serious
 * or critical violation in both themes. (Not in harness.ts: that file also serves
 * `npm run screenshots`, which runs outside Vitest.)
 */
import type { Locator, Page } from 'playwright-core'
import { expect } from 'vitest'
import { axeViolations, type AxeViolation } from './harness.ts'

/**
 * Waits until the page's heading says `text` (pages load lazily, and focus follows the heading).
 * When it never does, the failure quotes what the page showed instead (a problem page's reason
 * tells why it failed) and the browser's errors since the page was opened (a problem page writes
 * a fault of the console's own there, and Chromium each request that failed).
 */
export async function expectHeading(page: Page, text: string, timeout = 15_000): Promise<void> {
  try {
    await expect
      .poll(async () => (await page.locator('h1').allTextContents()).join(' | ').trim(), {
        timeout,
      })
      .toBe(text)
  } catch (error) {
    const shown = await page
      .locator('body')
      .innerText({ timeout: 1000 })
      .catch(() => '(nothing readable)')
    const message = error instanceof Error ? error.message : String(error)
    throw new Error(
      `${message}\nThe page at ${page.url()} showed:\n${shown.slice(0, 600)}` +
        `\nThe browser's errors:\n${(await browserErrors(page)).slice(0, 1200)}`,
      { cause: error },
    )
  }
}

/** The page's console errors and uncaught exceptions since its last navigation, one a line. */
async function browserErrors(page: Page): Promise<string> {
  const messages = await page.consoleMessages({ filter: 'since-navigation' }).catch(() => [])
  const thrown = await page.pageErrors({ filter: 'since-navigation' }).catch(() => [])
  const lines = [
    ...messages.filter((m) => m.type() === 'error').map((m) => m.text()),
    ...thrown.map((e) => `uncaught: ${e.stack ?? e.message}`),
  ]
  return lines.length === 0 ? '(none)' : lines.join('\n')
}

/**
 * axe in the light and then the dark theme; `record` sees every violation of each pass (a test may
 * report what it checked). Leaves the page in the light theme.
 */
export async function checkAccessibility(
  page: Page,
  name: string,
  record?: (pass: string, violations: AxeViolation[]) => void,
): Promise<void> {
  for (const colorScheme of ['light', 'dark'] as const) {
    await page.emulateMedia({ colorScheme })
    const violations = await axeViolations(page)
    record?.(`${name} (${colorScheme})`, violations)
    const grave = violations.filter((v) => v.impact === 'serious' || v.impact === 'critical')
    expect(
      grave.map(
        (v) =>
          `${v.impact} ${v.id}: ${v.help} at ${v.nodes.map((n) => n.target.join(' ')).join(', ')}`,
      ),
      `${name}, ${colorScheme}`,
    ).toEqual([])
  }
  await page.emulateMedia({ colorScheme: 'light' })
}

/**
 * A sensitive change asks for the password only when the session's re-authentication
 * window (10 minutes from the sign-in, on the server's clock) is closed. Where a test runs the
 * built server, which cannot move its clock, a long run may pass the window: this answers the
 * dialog if it appears, then waits for what the change shows. (web/e2e/security.e2e.test.ts tests
 * the window itself, with the clock moved.)
 */
export async function confirmIfAsked(page: Page, shown: Locator, password: string): Promise<void> {
  const dialog = page.getByRole('dialog', { name: 'Confirm it is you' })
  await Promise.race([shown.waitFor(), dialog.waitFor()])
  if (await dialog.isVisible()) {
    await dialog.getByLabel('Current password').fill(password)
    await dialog.getByRole('button', { name: 'Confirm and continue' }).click()
  }
  await shown.waitFor()
}
