// Types of build-if-stale.mjs for the test that checks it (test/npm-start.sqlite.test.ts).
export declare const INPUTS: string[]
export declare const STAMP: string
export declare function newestInput(
  root: string,
  inputs?: string[],
): { time: number; file: string | null }
export declare function staleReason(root: string, inputs?: string[]): string | null
export declare function writeStamp(root: string): void
