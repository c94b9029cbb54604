/**
 * A tag chosen by name: opens with the first tags (up to SHOWN_TAGS), and as one types asks the API
 * for the names containing the text (after a pause), so any of thousands of tags is found. The
 * chosen tag stays listed, and leaving without choosing shows its name again. The Links filter and
 * the bulk actions' tag choice are this one box.
 */
import { useQuery } from '@tanstack/react-query'
import { useEffect, useMemo, useState } from 'react'
import { ComboBox, Input, Label, ListBox, ListBoxItem, Popover } from 'react-aria-components'
import { tagSearchQuery } from './queries'
import { useDebounced } from './use-debounced'

/** The most tags listed at once: typing narrows them (hundreds stay quick). */
const SHOWN_TAGS = 100

export interface TagOption {
  id: string
  name: string
  /** An entry that is no tag ("Any tag"): choosing it empties the box. */
  clears?: boolean
}

export function TagComboBox({
  label,
  tags,
  chosen,
  shownName = chosen?.name ?? '',
  leading = [],
  placeholder,
  emptyText,
  className,
  onChoose,
}: {
  label: string
  /** The first page of the person's tags: what the box lists before anything is typed. */
  tags: readonly TagOption[]
  chosen: TagOption | undefined
  /** The text the box shows when nobody types in it (the chosen tag's name by default). */
  shownName?: string
  /** Entries listed above the tags while nothing is typed. */
  leading?: readonly TagOption[]
  placeholder?: string
  emptyText: string
  className?: string
  onChoose: (option: TagOption) => void
}) {
  const [text, setText] = useState(shownName)
  useEffect(() => setText(shownName), [shownName])
  const needle = text === shownName ? '' : text.trim()
  const settled = useDebounced(needle)
  const found = useQuery({ ...tagSearchQuery(settled), enabled: settled !== '' })
  const options = useMemo((): TagOption[] => {
    const source = needle === '' ? tags : (found.data?.items ?? [])
    const lower = needle.toLowerCase()
    const matches = source
      // Until the search answers, the tags at hand that contain the text.
      .filter((tag) => tag.name.toLowerCase().includes(lower))
      .slice(0, SHOWN_TAGS)
      .map((tag) => ({ id: tag.id, name: tag.name }))
    if (needle !== '') return matches
    const listed = new Set([...leading, ...matches].map((option) => option.id))
    return [
      ...leading,
      ...(chosen !== undefined && !listed.has(chosen.id) ? [chosen] : []),
      ...matches,
    ]
  }, [tags, found.data, needle, leading, chosen])
  return (
    <ComboBox
      className={className}
      inputValue={text}
      onInputChange={setText}
      selectedKey={chosen?.id ?? null}
      items={options}
      menuTrigger="focus"
      allowsEmptyCollection
      onSelectionChange={(key) => {
        const option = options.find((candidate) => candidate.id === key)
        if (option === undefined) return
        onChoose(option)
        setText(option.clears ? '' : option.name)
      }}
      onBlur={() => setText(shownName)}
    >
      <Label>{label}</Label>
      <Input className="combobox-input" placeholder={placeholder} maxLength={64} />
      <Popover className="popover combobox-popover" placement="bottom start">
        <ListBox
          className="menu"
          renderEmptyState={() => <p className="menu-empty">{emptyText}</p>}
        >
          {(option: TagOption) => (
            <ListBoxItem className="menu-item" id={option.id} textValue={option.name}>
              {option.name}
            </ListBoxItem>
          )}
        </ListBox>
      </Popover>
    </ComboBox>
  )
}
