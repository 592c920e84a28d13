// DOM nodes from plain values: text is set with textContent, never parsed as HTML.

/** `<tag attributes…>text</tag>`. */
export function el(tag, attributes = {}, text) {
  const node = document.createElement(tag);
  for (const [name, value] of Object.entries(attributes)) node.setAttribute(name, value);
  if (text != null) node.textContent = text;
  return node;
}
