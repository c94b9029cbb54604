import type { FormEvent } from 'react'
import { describe, expect, it } from 'vitest'
import { submitHere } from './dialog-form'

/** A submit event as React hands it to onSubmit: what the handler did to it is recorded. */
function submitEvent() {
  const done: string[] = []
  const event = {
    preventDefault: () => done.push('preventDefault'),
    stopPropagation: () => done.push('stopPropagation'),
  } as unknown as FormEvent<HTMLFormElement>
  return { event, done }
}

describe('submitHere', () => {
  it('keeps the page and stops the submit before the handler runs, so no outer form hears it', () => {
    const { event, done } = submitEvent()
    submitHere((received) => {
      expect(received).toBe(event)
      done.push('handler')
    })(event)
    expect(done).toEqual(['preventDefault', 'stopPropagation', 'handler'])
  })

  it('stops the submit for an async handler too, before its first await', () => {
    const { event, done } = submitEvent()
    submitHere(async () => {
      await Promise.resolve()
      done.push('handler finished')
    })(event)
    expect(done).toEqual(['preventDefault', 'stopPropagation'])
  })
})
