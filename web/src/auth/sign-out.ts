/** What every way of leaving the signed-in console ends with. */
import type { QueryClient } from '@tanstack/react-query'

/**
 * Goes to a signed-out page (`go`: the navigation, awaited), then empties the query cache. In the
 * other order the signed-in frame, still shown while the navigation runs, asks for its queries
 * again as a visitor, and their 401 sends the person to sign in once more — with the page they
 * were leaving as the address to return to.
 */
export async function leaveSignedIn(queryClient: QueryClient, go: () => Promise<void>) {
  await go()
  queryClient.clear()
}
