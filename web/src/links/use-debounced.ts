import { useEffect, useState } from 'react'

/**
 * The value once it has stopped changing for `delay` ms (typing-driven lookups ask the API once).
 */
export function useDebounced<T>(value: T, delay = 250): T {
  const [settled, setSettled] = useState(value)
  useEffect(() => {
    const timer = window.setTimeout(() => setSettled(value), delay)
    return () => window.clearTimeout(timer)
  }, [value, delay])
  return settled
}
