/** Drops the named databases on the server at `url`, `parallel` at a time. */
export function dropAll(url: string, names: string[], parallel: number): Promise<void>
