// Types of lint-docs.mjs for the test that checks it (test/lint-docs.sqlite.test.ts).
export declare const README_MAX_BYTES: number
export declare const ARCHITECTURE_MAX_BYTES: number
export declare const COMMENT_MAX_CHARACTERS: number
export interface DocProblem {
  file: string
  line: number
  problem: string
}
export declare function headingAnchor(heading: string): string
export declare function headingAnchors(markdown: string): Set<string>
export declare function findDocProblems(
  root: string,
  options?: { openApiText?: string },
): DocProblem[]
