/**
 * The console side of the two-factor policy: when any API call answers 403
 * MFA_ENROLLMENT_REQUIRED (the policy was switched on, or a factor removed, during this session),
 * the person is taken to enrolment on the security page; the shell's route guard (router.tsx)
 * keeps them there until the API's MFA status says enrolment is no longer required.
 */
import type { QueryClient } from '@tanstack/react-query'
import { ApiError } from '../api/errors'

export const ENROLLMENT_PAGE = '/account/security' as const

export function isEnrollmentRequired(error: unknown): boolean {
  return error instanceof ApiError && error.reason === 'MFA_ENROLLMENT_REQUIRED'
}

// Set by main.tsx once the router exists (the query cache loads later, with the signed-in frame).
let goToEnrollment: () => void = () => undefined

export function setEnrollmentNavigation(navigate: () => void): void {
  goToEnrollment = navigate
}

/** Called for every failed query and mutation. */
export function followEnrollmentRequirement(error: unknown, queryClient: QueryClient): void {
  if (!isEnrollmentRequired(error)) return
  void queryClient.invalidateQueries({ queryKey: ['mfa-status'] }).then(goToEnrollment)
}
