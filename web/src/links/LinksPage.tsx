/**
 * The signed-in home: the person's links and their organizations' shared links. Search, filters
 * and the page cursor live in the query string (shareable; Back returns to the same view); pages
 * follow the API's cursors, never more than one page at a time.
 */
import { useQuery, useQueryClient } from '@tanstack/react-query'
import { getRouteApi, Link as RouterLink, useNavigate } from '@tanstack/react-router'
import { useEffect, useState } from 'react'
import { client, unwrap } from '../api/client'
import { FirstRunChecklist } from '../admin/FirstRunChecklist'
import { useI18n } from '../i18n/i18n'
import { announce } from '../ui/announce'
import { ConfirmDialog } from '../ui/dialog'
import { Page } from '../ui/page'
import { TableHead } from '../ui/table-head'
import { CopyButton } from '../ui/secret'
import { LinkDialog } from './LinkDialog'
import { goLinkOf, linksQuery, organizationsQuery, tagsQuery, type Link, type LinksSearch } from './queries'
import { TagsPanel } from './TagsPanel'
import { TransferDialog } from './TransferDialog'
import { LinksSortToggle } from './LinksSortToggle'

const route = getRouteApi('/shell/links')

export function LinksPage() {
  const { t } = useI18n()
  const search: LinksSearch = route.useSearch()
  const navigate = useNavigate()
  const queryClient = useQueryClient()
  const links = useQuery(linksQuery(search))
  const tags = useQuery(tagsQuery)
  const organizations = useQuery(organizationsQuery)
  const [editing, setEditing] = useState<Link | 'new' | null>(null)
  const [newSlug, setNewSlug] = useState<string | undefined>(undefined)
  const [transferring, setTransferring] = useState<Link | null>(null)
  const [q, setQ] = useState(search.q ?? '')

  useEffect(() => setQ(search.q ?? ''), [search.q])
  // The palette's "Create link" arrives as ?new=1: open the dialog, then drop the flag from the URL.
  useEffect(() => {
    if (search.new) {
      setEditing('new')
      setNewSlug(search.slug)
      void navigate({ to: '/links', search: { ...search, new: undefined, slug: undefined }, replace: true })
    }
  }, [search, navigate])

  const setSearch = (changes: Partial<LinksSearch>) =>
    void navigate({ to: '/links', search: { ...search, ...changes, cursor: 'cursor' in changes ? changes.cursor : undefined } })

  const remove = async (link: Link) => {
    await unwrap(client.DELETE('/api/links/{id}', { params: { path: { id: link.id } } }))
    announce(t('links.deleted', { name: link.title ?? link.url }))
    await queryClient.invalidateQueries({ queryKey: ['links'] })
    await queryClient.invalidateQueries({ queryKey: ['tags'] })
  }

  const tagName = new Map((tags.data?.items ?? []).map((tag) => [tag.id, tag.name]))
  const orgName = new Map((organizations.data?.items ?? []).map((organization) => [organization.id, organization.name]))
  const items = links.data?.items ?? []
  const filtered = search.q !== undefined || search.tag !== undefined || search.owner !== undefined
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
      <div className="links-layout">
        <section className="section links-main" aria-labelledby="links-heading">
          <h2 id="links-heading" className="visually-hidden">
            {t('links.listHeading')}
          </h2>
          <form
            role="search"
            className="filters"
            onSubmit={(event) => {
              event.preventDefault()
              setSearch({ q: q.trim() === '' ? undefined : q.trim() })
            }}
          >
            <div className="field filter-search">
              <label htmlFor="links-q">{t('links.search')}</label>
              <input id="links-q" type="search" value={q} maxLength={200} onChange={(event) => setQ(event.target.value)} />
            </div>
            <button type="submit" className="button button-secondary">
              {t('links.searchButton')}
            </button>
            <div className="field">
              <label htmlFor="links-tag">{t('links.filterTag')}</label>
              <select id="links-tag" value={search.tag ?? ''} onChange={(event) => setSearch({ tag: event.target.value || undefined })}>
                <option value="">{t('links.anyTag')}</option>
                {(tags.data?.items ?? []).map((tag) => (
                  <option key={tag.id} value={tag.id}>
                    {tag.name}
                  </option>
                ))}
              </select>
            </div>
            <div className="field">
              <label htmlFor="links-owner">{t('links.filterOwner')}</label>
              <select id="links-owner" value={search.owner ?? ''} onChange={(event) => setSearch({ owner: event.target.value || undefined })}>
                <option value="">{t('links.ownerAll')}</option>
                <option value="mine">{t('links.ownerMine')}</option>
                <option value="organizations">{t('links.ownerOrganizations')}</option>
                {(organizations.data?.items ?? []).map((organization) => (
                  <option key={organization.id} value={organization.id}>
                    {organization.name}
                  </option>
                ))}
              </select>
            </div>
          </form>
          {links.isSuccess && items.length === 0 ? (
            <div className="empty-state">
              {filtered ? (
                <>
                  <p>{t('links.noMatch')}</p>
                  <RouterLink to="/links" search={{}} className="button button-secondary">
                    {t('links.clearFilters')}
                  </RouterLink>
                </>
              ) : (
                <>
                  <p>{t('links.empty')}</p>
                  <div className="row">
                    <button type="button" className="button button-primary" onClick={() => setEditing('new')}>
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
              <TableHead columns={[t('links.titleField'), t('links.goLink'), t('links.tags'), t('links.owner')]} actions />
              <tbody>
                {items.map((link) => {
                  const name = link.title ?? link.url
                  return (
                    <tr key={link.id}>
                      <td className="link-cell">
                        <a href={link.url} rel="noreferrer noopener" target="_blank" className="link-title">
                          {name}
                        </a>
                        <span className="link-url">{link.url}</span>
                      </td>
                      <td>
                        {link.slug === null ? (
                          <span className="muted">{t('links.noSlug')}</span>
                        ) : (
                          <a className="mono" href={`/go/${link.slug}`} aria-label={t('links.openGoLink', { slug: link.slug })}>
                            go/{link.slug}
                          </a>
                        )}
                        {!link.forwarding_enabled && <span className="muted"> · {t('links.notForwarding')}</span>}
                        <span className="muted"> · {t('golinks.clicks30d', { count: link.clicks_30d })}</span>
                      </td>
                      <td>
                        <ul className="tag-chips">
                          {link.tag_ids.map((id) => (
                            <li key={id}>{tagName.get(id) ?? '…'}</li>
                          ))}
                        </ul>
                      </td>
                      <td>{link.organization_id === null ? t('links.onlyMe') : (orgName.get(link.organization_id) ?? t('links.anOrganization'))}</td>
                      <td className="actions">
                        <div className="row-actions">
                          {link.slug !== null && (
                            <CopyButton
                              text={goLinkOf(link.slug)}
                              label={t('links.copy')}
                              accessibleLabel={t('links.copyGoLink', { slug: link.slug })}
                            />
                          )}
                          <button
                            type="button"
                            className="button button-secondary"
                            aria-label={t('links.editNamed', { name })}
                            onClick={() => setEditing(link)}
                          >
                            {t('links.edit')}
                          </button>
                          <button
                            type="button"
                            className="button button-secondary"
                            aria-label={t('golinks.transferNamed', { name })}
                            onClick={() => setTransferring(link)}
                          >
                            {t('golinks.transfer')}
                          </button>
                          <ConfirmDialog
                            trigger={t('links.delete')}
                            triggerLabel={t('links.deleteNamed', { name })}
                            title={t('links.deleteTitle', { name })}
                            confirmLabel={t('links.deleteConfirm')}
                            danger
                            onConfirm={() => remove(link)}
                          >
                            <p>{link.slug === null ? t('links.deleteText') : t('links.deleteTextSlug', { slug: link.slug })}</p>
                          </ConfirmDialog>
                        </div>
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
              <RouterLink to="/links" search={{ ...search, cursor: undefined }} className="button button-secondary">
                {t('links.firstPage')}
              </RouterLink>
            )}
            {links.data?.next_cursor != null && (
              <RouterLink to="/links" search={{ ...search, cursor: links.data.next_cursor }} className="button button-secondary">
                {t('links.nextPage')}
              </RouterLink>
            )}
          </div>
        </section>
        <TagsPanel activeTag={search.tag} />
      </div>
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
      {transferring !== null && <TransferDialog link={transferring} onClose={() => setTransferring(null)} />}
    </Page>
  )
}
