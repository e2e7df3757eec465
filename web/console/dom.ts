/** Options for {@link h}: a class, text, attributes and event listeners, nothing more (the console is plain DOM). */
export interface ElementOptions {
  readonly className?: string
  readonly text?: string
  readonly attrs?: Readonly<Record<string, string>>
  readonly title?: string
  readonly onClick?: () => void
}

/** Creates an element: a tiny stand-in for a framework, enough for a tab strip and a status line. */
export function h<K extends keyof HTMLElementTagNameMap>(
  tag: K,
  options: ElementOptions = {},
  ...children: ReadonlyArray<Node | string>
): HTMLElementTagNameMap[K] {
  const element = document.createElement(tag)
  if (options.className) element.className = options.className
  if (options.text !== undefined) element.textContent = options.text
  if (options.title !== undefined) element.title = options.title
  for (const [name, value] of Object.entries(options.attrs ?? {})) element.setAttribute(name, value)
  if (options.onClick) element.addEventListener('click', options.onClick)
  element.append(...children)
  return element
}
