/** Lifetimes of new API tokens: every one expires; the instance may lower the ceiling. */
export const DEFAULT_LIFETIME_DAYS = 30
export const LIFETIME_CEILING_DAYS = 365
