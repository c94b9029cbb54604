/**
 * The signed-in home: the person's links and their organizations' shared links, the list at the
 * page's full width (tags open in a panel on demand) under one filter row, one line per link, a
 * selection for bulk actions, and pages that follow the API's cursors. A refused action closes its
 * dialog and says why above the list. The view (filters in the address) is `useLinksView`.
 */
import { useQueryClient } from '@tanstack/react-query'
import { Link as RouterLink } from '@tanstack/react-router'
import { useState } from 'react'
import { client, unwrap } from '../api/client'
import { FirstRunChecklist } from '../admin/FirstRunChecklist'
import { PendingInvitationsNotice } from '../orgs/PendingInvitations'
import { useI18n } from '../i18n/i18n'
import { announce } from '../ui/announce'
import { describeError } from '../ui/describe-error'
import { Page } from '../ui/page'
import { BulkActions } from './BulkActions'
import { setPinned } from './collection-queries'
import { AddToCollectionDialog, CollectionsPanel } from './CollectionsPanel'
import { DeleteLinkDialog } from './DeleteLinkDialog'
import { readableUrl } from './display-url'
import { LinkDialog } from './LinkDialog'
import type { LinkAction } from './LinkRow'
import { LinksFilterBar } from './LinksFilterBar'
import { LinksSortToggle } from './LinksSortToggle'
import { LinksTable } from './LinksTable'
import { goLinkOf, type Link } from './queries'
import { TagsPanel } from './TagsPanel'
import { TransferDialog } from './TransferDialog'
import { TransferOffers } from './TransferOffers'
import { useLinksView, type LinksView } from './use-links-view'

export function LinksPage() {
  const i18n = useI18n()
  const { t } = i18n
  const queryClient = useQueryClient()
  const [editing, setEditing] = useState<{ link: Link | null; slug?: string } | null>(null)
  const [transferring, setTransferring] = useState<Link | null>(null)
  const [deleting, setDeleting] = useState<Link | null>(null)
  const [deletePending, setDeletePending] = useState(false)
  const [failure, setFailure] = useState<string | null>(null)
  const [tagsOpen, setTagsOpen] = useState(false)
  const [collecting, setCollecting] = useState<Link | null>(null)
  const fail = (error: unknown) => setFailure(describeError(error, [], i18n).text)
  const view = useLinksView({
    onCreate: (slug) => setEditing({ link: null, slug }),
    onEdit: (id) =>
      void unwrap(client.GET('/api/links/{id}', { params: { path: { id } } })).then(
        (link) => setEditing({ link }),
        fail,
      ),
  })
  const { search, items, links, selection } = view
  // Open while a collection filters the list, so the filter is seen and can be undone.
  const [collectionsOpen, setCollectionsOpen] = useState(search.collection !== undefined)

  const remove = async (link: Link) => {
    setDeletePending(true)
    try {
      await unwrap(client.DELETE('/api/links/{id}', { params: { path: { id: link.id } } }))
      announce(t('links.deleted', { name: link.title ?? readableUrl(link.url) }))
      await queryClient.invalidateQueries({ queryKey: ['links'] })
      await queryClient.invalidateQueries({ queryKey: ['tags'] })
    } catch (error) {
      fail(error)
    } finally {
      setDeletePending(false)
      setDeleting(null)
    }
  }

  const copyGoLink = async (slug: string) => {
    try {
      await navigator.clipboard.writeText(goLinkOf(slug))
      announce(t('links.copiedGoLink', { slug }))
    } catch {
      announce(t('common.copyFailed'))
    }
  }

  const act = (link: Link, action: LinkAction) => {
    if (action === 'copy' && link.slug !== null) void copyGoLink(link.slug)
    else if (action === 'edit') setEditing({ link })
    else if (action === 'transfer') setTransferring(link)
    else if (action === 'delete') setDeleting(link)
    else if (action === 'collect') setCollecting(link)
    else if (action === 'pin') void togglePin(link)
  }

  const togglePin = async (link: Link) => {
    const name = link.title ?? readableUrl(link.url)
    try {
      await setPinned(link.id, !link.pinned)
      announce(t(link.pinned ? 'pins.unpinned' : 'pins.pinned', { name }))
      await queryClient.invalidateQueries({ queryKey: ['links'] })
      await queryClient.invalidateQueries({ queryKey: ['palette-links'] })
    } catch (error) {
      fail(error)
    }
  }

  const selectedLinks = items.filter((link) => selection.selected.has(link.id))
  const createNew = () => setEditing({ link: null })

  return (
    <Page
      title={t('links.title')}
      description={t('links.description')}
      actions={
        <button type="button" className="button button-primary" onClick={createNew}>
          {t('links.create')}
        </button>
      }
    >
      <FirstRunChecklist />
      <PendingInvitationsNotice />
      <TransferOffers onFailed={fail} />
      <nav className="subnav" aria-label={t('links.more')}>
        <RouterLink to="/links/import-export">{t('links.importExportNav')}</RouterLink>
        <RouterLink to="/links/preferences">{t('links.preferencesNav')}</RouterLink>
        <RouterLink to="/links/go-keyword">{t('links.keywordNav')}</RouterLink>
        <RouterLink to="/links/deleted">{t('golinks.deletedNav')}</RouterLink>
      </nav>
      <section className="links-main" aria-labelledby="links-heading">
        <h2 id="links-heading" className="visually-hidden">
          {t('links.listHeading')}
        </h2>
        <LinksFilterBar
          view={view}
          tagsOpen={tagsOpen}
          onToggleTags={() => setTagsOpen((open) => !open)}
          collectionsOpen={collectionsOpen}
          onToggleCollections={() => setCollectionsOpen((open) => !open)}
        />
        {collectionsOpen && <CollectionsPanel activeId={search.collection} />}
        {tagsOpen && <TagsPanel activeTag={view.filterTag?.name} />}
        {failure !== null && (
          <div className="form-error links-failure" role="alert">
            <span>{failure}</span>
            <button
              type="button"
              className="button button-ghost button-small"
              onClick={() => setFailure(null)}
            >
              {t('links.dismiss')}
            </button>
          </div>
        )}
        {selectedLinks.length > 0 && (
          <BulkActions
            selected={selectedLinks}
            tags={view.tags}
            organizations={view.organizations}
            onDone={selection.clear}
            onFailed={fail}
          />
        )}
        {view.unknownTag || (links.isSuccess && items.length === 0) ? (
          <EmptyLinks view={view} onCreate={createNew} />
        ) : links.isPending ? (
          <div className="skeleton" aria-hidden="true" />
        ) : (
          <LinksTable view={view} onAction={act} />
        )}
        <div className="pager">
          {/* Nothing to order on an empty page. */}
          {items.length > 0 && <LinksSortToggle search={search} />}
          <span className="muted" aria-live="polite" data-testid="links-position">
            {links.isSuccess && items.length > 0 ? position(view, t) : ''}
          </span>
          {search.cursor !== undefined && (
            <RouterLink
              to="/links"
              search={{ ...search, cursor: undefined, from: undefined }}
              className="button button-secondary"
            >
              {t('links.firstPage')}
            </RouterLink>
          )}
          {links.data?.next_cursor != null && (
            <RouterLink
              to="/links"
              search={{
                ...search,
                cursor: links.data.next_cursor,
                from: view.start === undefined ? undefined : view.start + items.length,
              }}
              className="button button-secondary"
            >
              {t('links.nextPage')}
            </RouterLink>
          )}
        </div>
      </section>
      {editing !== null && (
        <LinkDialog
          link={editing.link}
          initialSlug={editing.link === null ? editing.slug : undefined}
          onClose={() => setEditing(null)}
        />
      )}
      {collecting !== null && (
        <AddToCollectionDialog link={collecting} onClose={() => setCollecting(null)} />
      )}
      {transferring !== null && (
        <TransferDialog link={transferring} onClose={() => setTransferring(null)} />
      )}
      {deleting !== null && (
        <DeleteLinkDialog
          link={deleting}
          pending={deletePending}
          onConfirm={() => void remove(deleting)}
          onClose={() => setDeleting(null)}
        />
      )}
    </Page>
  )
}

/**
 * Where the page is: "1–25 of 228 links" (or "of 1,000+ links": the API counts no further), or the
 * total alone when the page's place is not known (an address from before), or the count on the
 * page until the total arrives.
 */
function position(view: LinksView, t: ReturnType<typeof useI18n>['t']): string {
  const shown = view.items.length
  if (view.total === undefined) return t('links.shown', { count: shown })
  const count = { count: view.total }
  if (view.start === undefined) return t(view.capped ? 'links.totalMore' : 'links.total', count)
  return t(view.capped ? 'links.rangeMore' : 'links.range', {
    ...count,
    start: view.start,
    end: view.start + shown - 1,
  })
}

/** No link in view: with a filter, a way to clear it; without, the first actions. */
function EmptyLinks({ view, onCreate }: { view: LinksView; onCreate: () => void }) {
  const { t } = useI18n()
  return (
    <div className="empty-state">
      {view.filtered ? (
        <>
          <p>
            {view.unknownTag
              ? t('links.unknownTag', { name: view.search.tag! })
              : t('links.noMatch')}
          </p>
          <RouterLink to="/links" search={{}} className="button button-secondary">
            {t('links.clearFilters')}
          </RouterLink>
        </>
      ) : (
        <>
          <p>{t('links.empty')}</p>
          <div className="row">
            <button type="button" className="button button-primary" onClick={onCreate}>
              {t('links.createFirst')}
            </button>
            <RouterLink to="/links/import-export" className="button button-secondary">
              {t('links.importBookmarks')}
            </RouterLink>
          </div>
        </>
      )}
    </div>
  )
}
