/**
 * A page: one h1 (focused after a navigation, so screen readers announce the new page), a sentence
 * that says what the page is for, optional actions at the top right. Also sets document.title.
 */
import { useEffect, useRef, type ReactNode } from 'react'

let focusHeadingOnMount = false

/** Called by the router before each navigation: the next page's heading takes the focus. */
export function focusNextHeading(): void {
  focusHeadingOnMount = true
}

export function Page({
  title,
  description,
  actions,
  children,
  narrow,
}: {
  title: string
  description?: ReactNode
  actions?: ReactNode
  children?: ReactNode
  narrow?: boolean
}) {
  const heading = useRef<HTMLHeadingElement>(null)
  useEffect(() => {
    document.title = `${title} · Switchboard`
  }, [title])
  useEffect(() => {
    if (focusHeadingOnMount) {
      focusHeadingOnMount = false
      heading.current?.focus()
    }
  }, [])
  return (
    <div className={narrow ? 'page page-narrow' : 'page'}>
      <header className="page-header">
        <div>
          <h1 ref={heading} tabIndex={-1}>
            {title}
          </h1>
          {description !== undefined && <p className="page-description">{description}</p>}
        </div>
        {actions !== undefined && <div className="page-actions">{actions}</div>}
      </header>
      {children}
    </div>
  )
}
