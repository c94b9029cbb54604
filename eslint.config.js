/**
 * One lint configuration for the service (src/), its tests (test/), the benchmark (bench/) and the
 * console (web/, when present). Type-aware rules from typescript-eslint catch what review misses:
 * floating or misused promises, unused code, and `any` (allowed only with an eslint-disable
 * comment that gives the reason). Formatting is Prettier's job (eslint-config-prettier turns the
 * overlapping rules off).
 */
import js from '@eslint/js'
import prettier from 'eslint-config-prettier'
import globals from 'globals'
import tseslint from 'typescript-eslint'

/** Selectors for the rule that a dialog's form is DialogForm (web/src/ui/dialog-form.tsx). */
const DIALOGS = 'ModalOverlay|Modal|Dialog|ActionDialog|FormDialog'
const DIALOG = `JSXElement[openingElement.name.name=/^(${DIALOGS})$/]`
const FORM = 'JSXOpeningElement[name.name="form"]'
/** A dialog's title: a form beside it is the dialog's, even when a component of its own has it. */
const TITLE =
  'JSXElement[openingElement.name.name="Heading"]' +
  ':has(JSXAttribute[name.name="slot"][value.value="title"])'

export default tseslint.config(
  { ignores: ['dist/', 'coverage/', 'node_modules/', 'web/dist/', 'web/node_modules/'] },
  {
    linterOptions: { reportUnusedDisableDirectives: 'error', reportUnusedInlineConfigs: 'error' },
  },
  js.configs.recommended,
  {
    files: ['**/*.{ts,tsx,mts,cts}'],
    extends: [tseslint.configs.recommendedTypeChecked],
    languageOptions: {
      parserOptions: { projectService: true, tsconfigRootDir: import.meta.dirname },
    },
    rules: {
      '@typescript-eslint/no-floating-promises': 'error',
      '@typescript-eslint/no-misused-promises': 'error',
      '@typescript-eslint/no-explicit-any': 'error',
      '@typescript-eslint/no-unused-vars': [
        'error',
        {
          argsIgnorePattern: '^_',
          varsIgnorePattern: '^_',
          caughtErrors: 'none',
          ignoreRestSiblings: true,
        },
      ],
      '@typescript-eslint/consistent-type-imports': ['error', { fixStyle: 'inline-type-imports' }],
      // Off: Fastify plugins and route factories are async functions by Fastify's contract, and
      // Kysely's driver interface is Promise-based; an `async` without `await` there is the
      // clearest way to meet the contract. Promises that are actually dropped are caught by
      // no-floating-promises and no-misused-promises.
      '@typescript-eslint/require-await': 'off',
      // Off: refusing control characters (in headers, path parameters, cursors, identity claims)
      // is deliberate, and a character class naming them is the clearest way to say so.
      'no-control-regex': 'off',
    },
  },
  {
    // Tests read responses as clients do, through `inject().json()`, which Fastify types as `any`;
    // the expect() assertions on those values are the checks. The rest of the type-aware rules
    // (floating promises, unused code, explicit any) apply to tests as to the service.
    files: ['**/*.test.ts', 'test/**/*.ts', 'web/e2e/**/*.ts'],
    rules: {
      '@typescript-eslint/no-unsafe-argument': 'off',
      '@typescript-eslint/no-unsafe-assignment': 'off',
      '@typescript-eslint/no-unsafe-call': 'off',
      '@typescript-eslint/no-unsafe-member-access': 'off',
      '@typescript-eslint/no-unsafe-return': 'off',
    },
  },
  {
    // React ignores what an event handler returns, so an async handler is not a misused promise;
    // promises everywhere else (effects, callbacks) are still checked.
    files: ['web/**/*.tsx'],
    rules: {
      '@typescript-eslint/no-misused-promises': [
        'error',
        { checksVoidReturn: { attributes: false } },
      ],
    },
  },
  {
    // A dialog's form is DialogForm (web/src/ui/dialog-form.tsx): React passes a submit up its own
    // tree, through the dialog's portal, to any form around the dialog's trigger, which would then
    // send its change a second time. Caught: a <form> written inside a dialog's elements, and one
    // beside the dialog's title (a form component that a dialog renders).
    files: ['web/src/**/*.tsx'],
    ignores: ['web/src/ui/dialog-form.tsx'],
    rules: {
      'no-restricted-syntax': [
        'error',
        {
          selector: `${DIALOG} ${FORM}`,
          message: 'A form in a dialog is DialogForm (ui/dialog-form.tsx): its submit stays in it.',
        },
        {
          selector: `${TITLE} ~ JSXElement > ${FORM}`,
          message: 'A form in a dialog is DialogForm (ui/dialog-form.tsx): its submit stays in it.',
        },
      ],
    },
  },
  {
    files: ['**/*.{js,mjs,cjs}'],
    extends: [tseslint.configs.disableTypeChecked],
    languageOptions: { globals: { ...globals.node } },
  },
  prettier,
)
