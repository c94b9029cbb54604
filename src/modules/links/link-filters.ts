/** The filters of the Links list (GET /api/links and its count), as its statements read them. */
export interface LinkFilters {
  tagId?: string
  q?: string
  organizationId?: string
  /**
   * `personal`: the user's own links only; `organization`: only links shared with an organization.
   */
  owner?: 'personal' | 'organization'
  /** An API token's organization boundary — personal links and these organizations' only. */
  reachable?: ReadonlySet<string>
  /** Most clicked in the last 30 days first, then the newest id, instead of newest first. */
  mostClicked?: true
  /** `shared`: only links shared with one of the user's teams (directly or by a collection). */
  scope?: 'shared'
  /** Only the links the user pinned (true), or only the others (false). */
  pinned?: boolean
  /** Only this collection's links (when the user sees it), in its order instead of newest first. */
  collectionId?: string
}
