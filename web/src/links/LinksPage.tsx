/**
 * The signed-in home: the person's links and their organizations' shared links. Search, filters
 * and the page cursor live in the query string (shareable; Back returns to the same view); pages
 * follow the API's cursors, never more than one page at a time.
 *
 * The list has the page's full width (tags open in a panel on demand), one compact
 * filter row — search as you type (debounced into the address), a tag picker whose choice is the
 * tag's name in the address, the scope as a segmented control — one line per link with its actions
 * in a "⋯" menu that offers only what the person may do (`can_change`), and a selection for bulk
 * actions. A refused action closes its dialog and says why above the list.
 */
import { useQuery, useQueryClient } from '@tanstack/react-query'
import { getRouteApi, Link as RouterLink, useNavigate } from '@tanstack/react-router'
import { useEffect, useMemo, useState } from 'react'
import {
  Button,
  Dialog,
  Heading,
  Menu,
  MenuItem,
  MenuTrigger,
  Modal,
  ModalOverlay,
  Popover,
  Radio,
  RadioGroup,
  Label,
} from 'react-aria-components'
import { client, unwrap } from '../api/client'
import { FirstRunChecklist } from '../admin/FirstRunChecklist'
import { useI18n } from '../i18n/i18n'
import { announce } from '../ui/announce'
import { describeError } from '../ui/describe-error'
import { Page } from '../ui/page'
import { BulkActions } from './BulkActions'
import { readableUrl } from './display-url'
import { LinkDialog } from './LinkDialog'
import {
  goLinkOf,
  linksQuery,
  organizationsQuery,
  tagsQuery,
  type Link,
  type LinksSearch,
} from './queries'
import { TagsPanel } from './TagsPanel'
import { TransferDialog } from './TransferDialog'
import { LinksSortToggle } from './LinksSortToggle'
import { useDebounced } from './use-debounced'

const route = getRouteApi('/shell/links')

/** How long typing rests before the search goes into the address (and to the API). */
const SEARCH_DELAY_MS = 300

/** The scope segments; an organization's id in `owner` (from an older address) still filters. */
const SCOPES = ['all', 'mine', 'organizations'] as const

export function LinksPage() {
  const i18n = useI18n()
  const { t } = i18n
  const search: LinksSearch = route.useSearch()
  const navigate = useNavigate()
  const queryClient = useQueryClient()
  const tags = useQuery(tagsQuery)
  const organizations = useQuery(organizationsQuery)
  const [editing, setEditing] = useState<Link | 'new' | null>(null)
  const [newSlug, setNewSlug] = useState<string | undefined>(undefined)
  const [transferring, setTransferring] = useState<Link | null>(null)
  const [deleting, setDeleting] = useState<Link | null>(null)
  const [deletePending, setDeletePending] = useState(false)
  const [failure, setFailure] = useState<string | null>(null)
  const [tagsOpen, setTagsOpen] = useState(false)
  const [selected, setSelected] = useState<ReadonlySet<string>>(new Set())
  const [q, setQ] = useState(search.q ?? '')
  const settledQ = useDebounced(q, SEARCH_DELAY_MS)

  // The tag filter names the tag (readable, shareable); the API takes its id.
  const tagItems = useMemo(() => tags.data?.items ?? [], [tags.data])
  const filterTag =
    search.tag === undefined
      ? undefined
      : tagItems.find((tag) => tag.name.toLowerCase() === search.tag!.toLowerCase())
  const unknownTag = search.tag !== undefined && tags.isSuccess && filterTag === undefined
  const links = useQuery({
    ...linksQuery({ ...search, tag: filterTag?.id }),
    enabled: search.tag === undefined || filterTag !== undefined,
  })

  useEffect(() => setQ(search.q ?? ''), [search.q])
  useEffect(() => {
    const next = settledQ.trim() === '' ? undefined : settledQ.trim()
    if (next !== search.q)
      void navigate({
        to: '/links',
        search: { ...search, q: next, cursor: undefined },
        replace: true,
      })
    // Only a settled change of the typed text searches (its one dependency); a change of the
    // address updates `q` above.
  }, [settledQ])
  // The palette's "Create link" arrives as ?new=1: open the dialog, then drop the flag from the
  // URL.
  useEffect(() => {
    if (search.new) {
      setEditing('new')
      setNewSlug(search.slug)
      void navigate({
        to: '/links',
        search: { ...search, new: undefined, slug: undefined },
        replace: true,
      })
    }
  }, [search, navigate])

  const items = useMemo(() => links.data?.items ?? [], [links.data])
  // A selection is of the links in view: another page or filter starts a new one.
  useEffect(
    () =>
      setSelected(
        (current) => new Set(items.filter((link) => current.has(link.id)).map((link) => link.id)),
      ),
    [items],
  )

  const setSearch = (changes: Partial<LinksSearch>) =>
    void navigate({
      to: '/links',
      search: { ...search, ...changes, cursor: 'cursor' in changes ? changes.cursor : undefined },
    })

  const fail = (error: unknown) => setFailure(describeError(error, [], i18n).text)

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

  const tagName = new Map(tagItems.map((tag) => [tag.id, tag.name]))
  const orgName = new Map(
    (organizations.data?.items ?? []).map((organization) => [organization.id, organization.name]),
  )
  const filtered = search.q !== undefined || search.tag !== undefined || search.owner !== undefined
  const scope =
    search.owner === 'mine' ? 'mine' : search.owner === 'organizations' ? 'organizations' : 'all'
  const selectedLinks = items.filter((link) => selected.has(link.id))
  const allSelected = items.length > 0 && selectedLinks.length === items.length

  return (
    <Page
      title={t('links.title')}
      description={t('links.description')}
      actions={
        <button type="button" className="button button-primary" onClick={() => setEditing('new')}>
          {t('links.create')}
        </button>
      }
    >
      <FirstRunChecklist />
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
        <div role="search" className="links-filters">
          <div className="field links-filter-search">
            <label htmlFor="links-q">{t('links.search')}</label>
            <input
              id="links-q"
              type="search"
              value={q}
              maxLength={200}
              onChange={(event) => setQ(event.target.value)}
              onKeyDown={(event) => {
                // Enter searches at once, without waiting for the pause.
                if (event.key === 'Enter') setSearch({ q: q.trim() === '' ? undefined : q.trim() })
              }}
            />
          </div>
          <div className="field links-filter-tag">
            <label htmlFor="links-tag">{t('links.filterTag')}</label>
            <select
              id="links-tag"
              value={filterTag?.name ?? search.tag ?? ''}
              onChange={(event) => setSearch({ tag: event.target.value || undefined })}
            >
              <option value="">{t('links.anyTag')}</option>
              {unknownTag && <option value={search.tag}>{search.tag}</option>}
              {tagItems.map((tag) => (
                <option key={tag.id} value={tag.name}>
                  {tag.name}
                </option>
              ))}
            </select>
          </div>
          <RadioGroup
            className="links-scope"
            orientation="horizontal"
            value={search.owner !== undefined && scope === 'all' ? null : scope}
            onChange={(value) => setSearch({ owner: value === 'all' ? undefined : value })}
          >
            <Label className="scope-label">{t('links.filterOwner')}</Label>
            <div className="segments">
              {SCOPES.map((value) => (
                <Radio key={value} value={value} className="segment">
                  {t(`links.scope.${value}`)}
                </Radio>
              ))}
            </div>
          </RadioGroup>
          <button
            type="button"
            className="button button-secondary links-tags-toggle"
            aria-expanded={tagsOpen}
            aria-controls="tags-panel"
            onClick={() => setTagsOpen((open) => !open)}
          >
            {tagsOpen ? t('links.hideTags') : t('links.manageTags')}
          </button>
        </div>
        {tagsOpen && <TagsPanel activeTag={filterTag?.name} />}
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
            tags={tagItems}
            organizations={organizations.data?.items ?? []}
            onDone={() => setSelected(new Set())}
            onFailed={fail}
          />
        )}
        {unknownTag || (links.isSuccess && items.length === 0) ? (
          <div className="empty-state">
            {filtered ? (
              <>
                <p>
                  {unknownTag ? t('links.unknownTag', { name: search.tag! }) : t('links.noMatch')}
                </p>
                <RouterLink to="/links" search={{}} className="button button-secondary">
                  {t('links.clearFilters')}
                </RouterLink>
              </>
            ) : (
              <>
                <p>{t('links.empty')}</p>
                <div className="row">
                  <button
                    type="button"
                    className="button button-primary"
                    onClick={() => setEditing('new')}
                  >
                    {t('links.createFirst')}
                  </button>
                  <RouterLink to="/links/import-export" className="button button-secondary">
                    {t('links.importBookmarks')}
                  </RouterLink>
                </div>
              </>
            )}
          </div>
        ) : links.isPending ? (
          <div className="skeleton" aria-hidden="true" />
        ) : (
          <table className="table links-table" data-testid="links">
            <colgroup>
              <col className="col-select" />
              <col />
              <col className="col-go" />
              <col className="col-tags" />
              <col className="col-owner" />
              <col className="col-actions" />
            </colgroup>
            <thead>
              <tr>
                <th scope="col" className="select-cell">
                  <input
                    type="checkbox"
                    aria-label={t('links.selectAll')}
                    checked={allSelected}
                    ref={(box) => {
                      if (box) box.indeterminate = selectedLinks.length > 0 && !allSelected
                    }}
                    onChange={() =>
                      setSelected(allSelected ? new Set() : new Set(items.map((link) => link.id)))
                    }
                  />
                </th>
                <th scope="col">{t('links.titleField')}</th>
                <th scope="col">{t('links.goLink')}</th>
                <th scope="col">{t('links.tags')}</th>
                <th scope="col">{t('links.owner')}</th>
                <th scope="col">
                  <span className="visually-hidden">{t('common.actions')}</span>
                </th>
              </tr>
            </thead>
            <tbody>
              {items.map((link) => {
                const shownUrl = readableUrl(link.url)
                const name = link.title ?? shownUrl
                return (
                  <tr key={link.id} aria-selected={selected.has(link.id)}>
                    <td className="select-cell">
                      <input
                        type="checkbox"
                        aria-label={t('links.selectNamed', { name })}
                        checked={selected.has(link.id)}
                        onChange={(event) => {
                          const next = new Set(selected)
                          if (event.target.checked) next.add(link.id)
                          else next.delete(link.id)
                          setSelected(next)
                        }}
                      />
                    </td>
                    <td className="link-cell">
                      <div className="link-line">
                        <a
                          href={link.url}
                          rel="noreferrer noopener"
                          target="_blank"
                          className="link-title"
                          title={name}
                          dir="auto"
                        >
                          {name}
                        </a>
                        {link.title !== null && (
                          <span className="link-url" title={shownUrl}>
                            {shownUrl.replace(/^https?:\/\//, '')}
                          </span>
                        )}
                      </div>
                    </td>
                    <td className="go-cell">
                      {/* One line: the slug gives way (cut with "…") before the click count
                          does; the count shows short ("3 clicks"), the whole sentence is in its
                          tooltip and read to screen readers. */}
                      <div className="go-line">
                        {link.slug === null ? (
                          <span className="muted go-slug">{t('links.noSlug')}</span>
                        ) : (
                          <a
                            className="mono go-slug"
                            href={`/go/${link.slug}`}
                            title={`go/${link.slug}`}
                            aria-label={t('links.openGoLink', { slug: link.slug })}
                          >
                            go/{link.slug}
                          </a>
                        )}
                        {!link.forwarding_enabled && (
                          <span className="muted go-off" title={t('links.notForwarding')}>
                            · {t('links.notForwarding')}
                          </span>
                        )}
                        <span
                          className="muted go-clicks"
                          title={t('golinks.clicks30d', { count: link.clicks_30d })}
                        >
                          <span aria-hidden="true">
                            · {t('golinks.clicksShort', { count: link.clicks_30d })}
                          </span>
                          <span className="visually-hidden">
                            {t('golinks.clicks30d', { count: link.clicks_30d })}
                          </span>
                        </span>
                      </div>
                    </td>
                    <td className="tags-cell">
                      {link.tag_ids.length > 0 && (
                        <ul className="tag-chips">
                          {link.tag_ids.map((id) => (
                            <li key={id} title={tagName.get(id)}>
                              {tagName.get(id) ?? '…'}
                            </li>
                          ))}
                        </ul>
                      )}
                    </td>
                    <td className="owner-cell">
                      {link.organization_id === null
                        ? t('links.onlyMe')
                        : (orgName.get(link.organization_id) ?? t('links.anOrganization'))}
                    </td>
                    <td className="actions">
                      {(link.slug !== null || link.can_change) && (
                        <MenuTrigger>
                          <Button
                            className="button button-ghost icon-button"
                            aria-label={t('links.actionsFor', { name })}
                          >
                            <span aria-hidden="true">⋯</span>
                          </Button>
                          <Popover className="popover" placement="bottom end">
                            <Menu
                              className="menu"
                              onAction={(key) => {
                                if (key === 'copy' && link.slug !== null) void copyGoLink(link.slug)
                                else if (key === 'edit') setEditing(link)
                                else if (key === 'transfer') setTransferring(link)
                                else if (key === 'delete') setDeleting(link)
                              }}
                            >
                              {link.slug !== null && (
                                <MenuItem className="menu-item" id="copy">
                                  {t('links.copyGoLink', { slug: link.slug })}
                                </MenuItem>
                              )}
                              {link.can_change && (
                                <MenuItem className="menu-item" id="edit">
                                  {t('links.edit')}
                                </MenuItem>
                              )}
                              {link.can_change && (
                                <MenuItem className="menu-item" id="transfer">
                                  {t('golinks.transfer')}
                                </MenuItem>
                              )}
                              {link.can_change && (
                                <MenuItem className="menu-item menu-item-danger" id="delete">
                                  {t('links.delete')}
                                </MenuItem>
                              )}
                            </Menu>
                          </Popover>
                        </MenuTrigger>
                      )}
                    </td>
                  </tr>
                )
              })}
            </tbody>
          </table>
        )}
        <div className="pager">
          <LinksSortToggle search={search} />
          <span className="muted" aria-live="polite">
            {links.isSuccess && items.length > 0 ? t('links.shown', { count: items.length }) : ''}
          </span>
          {search.cursor !== undefined && (
            <RouterLink
              to="/links"
              search={{ ...search, cursor: undefined }}
              className="button button-secondary"
            >
              {t('links.firstPage')}
            </RouterLink>
          )}
          {links.data?.next_cursor != null && (
            <RouterLink
              to="/links"
              search={{ ...search, cursor: links.data.next_cursor }}
              className="button button-secondary"
            >
              {t('links.nextPage')}
            </RouterLink>
          )}
        </div>
      </section>
      {editing !== null && (
        <LinkDialog
          link={editing === 'new' ? null : editing}
          initialSlug={editing === 'new' ? newSlug : undefined}
          onClose={() => {
            setEditing(null)
            setNewSlug(undefined)
          }}
        />
      )}
      {transferring !== null && (
        <TransferDialog link={transferring} onClose={() => setTransferring(null)} />
      )}
      {deleting !== null && (
        <ModalOverlay
          className="modal-overlay"
          isDismissable
          isOpen
          onOpenChange={(open) => !open && setDeleting(null)}
        >
          <Modal className="modal">
            <Dialog className="dialog" role="alertdialog">
              <Heading slot="title">
                {t('links.deleteTitle', { name: deleting.title ?? readableUrl(deleting.url) })}
              </Heading>
              <div className="dialog-body">
                <p>
                  {deleting.slug === null
                    ? t('links.deleteText')
                    : t('links.deleteTextSlug', { slug: deleting.slug })}
                </p>
              </div>
              <div className="dialog-actions">
                <button
                  type="button"
                  className="button button-secondary"
                  onClick={() => setDeleting(null)}
                >
                  {t('common.cancel')}
                </button>
                <button
                  type="button"
                  className="button button-danger"
                  aria-busy={deletePending || undefined}
                  onClick={() => !deletePending && void remove(deleting)}
                >
                  {t('links.deleteConfirm')}
                </button>
              </div>
            </Dialog>
          </Modal>
        </ModalOverlay>
      )}
    </Page>
  )
}
