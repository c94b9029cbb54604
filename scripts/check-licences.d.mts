// Types of check-licences.mjs for the test that checks it (test/licences.test.ts).
export declare const ALLOWED: Set<string>
export declare function isAllowed(expression: unknown): boolean
export declare function findProblems(
  lock: { packages?: Record<string, Record<string, unknown>> },
  root?: string,
): { location: string; name: string; version: string; licence: string }[]
