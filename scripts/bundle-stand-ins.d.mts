// Types of bundle-stand-ins.mjs for the test that checks it (test/bundle-stand-ins.test.ts).
export declare const STAND_INS: Record<
  string,
  { dependents: string[]; functions: string[]; objects: string[] }
>
export declare function standInSource(name: string): string
