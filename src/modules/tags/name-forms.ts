/**
 * When two tag names are one tag. A name is unique per user ignoring case (its key is the
 * lower-cased name); an import also reads a simple English plural as the same tag, so a file's
 * "Comics" lands on an existing "comic" instead of becoming a second tag beside it.
 */

/** Names differing only in case are the same name: the unique key of a user's tag. */
export function tagNameKey(name: string): string {
  return name.toLowerCase()
}

/** The shortest stem a plural is taken from: "as" is not the plural of "a". */
const MIN_STEM = 2

/**
 * The keys a tag with this key is also written as: itself first, then with a trailing "s" or "es"
 * added, or removed ("comic" ⇄ "comics", "box" ⇄ "boxes", "class" ⇄ "classes"). Irregular plurals
 * are left alone; a false pair ("new", "news") merges only when the person has both forms.
 */
export function pluralFormsOf(key: string): string[] {
  const forms = [key]
  if ([...key].length >= MIN_STEM) forms.push(`${key}s`, `${key}es`)
  for (const ending of ['s', 'es']) {
    const stem = key.slice(0, -ending.length)
    if (key.endsWith(ending) && [...stem].length >= MIN_STEM) forms.push(stem)
  }
  return [...new Set(forms)]
}
