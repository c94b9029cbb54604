/**
 * The Links page's one filter row: search as you type (Enter searches at once), the tag by name,
 * the scope as a segmented control, and the toggles of the collections and tags panels.
 */
import { Label, Radio, RadioGroup } from 'react-aria-components'
import { useI18n } from '../i18n/i18n'
import type { LinksView } from './use-links-view'

/** The scope segments; an organization's id in `owner` (from an older address) still filters. */
const SCOPES = ['all', 'mine', 'organizations', 'shared'] as const

export function LinksFilterBar({
  view,
  tagsOpen,
  onToggleTags,
  collectionsOpen,
  onToggleCollections,
}: {
  view: LinksView
  tagsOpen: boolean
  onToggleTags: () => void
  collectionsOpen: boolean
  onToggleCollections: () => void
}) {
  const { t } = useI18n()
  const { search, setSearch, q, setQ, scope } = view
  return (
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
            if (event.key === 'Enter') setSearch({ q: q.trim() === '' ? undefined : q.trim() })
          }}
        />
      </div>
      <div className="field links-filter-tag">
        <label htmlFor="links-tag">{t('links.filterTag')}</label>
        <select
          id="links-tag"
          value={view.filterTag?.name ?? search.tag ?? ''}
          onChange={(event) => setSearch({ tag: event.target.value || undefined })}
        >
          <option value="">{t('links.anyTag')}</option>
          {view.unknownTag && <option value={search.tag}>{search.tag}</option>}
          {view.tags.map((tag) => (
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
      <div className="links-toggles">
        <button
          type="button"
          className="button button-secondary links-tags-toggle"
          aria-expanded={collectionsOpen}
          aria-controls="collections-panel"
          onClick={onToggleCollections}
        >
          {collectionsOpen ? t('collections.hide') : t('collections.show')}
        </button>
        <button
          type="button"
          className="button button-secondary links-tags-toggle"
          aria-expanded={tagsOpen}
          aria-controls="tags-panel"
          onClick={onToggleTags}
        >
          {tagsOpen ? t('links.hideTags') : t('links.manageTags')}
        </button>
      </div>
    </div>
  )
}
