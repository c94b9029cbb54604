/**
 * One link of the Links list on one line: its selection box, title above its address, the go-link
 * with its click count, tag chips, owner (or the teams that share it with the person), a pin
 * toggle, and a "⋯" menu offering only what the person may do (`can_change`).
 */
import { Button, Menu, MenuItem, MenuTrigger, Popover } from 'react-aria-components'
import { useI18n } from '../i18n/i18n'
import { readableUrl } from './display-url'
import type { Link } from './queries'
import { TagChips } from './TagChips'

export type LinkAction = 'copy' | 'edit' | 'transfer' | 'delete' | 'collect' | 'pin'

export function LinkRow({
  link,
  selected,
  onSelect,
  tagName,
  ownerName,
  onAction,
}: {
  link: Link
  selected: boolean
  onSelect: (on: boolean) => void
  tagName: (id: string) => string | undefined
  ownerName: string
  onAction: (action: LinkAction) => void
}) {
  const { t } = useI18n()
  const shownUrl = readableUrl(link.url)
  const name = link.title ?? shownUrl
  return (
    <tr aria-selected={selected}>
      <td className="select-cell">
        <input
          type="checkbox"
          aria-label={t('links.selectNamed', { name })}
          checked={selected}
          onChange={(event) => onSelect(event.target.checked)}
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
        <GoLine link={link} />
      </td>
      <td className="tags-cell">
        {link.tag_ids.length > 0 && (
          <TagChips names={link.tag_ids.map((id) => tagName(id) ?? '…')} />
        )}
      </td>
      <td className="owner-cell">{ownerName}</td>
      <td className="actions">
        <span className="link-row-actions">
          <button
            type="button"
            className={`button button-ghost icon-button pin-toggle${link.pinned ? ' pinned' : ''}`}
            aria-pressed={link.pinned}
            aria-label={link.pinned ? t('pins.unpin') : t('pins.pin')}
            title={link.pinned ? t('pins.unpinNamed', { name }) : t('pins.pinNamed', { name })}
            onClick={() => onAction('pin')}
          >
            <PinIcon />
          </button>
          <LinkMenu link={link} name={name} onAction={onAction} />
        </span>
      </td>
    </tr>
  )
}

function PinIcon() {
  return (
    <svg aria-hidden="true" width="16" height="16" viewBox="0 0 16 16" className="pin-icon">
      <path
        d="M6 1h4l-.5 4 2.5 2.5V9H8.75v5L8 15l-.75-1V9H4V7.5L6.5 5z"
        fill="currentColor"
        fillRule="evenodd"
      />
    </svg>
  )
}

/**
 * One line: the slug gives way (cut with "…") before the click count does; the count shows short
 * ("3 clicks"), the whole sentence is in its tooltip and read to screen readers. A link without a
 * go-link that was never opened through one (most imported bookmarks) leaves the cell empty, so
 * the list does not repeat "No go-link · 0 clicks" on every row.
 */
function GoLine({ link }: { link: Link }) {
  const { t } = useI18n()
  if (link.slug === null && link.clicks_30d === 0) return null
  return (
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
      <span className="muted go-clicks" title={t('golinks.clicks30d', { count: link.clicks_30d })}>
        <span aria-hidden="true">· {t('golinks.clicksShort', { count: link.clicks_30d })}</span>
        <span className="visually-hidden">
          {t('golinks.clicks30d', { count: link.clicks_30d })}
        </span>
      </span>
    </div>
  )
}

function LinkMenu({
  link,
  name,
  onAction,
}: {
  link: Link
  name: string
  onAction: (action: LinkAction) => void
}) {
  const { t } = useI18n()
  if (link.slug === null && !link.can_change) return null
  return (
    <MenuTrigger>
      <Button
        className="button button-ghost icon-button"
        aria-label={t('links.actionsFor', { name })}
      >
        <span aria-hidden="true">⋯</span>
      </Button>
      <Popover className="popover" placement="bottom end">
        <Menu className="menu" onAction={(key) => onAction(key as LinkAction)}>
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
          {/* Collections take the owner's links: those the person may change. */}
          {link.can_change && (
            <MenuItem className="menu-item" id="collect">
              {t('collections.addToCollection')}
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
  )
}
