/**
 * The Links page's one filter row: search as you type (Enter searches at once), the tag by name
 * (a combobox that finds it as one types), the scope as a segmented control, and the toggles of
 * the collections and tags panels.
 */
import { Label, Radio, RadioGroup } from 'react-aria-components'
import { useI18n } from '../i18n/i18n'
import { TagComboBox } from './TagComboBox'
import type { LinksView } from './use-links-view'

const ANY_TAG = '\u0000any'

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
      <TagFilter view={view} />
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

/** The tag filter: the tag combobox, with "Any tag" (ends the filter) above the tags. */
function TagFilter({ view }: { view: LinksView }) {
  const { t } = useI18n()
  const { search, setSearch, tags } = view
  const leading = [
    { id: ANY_TAG, name: t('links.anyTag'), clears: true },
    ...(view.unknownTag ? [{ id: search.tag!, name: search.tag! }] : []),
  ]
  return (
    <TagComboBox
      className="field links-filter-tag"
      label={t('links.filterTag')}
      tags={tags}
      chosen={view.filterTag}
      shownName={view.filterTag?.name ?? search.tag ?? ''}
      leading={leading}
      placeholder={t('links.anyTag')}
      emptyText={t('links.tagFilterNone')}
      onChoose={(option) => setSearch({ tag: option.clears ? undefined : option.name })}
    />
  )
}
