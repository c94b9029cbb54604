/**
 * The console side of the two-factor policy (issue 14): when any API call answers 403
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

/** Called for every failed query and mutation. */
export function followEnrollmentRequirement(error: unknown, queryClient: QueryClient, goToEnrollment: () => void): void {
  if (!isEnrollmentRequired(error)) return
  void queryClient.invalidateQueries({ queryKey: ['mfa-status'] }).then(goToEnrollment)
}
