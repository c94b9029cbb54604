/**
 * The sign-in pages ask the API without the query cache, which is not part of their chunk
 * (the sign-in page's size budget, web/vite.config.ts): one read on mount, and one action at a
 * time.
 */
import { useCallback, useEffect, useRef, useState } from 'react'

/**
 * The answer of `load`, asked once when the page mounts; undefined until it arrives or when it
 * fails.
 */
export function useLoad<T>(load: () => Promise<T>): T | undefined {
  const [data, setData] = useState<T>()
  const first = useRef(load)
  useEffect(() => {
    let active = true
    first.current().then(
      (value) => active && setData(() => value),
      () => undefined, // the page works without it (the form still answers with the API's reason)
    )
    return () => {
      active = false
    }
  }, [])
  return data
}

export interface Action<Input> {
  mutate: (input: Input) => void
  isPending: boolean
  isSuccess: boolean
}

/** Runs `run` on demand, tracks pending/success and hands the outcome to onSuccess or onError. */
export function useAction<Input, Output>(
  run: (input: Input) => Promise<Output>,
  handlers: {
    onSuccess?: (output: Output, input: Input) => void
    onError?: (error: unknown) => void
  },
): Action<Input> {
  const [state, setState] = useState<'idle' | 'pending' | 'success'>('idle')
  const latest = useRef({ run, handlers })
  latest.current = { run, handlers }
  const mutate = useCallback((input: Input) => {
    setState('pending')
    latest.current.run(input).then(
      (output) => {
        setState('success')
        latest.current.handlers.onSuccess?.(output, input)
      },
      (error: unknown) => {
        setState('idle')
        latest.current.handlers.onError?.(error)
      },
    )
  }, [])
  return { mutate, isPending: state === 'pending', isSuccess: state === 'success' }
}
