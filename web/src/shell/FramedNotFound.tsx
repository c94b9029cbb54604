/**
 * The not-found page inside the console's frame, for a signed-in person. A session that has ended
 * (the cookie outlived it) gets the plain page, not a detour to sign in.
 */
import { useQuery } from '@tanstack/react-query'
import { meQuery } from '../api/queries'
import { QueryRoot } from '../api/query-root'
import { AppShell } from './AppShell'
import { NotFoundContent } from './NotFoundContent'

function SignedInOrNot() {
  const me = useQuery({ ...meQuery, retry: false })
  if (me.isPending) return null
  if (me.isError) return <NotFoundContent />
  return (
    <AppShell>
      <NotFoundContent framed />
    </AppShell>
  )
}

export function FramedNotFound() {
  return (
    <QueryRoot>
      <SignedInOrNot />
    </QueryRoot>
  )
}
