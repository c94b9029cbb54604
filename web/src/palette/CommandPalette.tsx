/**
 * The command palette (Ctrl/⌘+K, or the search button in the top bar): one combobox that finds
 * links (title, URL or slug, through the API's `q`; pinned ones first, and the pinned links before
 * anything is typed), collections, tags, organizations, pages and actions.
 * Keyboard-first: arrows move through the results, Enter goes, Escape closes and focus returns to
 * what opened it. The number of results is announced as it changes.
 *
 * It opens at once with whatever was typed after Ctrl/⌘+K (`initialText`, kept by the
 * shell while this code loads) and loads results afterwards; Enter on a link opens the link itself
 * in a new tab, Ctrl/⌘+Enter its place in the Links page; actions that do not apply are left out.
 */
import { useQuery } from '@tanstack/react-query'
import { useNavigate } from '@tanstack/react-router'
import { type RefObject, useContext, useEffect, useLayoutEffect, useRef, useState } from 'react'
import {
  Autocomplete,
  AutocompleteStateContext,
  Dialog,
  Header,
  Input,
  Menu,
  MenuItem,
  MenuSection,
  Modal,
  ModalOverlay,
  TextField,
  Text,
} from 'react-aria-components'
import { client, unwrap } from '../api/client'
import { meQuery, mfaStatusQuery } from '../api/queries'
import { useI18n } from '../i18n/i18n'
import { announce } from '../ui/announce'
import { collectionsQuery } from '../links/collection-queries'
import { organizationsQuery, tagSearchQuery } from '../links/queries'
import { useDebounced } from '../links/use-debounced'
import { matchEntries } from './entries'

const MAX_PER_SECTION = 6

interface Result {
  id: string
  label: string
  detail?: string
  href: string
  /** A link's own address: Enter opens it, Ctrl/⌘+Enter goes to `href`. */
  url?: string
}

interface Section {
  id: string
  title: string
  items: Result[]
}

const contains = (text: string, query: string) => text.toLowerCase().includes(query.toLowerCase())

export function CommandPalette({
  isOpen,
  onOpenChange,
  initialText = '',
}: {
  isOpen: boolean
  onOpenChange: (open: boolean) => void
  initialText?: string
}) {
  const { t } = useI18n()
  const navigate = useNavigate()
  const [text, setText] = useState(initialText)
  const query = useDebounced(text.trim(), 200)
  const me = useQuery(meQuery)
  const mfa = useQuery({ ...mfaStatusQuery, enabled: isOpen })
  // Whether Ctrl/⌘ was held with the Enter that chose a result (the menu's action has no event).
  const withModifier = useRef(false)
  // An Enter pressed before the results are the typed text's (the search is debounced and answers
  // later) waits for them and takes the first: the highlighted result belonged to an earlier part
  // of the text. Once the arrows have moved the highlight, Enter takes it at once.
  const pendingEnter = useRef<{ modifier: boolean } | null>(null)
  const movedHighlight = useRef(false)
  const resultsAreTheText = useRef(true)
  const dialog = useRef<HTMLElement>(null)
  // Tags are searched by the API, so one past the first page is found too.
  const tags = useQuery({ ...tagSearchQuery(query), enabled: isOpen && query !== '' })
  const organizations = useQuery({ ...organizationsQuery, enabled: isOpen })
  const collections = useQuery({ ...collectionsQuery, enabled: isOpen })
  // The pinned matches, then the others: two pages of the same search. Before anything is typed,
  // the pinned links alone.
  const links = useQuery({
    queryKey: ['palette-links', query],
    queryFn: async () => {
      const search = (pinned: boolean) =>
        unwrap(
          client.GET('/api/links', {
            params: {
              query: { ...(query !== '' && { q: query }), pinned, limit: MAX_PER_SECTION },
            },
          }),
        )
      const [pinned, others] = await Promise.all([
        search(true),
        query === '' ? { items: [] } : search(false),
      ])
      return [...pinned.items, ...others.items].slice(0, MAX_PER_SECTION)
    },
    enabled: isOpen,
    placeholderData: (previous) => previous,
  })

  // Read in the capture phase, before the menu acts on the Enter (its action carries no event).
  useEffect(() => {
    const onKeyDown = (event: KeyboardEvent) => {
      if (event.key === 'Enter') withModifier.current = event.ctrlKey || event.metaKey
      const inPalette = event.target instanceof Element && event.target.closest('.palette') !== null
      if (!inPalette) return
      if (event.key === 'ArrowDown' || event.key === 'ArrowUp') movedHighlight.current = true
      if (event.key === 'Enter' && !resultsAreTheText.current && !movedHighlight.current) {
        // Before the menu sees it: it would act on the highlighted result of the earlier text.
        event.preventDefault()
        event.stopPropagation()
        pendingEnter.current = { modifier: event.ctrlKey || event.metaKey }
      }
    }
    window.addEventListener('keydown', onKeyDown, true)
    return () => window.removeEventListener('keydown', onKeyDown, true)
  }, [])

  useEffect(() => {
    if (!isOpen) setText('')
    else if (initialText !== '') setText(initialText)
  }, [isOpen, initialText])

  const sections: Section[] = [
    {
      id: 'links',
      title: query === '' ? t('palette.pinned') : t('palette.links'),
      items: (links.data ?? []).map((link) => ({
        id: `link:${link.id}`,
        label: link.title ?? link.url,
        detail: [
          link.pinned ? t('palette.pinnedMark') : null,
          link.slug === null ? null : `go/${link.slug}`,
          link.url,
        ]
          .filter((part) => part !== null)
          .join(' · '),
        href: `/links?q=${encodeURIComponent(link.slug ?? link.title ?? link.url)}`,
        url: link.url,
      })),
    },
    {
      id: 'collections',
      title: t('palette.collections'),
      items:
        query === ''
          ? []
          : (collections.data?.items ?? [])
              .filter((collection) => contains(collection.name, query))
              .slice(0, MAX_PER_SECTION)
              .map((collection) => ({
                id: `collection:${collection.id}`,
                label: collection.name,
                detail: t('palette.collectionLinks', { count: collection.link_count }),
                href: `/links?collection=${encodeURIComponent(collection.id)}`,
              })),
    },
    {
      id: 'tags',
      title: t('palette.tags'),
      items:
        query === ''
          ? []
          : (tags.data?.items ?? [])
              .filter((tag) => contains(tag.name, query))
              .slice(0, MAX_PER_SECTION)
              .map((tag) => ({
                id: `tag:${tag.id}`,
                label: tag.name,
                href: `/links?tag=${encodeURIComponent(tag.name)}`,
              })),
    },
    {
      id: 'organizations',
      title: t('palette.organizations'),
      items:
        query === ''
          ? []
          : (organizations.data?.items ?? [])
              .filter(
                (organization) =>
                  contains(organization.name, query) || contains(organization.slug, query),
              )
              .slice(0, MAX_PER_SECTION)
              // The organization pages come from another area: a plain path (see entries.ts).
              .map((organization) => ({
                id: `org:${organization.id}`,
                label: organization.name,
                href: `/orgs/${organization.slug}`,
              })),
    },
    ...(['action', 'page'] as const).map((kind) => ({
      id: kind,
      title: t(kind === 'action' ? 'palette.actions' : 'palette.pages'),
      items: matchEntries(
        query,
        { isAdmin: me.data?.is_admin ?? false, twoFactorEnabled: mfa.data?.enabled },
        (entry) => t(entry.label),
      )
        .filter((entry) => entry.kind === kind)
        .map((entry) => ({ id: `entry:${entry.id}`, label: t(entry.label), href: entry.href })),
    })),
  ].filter((section) => section.items.length > 0)

  const count = sections.reduce((sum, section) => sum + section.items.length, 0)
  const settled = query === text.trim() && !links.isFetching
  useLayoutEffect(() => {
    resultsAreTheText.current = settled
  })
  useEffect(() => {
    if (isOpen && settled)
      announce(count === 0 ? t('palette.noResults') : t('palette.results', { count }))
  }, [isOpen, settled, count, t])

  const results = new Map(
    sections.flatMap((section) => section.items.map((item) => [item.id, item] as const)),
  )
  const go = (item: Result | undefined) => {
    const modifier = withModifier.current
    withModifier.current = false
    if (item === undefined) return
    onOpenChange(false)
    // A link found here is opened itself (a new tab keeps the console); with Ctrl/⌘ its entry in
    // the list.
    if (item.url !== undefined && !modifier) window.open(item.url, '_blank', 'noopener,noreferrer')
    else void navigate({ href: item.href })
  }
  // A waiting Enter goes once the results are the text's (see pendingEnter); closing drops it.
  useEffect(() => {
    if (!isOpen) {
      pendingEnter.current = null
      movedHighlight.current = false
    }
    if (!settled || pendingEnter.current === null) return
    withModifier.current = pendingEnter.current.modifier
    pendingEnter.current = null
    go(sections[0]?.items[0])
  })
  return (
    <ModalOverlay
      className="modal-overlay palette-overlay"
      isDismissable
      isOpen={isOpen}
      onOpenChange={onOpenChange}
    >
      <Modal className="modal palette">
        <Dialog ref={dialog} className="palette-dialog" aria-label={t('palette.title')}>
          <Autocomplete
            inputValue={text}
            onInputChange={(value) => {
              movedHighlight.current = false
              setText(value)
            }}
          >
            <TextField className="palette-search" aria-label={t('palette.searchLabel')} autoFocus>
              <Input
                role="combobox"
                aria-expanded="true"
                placeholder={t('palette.placeholder')}
                onKeyDown={(event) => {
                  // Ctrl/⌘+Enter is handled here (the menu does not act on a modified Enter): the
                  // highlighted result's page.
                  if (event.key === 'Enter' && (event.ctrlKey || event.metaKey)) {
                    event.preventDefault()
                    const active = event.currentTarget.getAttribute('aria-activedescendant')
                    const key =
                      active === null
                        ? null
                        : document.getElementById(active)?.getAttribute('data-key')
                    withModifier.current = true
                    go((key != null ? results.get(key) : undefined) ?? sections[0]?.items[0])
                    return
                  }
                  // Results arrive while typing; when the highlighted one is gone (or none is),
                  // Enter takes the first.
                  const active = event.currentTarget.getAttribute('aria-activedescendant')
                  if (
                    event.key === 'Enter' &&
                    (active === null || document.getElementById(active) === null)
                  ) {
                    event.preventDefault()
                    go(sections[0]?.items[0])
                  }
                }}
              />
            </TextField>
            <Menu
              className="palette-menu"
              aria-label={t('palette.resultsLabel')}
              onAction={(key) => go(results.get(String(key)))}
              renderEmptyState={() => <p className="palette-empty">{t('palette.noResults')}</p>}
            >
              {sections.map((section) => (
                <MenuSection key={section.id} id={section.id} className="palette-section">
                  <Header className="palette-header">{section.title}</Header>
                  {section.items.map((item) => (
                    <MenuItem
                      key={item.id}
                      id={item.id}
                      textValue={item.label}
                      className="menu-item palette-item"
                    >
                      <Text slot="label">{item.label}</Text>
                      {item.detail !== undefined && (
                        <Text slot="description" className="palette-detail">
                          {item.detail}
                        </Text>
                      )}
                    </MenuItem>
                  ))}
                </MenuSection>
              ))}
            </Menu>
            <ActiveResultGuard within={dialog} />
          </Autocomplete>
          <p className="palette-hint" aria-hidden="true">
            {t('palette.hint')}
          </p>
        </Dialog>
      </Modal>
    </ModalOverlay>
  )
}

/**
 * Keeps the input's active descendant naming a result that is there. React Aria moves the
 * highlight to the first result half a second after a keystroke (not to interrupt the screen
 * reader's echo of the letter) and follows results as they go; where the search's answer removes
 * the highlighted result in a way it does not follow, the input would go on naming an option that
 * no longer exists. Checked whenever the palette's elements or that attribute change.
 */
function ActiveResultGuard({ within }: { within: RefObject<HTMLElement | null> }) {
  const state = useContext(AutocompleteStateContext)
  // The observer reads the latest state (a new object each render) without being made anew.
  const stateRef = useRef(state)
  stateRef.current = state
  useEffect(() => {
    const root = within.current
    if (root === null) return
    const observer = new MutationObserver(() => {
      const named = root.querySelector('[aria-activedescendant]')
      const id = named?.getAttribute('aria-activedescendant')
      if (id != null && document.getElementById(id) === null)
        stateRef.current?.setFocusedNodeId(null)
    })
    observer.observe(root, {
      subtree: true,
      childList: true,
      attributeFilter: ['aria-activedescendant'],
    })
    return () => observer.disconnect()
  }, [within])
  return null
}
