import { expect } from 'vitest'

/** The response is an error envelope with this status and reason. */
export function expectReason(
  response: { statusCode: number; json(): { reason: string } },
  status: number,
  reason: string,
): void {
  expect(response.statusCode).toBe(status)
  expect(response.json().reason).toBe(reason)
}
