/**
 * A row's tags on one line: as many whole chips as fit, then "+N" — the rest on hover and on
 * keyboard focus (and all of them in the link's dialog). The chips are measured once in a hidden
 * copy and refitted when the cell changes width, so no chip is squeezed into a stub.
 */
import { useId, useLayoutEffect, useRef, useState } from 'react'
import { useI18n } from '../i18n/i18n'

const GAP = 4

/** How many chips of these widths fit in `available`, leaving room for "+N" when some do not. */
export function chipsThatFit(widths: number[], moreWidth: number, available: number): number {
  let used = 0
  for (let index = 0; index < widths.length; index++) {
    const next = used + (index > 0 ? GAP : 0) + widths[index]!
    const rest = widths.length - index - 1
    if ((rest > 0 ? next + GAP + moreWidth : next) > available) return index
    used = next
  }
  return widths.length
}

export function TagChips({ names }: { names: string[] }) {
  const { t } = useI18n()
  const box = useRef<HTMLDivElement>(null)
  const ruler = useRef<HTMLUListElement>(null)
  const [shown, setShown] = useState(names.length)
  const tooltipId = useId()
  const key = names.join('\n')

  useLayoutEffect(() => {
    const container = box.current
    const measured = ruler.current
    if (container === null || measured === null) return
    const fit = () => {
      const widths = [...measured.children].map((chip) => (chip as HTMLElement).offsetWidth)
      const more = widths.pop() ?? 0
      // At least one chip, cut with "…" when even that one is wider than the cell.
      setShown(Math.max(1, chipsThatFit(widths, more, container.clientWidth)))
    }
    fit()
    const observer = new ResizeObserver(fit)
    observer.observe(container)
    return () => observer.disconnect()
  }, [key])

  const rest = names.slice(shown)
  return (
    <div className="tag-box" ref={box}>
      <ul className="tag-chips tag-ruler" ref={ruler} aria-hidden="true">
        {names.map((name, index) => (
          <li key={index}>{name}</li>
        ))}
        <li className="tag-more-ruler">+{names.length}</li>
      </ul>
      <ul className="tag-chips">
        {names.slice(0, shown).map((name, index) => (
          <li key={index} title={name}>
            {name}
          </li>
        ))}
        {rest.length > 0 && (
          <li className="tag-more">
            <button type="button" className="tag-more-button" aria-describedby={tooltipId}>
              <span aria-hidden="true">+{rest.length}</span>
              <span className="visually-hidden">{t('links.moreTags', { count: rest.length })}</span>
            </button>
            <span role="tooltip" id={tooltipId} className="tag-more-list">
              {rest.join(', ')}
            </span>
          </li>
        )}
      </ul>
    </div>
  )
}
