/**
 * A link's clicks per day over the last 90 days as a small inline SVG bar chart: no
 * library, no raster. For assistive technology the picture is one image with a summary (total,
 * busiest day), and the numbers are in a table behind a disclosure.
 */
import { useQuery } from '@tanstack/react-query'
import { useId } from 'react'
import { client, unwrap } from '../api/client'
import { useI18n } from '../i18n/i18n'
import { useDay } from '../ui/time'

const WIDTH = 360
const HEIGHT = 80

export function ClicksChart({ linkId }: { linkId: string }) {
  const { t } = useI18n()
  const dayText = useDay()
  const id = useId()
  const clicks = useQuery({
    queryKey: ['link-clicks', linkId],
    queryFn: () =>
      unwrap(client.GET('/api/links/{id}/clicks', { params: { path: { id: linkId } } })),
  })
  if (clicks.data === undefined)
    return <div className="skeleton clicks-chart-skeleton" aria-hidden="true" />
  const { days, total } = clicks.data
  const peak = days.reduce(
    (best, day) => (day.clicks > best.clicks ? day : best),
    days[0] ?? { day: '', clicks: 0 },
  )
  const max = Math.max(1, peak.clicks)
  const bar = WIDTH / Math.max(1, days.length)
  const summary =
    total === 0
      ? t('golinks.chartNone')
      : t('golinks.chartSummary', { count: total, peak: peak.clicks, day: dayText(peak.day) })
  return (
    <figure className="clicks-chart" aria-labelledby={`${id}-caption`}>
      <figcaption id={`${id}-caption`}>{t('golinks.chartTitle')}</figcaption>
      <svg
        viewBox={`0 0 ${WIDTH} ${HEIGHT}`}
        width="100%"
        height={HEIGHT}
        role="img"
        aria-label={summary}
        preserveAspectRatio="none"
      >
        <line x1="0" y1={HEIGHT - 0.5} x2={WIDTH} y2={HEIGHT - 0.5} className="clicks-chart-axis" />
        {days.map((day, index) => {
          const height = day.clicks === 0 ? 0 : Math.max(2, (day.clicks / max) * (HEIGHT - 4))
          return (
            <rect
              key={day.day}
              x={index * bar + 0.5}
              y={HEIGHT - height}
              width={Math.max(1, bar - 1)}
              height={height}
              className="clicks-chart-bar"
            />
          )
        })}
      </svg>
      <p className="field-help">{summary}</p>
      {total > 0 && (
        <details>
          <summary>{t('golinks.chartTable')}</summary>
          <table className="table">
            <thead>
              <tr>
                <th scope="col">{t('golinks.chartDay')}</th>
                <th scope="col">{t('golinks.chartClicks')}</th>
              </tr>
            </thead>
            <tbody>
              {days
                .filter((day) => day.clicks > 0)
                .map((day) => (
                  <tr key={day.day}>
                    <td>
                      <time dateTime={day.day}>{dayText(day.day)}</time>
                    </td>
                    <td>{day.clicks}</td>
                  </tr>
                ))}
            </tbody>
          </table>
        </details>
      )}
    </figure>
  )
}
