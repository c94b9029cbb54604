import type { Organization } from './queries'

/** "Only you" and each of the person's organizations: who a new or imported link belongs to. */
export function ownerOptions(
  onlyMe: string,
  organizations: readonly Organization[] | undefined,
): { value: string; label: string }[] {
  return [
    { value: '', label: onlyMe },
    ...(organizations ?? []).map((organization) => ({
      value: organization.id,
      label: organization.name,
    })),
  ]
}
