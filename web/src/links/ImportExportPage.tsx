/**
 * Import a browser's bookmark file (or a JSON export) and download the links as either. The file
 * is uploaded as it is (POST /api/links/import/file, read by the service as it arrives), so a
 * browser's export with favicons fits; the size limit is checked here too, so a person learns it
 * before uploading. The import report lists what was skipped and why.
 *
 * A bookmark file's folders become tags (an option, on by default: a nested folder is
 * one tag with its path, `Work/Projects`), its dates are kept, and the report links to the
 * imported links and to the list by each tag they got.
 *
 * The file is first sent as a dry run: a preview says how many links it would import and names
 * the tags it would create ("12 links, 3 new tags: a, b and c."), then "Import with new tags",
 * "Import without new tags" (only tags the person has already go on the links) or Cancel. The
 * page keeps the File and sends it again for the import. Tag names the person has already
 * (ignoring case and a plain plural) are those tags.
 */
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query'
import { Link as RouterLink } from '@tanstack/react-router'
import { useEffect, useRef, useState } from 'react'
import { client, unwrap } from '../api/client'
import { ApiError } from '../api/errors'
import { useI18n } from '../i18n/i18n'
import { announce } from '../ui/announce'
import { FormError, SelectField, SubmitButton, formValues } from '../ui/form'
import { Page } from '../ui/page'
import { TableHead } from '../ui/table-head'
import { useFormError } from '../ui/use-form-error'
import { atField } from './field-error'
import { ownerOptions } from './owner-options'
import { readableUrl } from './display-url'
import { organizationsQuery } from './queries'

/** The API's limit for an uploaded file (20 MiB). */
const MAX_FILE_BYTES = 20 * 1024 * 1024
type Format = 'html' | 'json'
type Report = Awaited<ReturnType<typeof importFile>>
interface ImportRequest {
  format: Format
  file: File
  organizationId: string | null
  foldersAsTags: boolean
}

/** How many new tags the preview names before "…". */
const PREVIEW_TAGS = 20

function importFile(input: {
  format: Format
  file: File
  organizationId: string | null
  foldersAsTags: boolean
  createTags: boolean
  dryRun: boolean
}) {
  return unwrap(
    client.POST('/api/links/import/file', {
      params: {
        query: {
          format: input.format,
          folders_as_tags: input.foldersAsTags,
          create_tags: input.createTags,
          dry_run: input.dryRun,
          ...(input.organizationId !== null && { organization_id: input.organizationId }),
        },
      },
      // The file's bytes as they are; the format is in the query.
      body: input.file,
      bodySerializer: (file) => file as File,
      headers: { 'content-type': 'application/octet-stream' },
    }),
  )
}

export function ImportExportPage() {
  const { t } = useI18n()
  const queryClient = useQueryClient()
  const organizations = useQuery(organizationsQuery)
  const formError = useFormError(['file', 'content', 'format', 'organization_id'])
  const [report, setReport] = useState<Report | null>(null)
  const [fileName, setFileName] = useState<string | null>(null)
  // The previewed file and choices, kept to send the file again for the import itself.
  const [preview, setPreview] = useState<{ report: Report; request: ImportRequest } | null>(null)

  const run = useMutation({
    mutationFn: async (input: {
      file: File | null
      format: string
      organizationId: string
      foldersAsTags: boolean
    }) => {
      if (input.file === null || input.file.size === 0)
        throw atField(null, 'file', t('links.importChooseFile'))
      if (input.file.size > MAX_FILE_BYTES) throw atField(null, 'file', t('links.importTooLarge'))
      const format: Format =
        input.format === 'json' || (input.format === 'auto' && /\.json$/i.test(input.file.name))
          ? 'json'
          : 'html'
      const request = {
        format,
        file: input.file,
        organizationId: input.organizationId === '' ? null : input.organizationId,
        foldersAsTags: input.foldersAsTags,
      }
      return { request, report: await importFile({ ...request, createTags: true, dryRun: true }) }
    },
    onSuccess: (result) => setPreview(result),
    onError: (error) => showError(error),
  })

  const commit = useMutation({
    mutationFn: (input: { request: ImportRequest; createTags: boolean }) =>
      importFile({ ...input.request, createTags: input.createTags, dryRun: false }),
    onSuccess: async (result) => {
      setPreview(null)
      setReport(result)
      announce(t('links.importDone', { count: result.imported }))
      await queryClient.invalidateQueries({ queryKey: ['links'] })
      await queryClient.invalidateQueries({ queryKey: ['tags'] })
    },
    onError: (error) => {
      setPreview(null)
      showError(error)
    },
  })

  function showError(error: unknown) {
    // The file itself is the field in this form; the API names it `content`.
    if (error instanceof ApiError && error.reason === 'PAYLOAD_TOO_LARGE')
      formError.fail(atField(error, 'file', t('links.importTooLarge')))
    else if (
      error instanceof ApiError &&
      error.details.some((problem) => problem.field === 'content')
    )
      formError.fail(atField(error, 'file', t('links.importNotAFile')))
    else formError.fail(error)
  }

  return (
    <Page title={t('links.importExportTitle')} description={t('links.importExportDescription')}>
      <section className="section" aria-labelledby="import-heading">
        <h2 id="import-heading">{t('links.importHeading')}</h2>
        <p>{t('links.importText')}</p>
        <form
          ref={formError.form}
          noValidate
          className="stack narrow-form"
          onSubmit={(event) => {
            event.preventDefault()
            formError.clear()
            setReport(null)
            setPreview(null)
            const file = new FormData(event.currentTarget).get('file')
            const values = formValues(event.currentTarget)
            run.mutate({
              file: file instanceof File ? file : null,
              format: values.format ?? 'auto',
              organizationId: values.organization_id ?? '',
              foldersAsTags: values.folders_as_tags === 'on',
            })
          }}
        >
          <FormError>{formError.general}</FormError>
          <div className="field">
            <label htmlFor="import-file">{t('links.importFile')}</label>
            {/* The browser's own button and "no file" speak the browser's language; these speak
                the console's. The input lies over them, transparent: a click or a key on it opens
                the file chooser, and assistive technology meets the input itself. */}
            <div className="file-picker">
              <input
                id="import-file"
                name="file"
                type="file"
                className="file-picker-input"
                accept=".html,.htm,.json,text/html,application/json"
                aria-describedby={
                  formError.at('file') ? 'import-file-help import-file-error' : 'import-file-help'
                }
                aria-invalid={formError.at('file') ? true : undefined}
                onChange={(event) => setFileName(event.currentTarget.files?.[0]?.name ?? null)}
              />
              <span className="button button-secondary button-small" aria-hidden="true">
                {t('links.importChooseButton')}
              </span>
              <span
                className={fileName === null ? 'file-picker-name muted' : 'file-picker-name'}
                aria-hidden="true"
              >
                {fileName ?? t('links.importNoFile')}
              </span>
            </div>
            <p id="import-file-help" className="field-help">
              {t('links.importFileHelp')}
            </p>
            {formError.at('file') && (
              <p id="import-file-error" className="field-error">
                {formError.at('file')}
              </p>
            )}
          </div>
          <SelectField
            name="format"
            label={t('links.importFormat')}
            defaultValue="auto"
            options={[
              { value: 'auto', label: t('links.formatAuto') },
              { value: 'html', label: t('links.formatHtml') },
              { value: 'json', label: t('links.formatJson') },
            ]}
          />
          <SelectField
            name="organization_id"
            label={t('links.importInto')}
            defaultValue=""
            options={ownerOptions(t('links.onlyMe'), organizations.data?.items)}
          />
          <div className="field">
            <label className="checkbox">
              <input
                type="checkbox"
                name="folders_as_tags"
                aria-describedby="import-folders-help"
              />
              {t('links.importFolders')}
            </label>
            <p id="import-folders-help" className="field-help">
              {t('links.importFoldersHelp')}
            </p>
          </div>
          <div>
            <SubmitButton pending={run.isPending}>{t('links.importButton')}</SubmitButton>
          </div>
        </form>
        {preview !== null && (
          <ImportPreview
            report={preview.report}
            pending={commit.isPending}
            onImport={(createTags) => commit.mutate({ request: preview.request, createTags })}
            onCancel={() => setPreview(null)}
          />
        )}
        {report !== null && (
          <div className="import-report" data-testid="import-report">
            <h3>{t('links.importReport')}</h3>
            <p role="status">
              {t('links.importSummary', { count: report.imported })}{' '}
              {t('links.importTags', { count: report.tags_created })}
            </p>
            {report.collections.length > 0 && (
              <>
                <h4>{t('links.importCollections', { count: report.collections.length })}</h4>
                <ul className="tag-chips import-tags">
                  {report.collections.map((collection) => (
                    <li key={collection.id}>
                      <RouterLink to="/links" search={{ collection: collection.id }}>
                        {collection.name}
                      </RouterLink>
                    </li>
                  ))}
                </ul>
              </>
            )}
            {report.tags.length > 0 && (
              <>
                <h4>{t('links.importTagsUsed')}</h4>
                <ul className="tag-chips import-tags">
                  {report.tags.map((name) => (
                    <li key={name}>
                      <RouterLink to="/links" search={{ tag: name }}>
                        {name}
                      </RouterLink>
                    </li>
                  ))}
                </ul>
              </>
            )}
            {report.new_tags.length > 0 && (
              <>
                <h4>
                  {report.new_tags_left_out
                    ? t('links.importNewTagsLeftOut', { count: report.new_tags.length })
                    : t('links.importNewTags', { count: report.new_tags.length })}
                </h4>
                <ul className="tag-chips import-tags" data-testid="import-new-tags">
                  {report.new_tags.map((name) => (
                    <li key={name}>{name}</li>
                  ))}
                </ul>
              </>
            )}
            {report.links.length > 0 && (
              <>
                <h4>{t('links.importLinks', { count: report.imported })}</h4>
                <ul className="import-links">
                  {report.links.map((link) => (
                    <li key={link.id}>
                      <a href={link.url} rel="noreferrer noopener" target="_blank" dir="auto">
                        {link.title ?? readableUrl(link.url)}
                      </a>
                    </li>
                  ))}
                </ul>
                {report.imported > report.links.length && (
                  <p className="muted">
                    {t('links.importLinksMore', { count: report.imported - report.links.length })}
                  </p>
                )}
                <RouterLink to="/links" className="button button-secondary">
                  {t('links.importOpenList')}
                </RouterLink>
              </>
            )}
            {report.already_saved.length > 0 && (
              <>
                <h4>{t('links.importAlreadySaved', { count: report.already_saved.length })}</h4>
                <ul className="import-links">
                  {report.already_saved.map((entry) => (
                    <li key={entry.url} dir="auto">
                      {readableUrl(entry.url)}:{' '}
                      {entry.links
                        .map((link) =>
                          t('links.importAlreadySavedAs', {
                            name: link.slug !== null ? `go/${link.slug}` : (link.title ?? ''),
                            owner: link.owner_name,
                          }),
                        )
                        .join(', ')}
                    </li>
                  ))}
                </ul>
              </>
            )}
            {report.skipped.length > 0 && (
              <table className="table import-skipped">
                <caption>{t('links.importSkipped', { count: report.skipped.length })}</caption>
                <colgroup>
                  <col className="import-skipped-position" />
                  <col />
                  <col className="import-skipped-reason" />
                </colgroup>
                <TableHead
                  columns={[t('links.importPosition'), t('links.url'), t('links.importReason')]}
                />
                <tbody>
                  {report.skipped.map((skipped) => (
                    <tr key={skipped.position}>
                      <td className="numeric">{skipped.position}</td>
                      <td className="link-url">{skipped.url ?? '—'}</td>
                      <td>{t(`links.skip.${skipped.reason}`)}</td>
                    </tr>
                  ))}
                </tbody>
              </table>
            )}
          </div>
        )}
      </section>
      <section className="section" aria-labelledby="export-heading">
        <h2 id="export-heading">{t('links.exportHeading')}</h2>
        <p>{t('links.exportText')}</p>
        <div className="row">
          <a className="button button-secondary" href="/api/links/export?format=html" download>
            {t('links.exportHtml')}
          </a>
          <a className="button button-secondary" href="/api/links/export?format=json" download>
            {t('links.exportJson')}
          </a>
        </div>
      </section>
    </Page>
  )
}

/**
 * The dry run's answer: "N links, M new tags: a, b and c." (past PREVIEW_TAGS names, "M new tags,
 * among them …"), then the import with or without the new tags, or Cancel. Focus moves to it, so
 * the person is where the choice is.
 */
function ImportPreview({
  report,
  pending,
  onImport,
  onCancel,
}: {
  report: Report
  pending: boolean
  onImport: (createTags: boolean) => void
  onCancel: () => void
}) {
  const { t, language } = useI18n()
  const names = report.new_tags.slice(0, PREVIEW_TAGS)
  const more = report.tags_created > names.length
  const list = new Intl.ListFormat(language, { type: 'conjunction' }).format(names)
  const heading = useRef<HTMLHeadingElement>(null)
  useEffect(() => heading.current?.focus(), [])
  return (
    <div
      className="import-preview stack"
      data-testid="import-preview"
      role="region"
      aria-labelledby="import-preview-heading"
    >
      <h3 id="import-preview-heading" tabIndex={-1} ref={heading}>
        {t('links.importPreview')}
      </h3>
      <p>
        {t('links.importPreviewLinks', { count: report.imported })}{' '}
        {report.tags_created === 0
          ? t('links.importPreviewNoTags')
          : more
            ? t('links.importPreviewTagsAmong', { count: report.tags_created, names: list })
            : t('links.importPreviewTags', { count: report.tags_created, names: list })}
        {report.skipped.length > 0 &&
          ` ${t('links.importPreviewSkipped', { count: report.skipped.length })}`}
      </p>
      <div className="row">
        <button
          type="button"
          className="button button-primary"
          disabled={pending}
          onClick={() => onImport(true)}
        >
          {report.tags_created === 0 ? t('links.importNow') : t('links.importWithTags')}
        </button>
        {report.tags_created > 0 && (
          <button
            type="button"
            className="button button-secondary"
            disabled={pending}
            onClick={() => onImport(false)}
          >
            {t('links.importWithoutTags')}
          </button>
        )}
        <button
          type="button"
          className="button button-secondary"
          disabled={pending}
          onClick={onCancel}
        >
          {t('common.cancel')}
        </button>
      </div>
    </div>
  )
}
