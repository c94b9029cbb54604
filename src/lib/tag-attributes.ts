/**
 * The attributes of the tag an htmlparser2 Tokenizer is reading, for a reader that keeps no
 * element tree (lib/page-reader.ts, the Netscape bookmark reader): only the attributes the reader
 * names are kept, each cut to its cap, so what one tag holds is bounded whatever the markup says.
 * The tokenizer reports positions; the reader's input gives the text at them.
 */

/** The input the tokenizer has read, by position. */
export interface TokenizedInput {
  slice(start: number, end: number): string
}

/** `current` with as much of `piece` as fits under `cap`. */
export const appendCapped = (current: string, piece: string, cap: number): string =>
  current.length >= cap ? current : current + piece.slice(0, cap - current.length)

/**
 * Collects the open tag's kept attributes from the Tokenizer's `onattribdata`, `onattribentity`
 * and `onattribend` callbacks (the reader delegates them here); the reader's `onattribname`
 * decides, through `begin`, which attribute is kept and up to how many characters.
 */
export class AttributeCollector {
  #attributes = new Map<string, string>()
  #attribute: { name: string; cap: number; value: string } | null = null

  constructor(private readonly input: TokenizedInput) {}

  /**
   * An attribute starts: kept up to `cap` characters when a cap is given and the tag has no
   * attribute of that name yet (the first of repeated attributes counts, as in HTML).
   */
  begin(name: string | null, cap: number | undefined): void {
    this.#attribute =
      name === null || cap === undefined || this.#attributes.has(name)
        ? null
        : { name, cap, value: '' }
  }

  onattribdata(start: number, end: number): void {
    const attribute = this.#attribute
    if (attribute !== null && attribute.value.length < attribute.cap)
      attribute.value = appendCapped(attribute.value, this.input.slice(start, end), attribute.cap)
  }

  onattribentity(codepoint: number): void {
    const attribute = this.#attribute
    if (attribute !== null)
      attribute.value = appendCapped(
        attribute.value,
        String.fromCodePoint(codepoint),
        attribute.cap,
      )
  }

  onattribend(): void {
    if (this.#attribute !== null) this.#attributes.set(this.#attribute.name, this.#attribute.value)
    this.#attribute = null
  }

  /** The kept attributes of the tag just read; the next tag starts with none. */
  take(): ReadonlyMap<string, string> {
    const attributes = this.#attributes
    this.#attributes = new Map()
    return attributes
  }
}
