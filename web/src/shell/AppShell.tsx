/**
 * The signed-in frame: skip link, top bar (instance name, account menu), side navigation (folded
 * into a menu button below 720 px), the page in <main>.
 */
import { BackupCodeNotice } from '../account/BackupCodeNotice'
import { useQuery, useQueryClient } from '@tanstack/react-query'
import { Link, Outlet, useNavigate, useRouterState } from '@tanstack/react-router'
import { lazy, Suspense, useEffect, useRef, useState, type ReactNode } from 'react'
import { Button, Menu, MenuItem, MenuTrigger, Popover, Separator } from 'react-aria-components'
import { client } from '../api/client'
import { leaveSignedIn } from '../auth/sign-out'
import { meQuery, mfaStatusQuery } from '../api/queries'
import { useI18n } from '../i18n/i18n'
import '../ui/stacked-table.css'
import './everyday.css'
import './areas.css'

// The command palette's code loads soon after the shell (or the first time it opens, if sooner).
const loadPalette = () => import('../palette/CommandPalette')
const CommandPalette = lazy(() =>
  loadPalette().then((module) => ({ default: module.CommandPalette })),
)

/** A key that types a character (not a shortcut). */
const isTyping = (event: KeyboardEvent) =>
  event.key.length === 1 && !event.ctrlKey && !event.metaKey && !event.altKey

type NavTarget =
  | '/links'
  | '/orgs'
  | '/account'
  | '/account/activity'
  | '/account/security'
  | '/account/tokens'
  | '/admin/users'
  | '/admin/teams'
  | '/admin/settings'
  | '/admin/providers'
  | '/admin/provisioning'
  | '/admin/audit'

/** `children`: a page shown in the frame instead of the route's (the signed-in not-found page). */
export function AppShell({ children }: { children?: ReactNode } = {}) {
  const { t } = useI18n()
  const me = useQuery(meQuery)
  const user = me.data
  const queryClient = useQueryClient()
  const navigate = useNavigate()
  const pathname = useRouterState({ select: (state) => state.location.pathname })
  const [navOpen, setNavOpen] = useState(false)
  // While the two-factor policy restricts the session, the shell offers enrolment and sign-out
  // only.
  const restricted = useQuery(mfaStatusQuery).data?.enrollment_required === true
  const [paletteOpen, setPaletteOpen] = useState(false)
  const [paletteUsed, setPaletteUsed] = useState(false)
  // What is typed after Ctrl/⌘+K before the palette's field has focus (its code may still
  // be loading) is kept here and handed to it, so no key is lost.
  const [typedEarly, setTypedEarly] = useState('')
  const paletteOpenRef = useRef(false)
  paletteOpenRef.current = paletteOpen
  const openPalette = () => {
    setTypedEarly('')
    setPaletteUsed(true)
    setPaletteOpen(true)
  }

  useEffect(() => {
    const idle = window.setTimeout(() => void loadPalette(), 1500)
    return () => window.clearTimeout(idle)
  }, [])

  // Ctrl+K (⌘K on a Mac) opens the command palette from anywhere in the shell.
  useEffect(() => {
    const onKeyDown = (event: KeyboardEvent) => {
      if (
        (event.ctrlKey || event.metaKey) &&
        !event.altKey &&
        !event.shiftKey &&
        event.key.toLowerCase() === 'k'
      ) {
        event.preventDefault()
        paletteOpenRef.current = true
        setTypedEarly('')
        setPaletteUsed(true)
        setPaletteOpen(true)
      } else if (
        paletteOpenRef.current &&
        isTyping(event) &&
        !document.activeElement?.closest('.palette')
      ) {
        event.preventDefault()
        setTypedEarly((text) => text + event.key)
      }
    }
    window.addEventListener('keydown', onKeyDown)
    return () => window.removeEventListener('keydown', onKeyDown)
  }, [])

  // Signed out elsewhere (another tab, a revoked session): back to sign-in.
  useEffect(() => {
    if (me.error && 'status' in me.error && me.error.status === 401)
      void navigate({ to: '/login', search: { return_to: pathname } })
  }, [me.error, navigate, pathname])

  useEffect(() => setNavOpen(false), [pathname])

  // The phone's menu drawer closes on Escape (focus back on its button) and on a tap outside it
  // (the scrim); closed, it is not drawn at all, so nothing of it covers the page.
  const navToggle = useRef<HTMLButtonElement>(null)
  useEffect(() => {
    if (!navOpen) return
    const onKeyDown = (event: KeyboardEvent) => {
      if (event.key !== 'Escape') return
      setNavOpen(false)
      navToggle.current?.focus()
    }
    window.addEventListener('keydown', onKeyDown)
    return () => window.removeEventListener('keydown', onKeyDown)
  }, [navOpen])

  const signOut = async () => {
    await client.POST('/api/auth/logout').catch(() => undefined)
    await leaveSignedIn(queryClient, () => navigate({ to: '/login' }))
  }

  const navLink = (to: NavTarget, label: string, exact = to !== '/links' && to !== '/orgs') => (
    <li>
      <Link
        to={to}
        activeOptions={{ exact }}
        activeProps={{ 'aria-current': 'page', className: 'active' }}
      >
        {label}
      </Link>
    </li>
  )

  return (
    <div className="shell">
      <a className="skip-link" href="#main">
        {t('shell.skip')}
      </a>
      <header className="topbar">
        <button
          ref={navToggle}
          type="button"
          className="button button-ghost nav-toggle"
          aria-expanded={navOpen}
          aria-controls="side-nav"
          onClick={() => setNavOpen((open) => !open)}
        >
          {t('shell.menu')}
        </button>
        <Link to="/links" className="brand">
          <span className="brand-mark" aria-hidden="true" />
          {t('app.name')}
        </Link>
        {!restricted && (
          <button
            type="button"
            className="button button-secondary palette-button"
            aria-keyshortcuts="Control+K Meta+K"
            onClick={openPalette}
          >
            {/* Below 720 px only the icon shows; the words stay the button's accessible name. */}
            <svg
              className="palette-icon"
              aria-hidden="true"
              viewBox="0 0 16 16"
              width="16"
              height="16"
              focusable="false"
            >
              <circle cx="7" cy="7" r="4.5" fill="none" stroke="currentColor" strokeWidth="1.6" />
              <path
                d="M10.5 10.5 14 14"
                stroke="currentColor"
                strokeWidth="1.6"
                strokeLinecap="round"
              />
            </svg>
            <span className="palette-label">{t('palette.open')}</span>
            <kbd className="palette-kbd" aria-hidden="true">
              {t('palette.shortcut')}
            </kbd>
          </button>
        )}
        <div className="topbar-end">
          <MenuTrigger>
            <Button className="button button-ghost account-button">
              <span className="avatar" aria-hidden="true">
                {(user?.name ?? '?').slice(0, 1).toUpperCase()}
              </span>
              <span className="account-name">{user?.name}</span>
            </Button>
            <Popover className="popover" placement="bottom end">
              <Menu
                className="menu"
                onAction={(key) => {
                  if (key === 'signout') void signOut()
                  else void navigate({ to: key as string })
                }}
              >
                {!restricted && (
                  <MenuItem className="menu-item" id="/account">
                    {t('nav.profile')}
                  </MenuItem>
                )}
                <MenuItem className="menu-item" id="/account/security">
                  {t('nav.security')}
                </MenuItem>
                {!restricted && (
                  <MenuItem className="menu-item" id="/account/tokens">
                    {t('nav.tokens')}
                  </MenuItem>
                )}
                <Separator className="menu-separator" />
                <MenuItem className="menu-item" id="signout">
                  {t('shell.signOut')}
                </MenuItem>
              </Menu>
            </Popover>
          </MenuTrigger>
        </div>
      </header>
      <div className="shell-body">
        {navOpen && (
          // A pointer's way out; keyboards have Escape and the menu button.
          <div className="nav-scrim" aria-hidden="true" onClick={() => setNavOpen(false)} />
        )}
        <nav
          id="side-nav"
          className={navOpen ? 'sidenav open' : 'sidenav'}
          aria-label={t('shell.navigation')}
        >
          {restricted ? (
            <>
              <h2 className="nav-group">{t('nav.account')}</h2>
              <ul>{navLink('/account/security', t('nav.security'))}</ul>
            </>
          ) : (
            <>
              <ul>
                {navLink('/links', t('links.title'))}
                {navLink('/orgs', t('nav.organizations'))}
              </ul>
              <h2 className="nav-group">{t('nav.account')}</h2>
              <ul>
                {navLink('/account', t('nav.profile'))}
                {navLink('/account/security', t('nav.security'))}
                {navLink('/account/activity', t('securityLog.nav'))}
                {navLink('/account/tokens', t('nav.tokens'))}
              </ul>
              {user?.is_admin && (
                <>
                  <h2 className="nav-group">{t('nav.admin')}</h2>
                  <ul>
                    {navLink('/admin/users', t('nav.admin.users'), false)}
                    {navLink('/admin/teams', t('nav.admin.teams'), false)}
                    {navLink('/admin/settings', t('nav.admin.settings'), false)}
                    {navLink('/admin/providers', t('nav.admin.providers'), false)}
                    {navLink('/admin/provisioning', t('nav.admin.provisioning'), false)}
                    {navLink('/admin/audit', t('nav.admin.audit'), false)}
                  </ul>
                </>
              )}
            </>
          )}
        </nav>
        <main id="main" className="content" tabIndex={-1}>
          <BackupCodeNotice />
          {children ?? <Outlet />}
        </main>
      </div>
      {paletteUsed && !restricted && (
        <Suspense fallback={null}>
          <CommandPalette
            isOpen={paletteOpen}
            onOpenChange={setPaletteOpen}
            initialText={typedEarly}
          />
        </Suspense>
      )}
    </div>
  )
}
