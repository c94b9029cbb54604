/**
 * The Links page's one filter row: search as you type (Enter searches at once), the tag by name
 * (a combobox that finds it as one types), the scope as a segmented control, and the toggles of
 * the collections and tags panels.
 */
import { useQuery } from '@tanstack/react-query'
import { useEffect, useMemo, useState } from 'react'
import {
  ComboBox,
  Input,
  Label,
  ListBox,
  ListBoxItem,
  Popover,
  Radio,
  RadioGroup,
} from 'react-aria-components'
import { useI18n } from '../i18n/i18n'
import { tagSearchQuery } from './queries'
import { useDebounced } from './use-debounced'
import type { LinksView } from './use-links-view'

/** The most tags the filter lists at once: typing narrows them (hundreds stay quick). */
const SHOWN_TAGS = 100
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

/**
 * The tag filter: opens with the first tags (up to SHOWN_TAGS), and as one types asks the API for
 * the names containing the text (after a pause), so any of thousands of tags is found; "Any tag"
 * ends the filter. The active tag stays chosen, and leaving without choosing shows it again.
 */
function TagFilter({ view }: { view: LinksView }) {
  const { t } = useI18n()
  const { search, setSearch, tags } = view
  const active = view.filterTag?.name ?? search.tag ?? ''
  const [text, setText] = useState(active)
  useEffect(() => setText(active), [active])
  const needle = text === active ? '' : text.trim()
  const settled = useDebounced(needle)
  const found = useQuery({ ...tagSearchQuery(settled), enabled: settled !== '' })
  const options = useMemo(() => {
    const source = needle === '' ? tags : (found.data?.items ?? [])
    const lower = needle.toLowerCase()
    const matches = source
      // Until the search answers, the tags at hand that contain the text.
      .filter((tag) => tag.name.toLowerCase().includes(lower))
      .slice(0, SHOWN_TAGS)
      .map((tag) => ({ id: tag.id, name: tag.name }))
    const chosen = view.filterTag
    return [
      ...(needle === '' ? [{ id: ANY_TAG, name: t('links.anyTag') }] : []),
      ...(view.unknownTag && needle === '' ? [{ id: search.tag!, name: search.tag! }] : []),
      ...(chosen && needle === '' && !matches.some((tag) => tag.id === chosen.id)
        ? [{ id: chosen.id, name: chosen.name }]
        : []),
      ...matches,
    ]
  }, [tags, found.data, needle, view.filterTag, view.unknownTag, search.tag, t])
  return (
    <ComboBox
      className="field links-filter-tag"
      inputValue={text}
      onInputChange={setText}
      selectedKey={view.filterTag?.id ?? null}
      items={options}
      menuTrigger="focus"
      allowsEmptyCollection
      onSelectionChange={(key) => {
        if (key === null) return
        const tag = options.find((candidate) => candidate.id === key && key !== ANY_TAG)
        setSearch({ tag: key === ANY_TAG ? undefined : (tag?.name ?? search.tag) })
        setText(key === ANY_TAG ? '' : (tag?.name ?? active))
      }}
      onBlur={() => setText(active)}
    >
      <Label>{t('links.filterTag')}</Label>
      <Input className="combobox-input" placeholder={t('links.anyTag')} maxLength={64} />
      <Popover className="popover combobox-popover" placement="bottom start">
        <ListBox
          className="menu"
          renderEmptyState={() => <p className="menu-empty">{t('links.tagFilterNone')}</p>}
        >
          {(option: { id: string; name: string }) => (
            <ListBoxItem className="menu-item" id={option.id} textValue={option.name}>
              {option.name}
            </ListBoxItem>
          )}
        </ListBox>
      </Popover>
    </ComboBox>
  )
}
