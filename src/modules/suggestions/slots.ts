/**
 * At most MODEL_CALLS_IN_FLIGHT model calls at once per application instance: a burst of dialogs
 * (or a bulk tag suggestion) waits for a slot within its own deadline instead of piling up
 * connections to the provider.
 */
export const MODEL_CALLS_IN_FLIGHT = 4

interface Slots {
  busy: number
  waiting: Array<() => void>
}

const byInstance = new WeakMap<object, Slots>()

/**
 * Waits for a slot of `instance` until `signal` aborts; the release function, or null when the
 * deadline came first.
 */
export async function takeSlot(
  instance: object,
  signal: AbortSignal,
): Promise<(() => void) | null> {
  let slots = byInstance.get(instance)
  if (slots === undefined) byInstance.set(instance, (slots = { busy: 0, waiting: [] }))
  const own = slots
  const release = () => {
    const next = own.waiting.shift()
    if (next === undefined) own.busy--
    else next()
  }
  if (own.busy < MODEL_CALLS_IN_FLIGHT) {
    own.busy++
    return release
  }
  if (signal.aborted) return null
  return new Promise((resolve) => {
    const granted = () => {
      signal.removeEventListener('abort', gaveUp)
      resolve(release)
    }
    const gaveUp = () => {
      own.waiting.splice(own.waiting.indexOf(granted), 1)
      resolve(null)
    }
    own.waiting.push(granted)
    signal.addEventListener('abort', gaveUp, { once: true })
  })
}
