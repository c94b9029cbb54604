/**
 * Choose a user by typing part of their name or email: a combobox over GET /api/admin/users?q=,
 * which shows the first matches (never the whole list) and announces them to screen readers.
 */
import { useQuery } from '@tanstack/react-query'
import { useDeferredValue, useState } from 'react'
import { ComboBox, Input, Label, ListBox, ListBoxItem, Popover, Text } from 'react-aria-components'
import { useI18n } from '../i18n/i18n'
import { usersQuery, type AdminUser } from './queries'

const MATCHES = 10

export function UserPicker({
  label,
  help,
  name,
  onSelect,
  error,
  initialText = '',
}: {
  initialText?: string
  label: string
  help?: string
  name: string
  onSelect: (user: AdminUser | null) => void
  error?: string | undefined
}) {
  const { t } = useI18n()
  const [text, setText] = useState(initialText)
  const q = useDeferredValue(text.trim())
  const users = useQuery({
    ...usersQuery(q === '' ? undefined : q, undefined, MATCHES),
    placeholderData: (previous) => previous,
  })
  const items = users.data?.items ?? []
  return (
    <ComboBox
      className="field combobox"
      name={name}
      inputValue={text}
      onInputChange={setText}
      items={items}
      allowsEmptyCollection
      allowsCustomValue
      menuTrigger="focus"
      isInvalid={error !== undefined}
      onSelectionChange={(key) => {
        // The input then shows the chosen user's email (its textValue), set by the combobox itself.
        onSelect(items.find((item) => item.id === key) ?? null)
      }}
    >
      <Label>{label}</Label>
      <Input className="combobox-input" />
      {help !== undefined && (
        <Text slot="description" className="field-help">
          {help}
        </Text>
      )}
      {error !== undefined && (
        <Text slot="errorMessage" className="field-error">
          {error}
        </Text>
      )}
      <Popover className="popover combobox-popover" placement="bottom start">
        <ListBox
          className="menu"
          renderEmptyState={() => <p className="menu-empty">{t('admin.picker.none')}</p>}
        >
          {(user: AdminUser) => (
            <ListBoxItem className="menu-item" id={user.id} textValue={user.email}>
              <span>{user.name}</span> <span className="muted">{user.email}</span>
            </ListBoxItem>
          )}
        </ListBox>
      </Popover>
    </ComboBox>
  )
}
