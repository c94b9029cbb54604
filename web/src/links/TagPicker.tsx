/**
 * The link dialog's tags: the chosen tags as a removable TagGroup, and a ComboBox that
 * finds the person's tags as they type — asking the API after a pause, so any of thousands is
 * found (shows at most SHOWN) — and offers to create the typed name as a new tag on the spot, no
 * detour through the tags panel.
 */
import { useQuery, useQueryClient } from '@tanstack/react-query'
import { useMemo, useRef, useState } from 'react'
import {
  Button,
  ComboBox,
  Input,
  Label,
  ListBox,
  ListBoxItem,
  Popover,
  Tag,
  TagGroup,
  TagList,
  Text,
} from 'react-aria-components'
import { client, unwrap } from '../api/client'
import { useI18n } from '../i18n/i18n'
import { describeError } from '../ui/describe-error'
import { tagSearchQuery, type Tag as TagItem } from './queries'
import { useDebounced } from './use-debounced'
import { useTagNames } from './use-tag-names'

const SHOWN = 50
const CREATE = '\u0000create'

export function TagPicker({
  tags,
  value,
  onChange,
  error,
}: {
  tags: readonly TagItem[]
  value: readonly string[]
  onChange: (ids: string[]) => void
  error: string | undefined
}) {
  const i18n = useI18n()
  const { t } = i18n
  const queryClient = useQueryClient()
  const [text, setText] = useState('')
  const [problem, setProblem] = useState<string | null>(null)
  const [creating, setCreating] = useState(false)
  const typed = text.trim()
  const settled = useDebounced(typed)
  const found = useQuery({ ...tagSearchQuery(settled), enabled: settled !== '' })
  // Every tag seen here — the first page, each search's — so a chosen one keeps its name.
  const seen = useRef(new Map<string, TagItem>())
  const byId = useMemo(() => {
    for (const tag of [...tags, ...(found.data?.items ?? [])]) seen.current.set(tag.id, tag)
    return new Map(seen.current)
  }, [tags, found.data])
  const source = typed === '' ? tags : (found.data?.items ?? tags)
  const exact = [...byId.values()].find((tag) => tag.name.toLowerCase() === typed.toLowerCase())
  const matches = useMemo(() => {
    const needle = typed.toLowerCase()
    return source
      .filter(
        (tag) =>
          !value.includes(tag.id) && (needle === '' || tag.name.toLowerCase().includes(needle)),
      )
      .slice(0, SHOWN)
  }, [source, typed, value])
  const options = [
    ...(typed !== '' && exact === undefined ? [{ id: CREATE, name: typed, create: true }] : []),
    ...matches.map((tag) => ({ id: tag.id, name: tag.name, create: false })),
  ]

  const add = (id: string) => {
    if (!value.includes(id)) onChange([...value, id])
    setText('')
  }
  const create = async (name: string) => {
    setCreating(true)
    setProblem(null)
    try {
      const tag = await unwrap(client.POST('/api/tags', { body: { name } }))
      await queryClient.invalidateQueries({ queryKey: ['tags'] })
      add(tag.id)
    } catch (failure) {
      setProblem(describeError(failure, ['name'], i18n).text)
    } finally {
      setCreating(false)
    }
  }
  const shownError = problem ?? error
  // A chosen tag neither listed nor searched here (a link's tag past the first page) by its id.
  const nameOf = useTagNames([{ tag_ids: value }], [...byId.values()])
  const selected = value
    .map((id) => ({ id, name: byId.get(id)?.name ?? nameOf(id) }))
    .filter((tag): tag is { id: string; name: string } => tag.name !== undefined)

  return (
    <div className="field tag-picker">
      <ComboBox
        aria-describedby={shownError ? 'tag-picker-error' : undefined}
        inputValue={text}
        onInputChange={setText}
        selectedKey={null}
        allowsCustomValue
        allowsEmptyCollection
        menuTrigger="focus"
        items={options}
        isDisabled={creating}
        onSelectionChange={(key) => {
          if (key === null) return
          if (key === CREATE) void create(typed)
          else add(String(key))
        }}
        onKeyDown={(event) => {
          // Enter on a typed name with nothing highlighted: the existing tag, or a new one.
          if (event.key !== 'Enter' || typed === '') return
          event.preventDefault()
          if (exact !== undefined) add(exact.id)
          else void create(typed)
        }}
      >
        <Label>{t('links.tags')}</Label>
        <Input
          className="combobox-input"
          placeholder={t('links.tagPickerPlaceholder')}
          maxLength={64}
        />
        <Text slot="description" className="field-help">
          {t('links.tagPickerHelp')}
        </Text>
        <Popover className="popover combobox-popover" placement="bottom start">
          <ListBox
            className="menu"
            renderEmptyState={() => <p className="menu-empty">{t('links.tagPickerNone')}</p>}
          >
            {(option: { id: string; name: string; create: boolean }) => (
              <ListBoxItem className="menu-item" id={option.id} textValue={option.name}>
                {option.create ? t('links.tagPickerCreate', { name: option.name }) : option.name}
              </ListBoxItem>
            )}
          </ListBox>
        </Popover>
      </ComboBox>
      {selected.length > 0 && (
        <TagGroup
          className="tag-group"
          aria-label={t('links.tagsChosen')}
          onRemove={(keys) => onChange(value.filter((id) => !keys.has(id)))}
        >
          <TagList className="tag-chips" items={selected}>
            {(tag) => (
              <Tag className="tag-chip" id={tag.id} textValue={tag.name}>
                <span className="tag-chip-name">{tag.name}</span>
                <Button
                  slot="remove"
                  className="tag-remove"
                  aria-label={t('links.tagRemove', { name: tag.name })}
                >
                  ×
                </Button>
              </Tag>
            )}
          </TagList>
        </TagGroup>
      )}
      {shownError && (
        <p id="tag-picker-error" className="field-error">
          {shownError}
        </p>
      )}
    </div>
  )
}
