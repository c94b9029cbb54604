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
 * Tag names the person has already (ignoring case and a plain plural) are those tags; the others
 * are created — or left out, when "Create new tags" is unticked — and the report lists them.
 */
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query'
import { Link as RouterLink } from '@tanstack/react-router'
import { useState } from 'react'
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

function importFile(input: {
  format: Format
  file: File
  organizationId: string | null
  foldersAsTags: boolean
  createTags: boolean
}) {
  return unwrap(
    client.POST('/api/links/import/file', {
      params: {
        query: {
          format: input.format,
          folders_as_tags: input.foldersAsTags,
          create_tags: input.createTags,
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

  const run = useMutation({
    mutationFn: async (input: {
      file: File | null
      format: string
      organizationId: string
      foldersAsTags: boolean
      createTags: boolean
    }) => {
      if (input.file === null || input.file.size === 0)
        throw atField(null, 'file', t('links.importChooseFile'))
      if (input.file.size > MAX_FILE_BYTES) throw atField(null, 'file', t('links.importTooLarge'))
      const format: Format =
        input.format === 'json' || (input.format === 'auto' && /\.json$/i.test(input.file.name))
          ? 'json'
          : 'html'
      return importFile({
        format,
        file: input.file,
        organizationId: input.organizationId === '' ? null : input.organizationId,
        foldersAsTags: input.foldersAsTags,
        createTags: input.createTags,
      })
    },
    onSuccess: async (result) => {
      setReport(result)
      announce(t('links.importDone', { count: result.imported }))
      await queryClient.invalidateQueries({ queryKey: ['links'] })
      await queryClient.invalidateQueries({ queryKey: ['tags'] })
    },
    onError: (error) => {
      // The file itself is the field in this form; the API names it `content`.
      if (error instanceof ApiError && error.reason === 'PAYLOAD_TOO_LARGE')
        formError.fail(atField(error, 'file', t('links.importTooLarge')))
      else if (
        error instanceof ApiError &&
        error.details.some((problem) => problem.field === 'content')
      )
        formError.fail(atField(error, 'file', t('links.importNotAFile')))
      else formError.fail(error)
    },
  })

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
            const file = new FormData(event.currentTarget).get('file')
            const values = formValues(event.currentTarget)
            run.mutate({
              file: file instanceof File ? file : null,
              format: values.format ?? 'auto',
              organizationId: values.organization_id ?? '',
              foldersAsTags: values.folders_as_tags === 'on',
              createTags: values.create_tags === 'on',
            })
          }}
        >
          <FormError>{formError.general}</FormError>
          <div className="field">
            <label htmlFor="import-file">{t('links.importFile')}</label>
            <input
              id="import-file"
              name="file"
              type="file"
              accept=".html,.htm,.json,text/html,application/json"
              aria-describedby={
                formError.at('file') ? 'import-file-help import-file-error' : 'import-file-help'
              }
              aria-invalid={formError.at('file') ? true : undefined}
            />
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
          <div className="field">
            <label className="checkbox">
              <input
                type="checkbox"
                name="create_tags"
                defaultChecked
                aria-describedby="import-create-tags-help"
              />
              {t('links.importCreateTags')}
            </label>
            <p id="import-create-tags-help" className="field-help">
              {t('links.importCreateTagsHelp')}
            </p>
          </div>
          <div>
            <SubmitButton pending={run.isPending}>{t('links.importButton')}</SubmitButton>
          </div>
        </form>
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
