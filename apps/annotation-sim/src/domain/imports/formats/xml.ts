/**
 * A small XML reader for the annotation files importers read (CVAT's `annotations.xml`, PASCAL VOC's
 * per-image files): start and end events with attributes and an element's text, as Python's
 * `ElementTree.iterparse` gives them. No DTDs, no namespaces; entities are the five predefined ones and
 * character references. A document that is not well-formed is refused with `ElementTree.ParseError`.
 */
import { ImportError } from './types';

export interface XmlElement {
  tag: string;
  attrib: Record<string, string>;
  /** The text before the first child (`el.text`): set when the element ends. */
  text: string;
  children: XmlElement[];
}

export type XmlEvent = { ev: 'start' | 'end'; el: XmlElement };

const ENTITIES: Record<string, string> = { lt: '<', gt: '>', amp: '&', quot: '"', apos: "'" };

const decode = (s: string) =>
  s.replace(/&(#x[0-9a-fA-F]+|#\d+|\w+);/g, (m, e: string) => {
    if (e.startsWith('#x')) return String.fromCodePoint(Number.parseInt(e.slice(2), 16));
    if (e.startsWith('#')) return String.fromCodePoint(Number.parseInt(e.slice(1), 10));
    return ENTITIES[e] ?? m;
  });

/** `xml.etree.ElementTree.ParseError` at a line and column as expat reports it. */
function parseError(text: string, at: number, what: string): ImportError {
  const before = text.slice(0, at);
  const line = before.split('\n').length;
  const column = at - (before.lastIndexOf('\n') + 1);
  return new ImportError('xml.etree.ElementTree.ParseError', `${what}: line ${line}, column ${column}`);
}

const ATTR = /([^\s=/>]+)\s*=\s*("([^"]*)"|'([^']*)')/g;

/**
 * The events of `text` in document order; with `tree` each element is kept on its parent's `children`
 * too (a reader of a big file leaves it off: elements it is done with are garbage, as `el.clear()`).
 */
export function* xmlEvents(text: string, tree = false): Generator<XmlEvent> {
  const stack: XmlElement[] = [];
  /** Whether each open element has had a child (its text is what came before the first). */
  const hadChild: boolean[] = [];
  let at = 0;
  let seenRoot = false;
  const n = text.length;
  while (at < n) {
    const lt = text.indexOf('<', at);
    if (lt < 0) {
      if (text.slice(at).trim() !== '') {
        throw parseError(text, at, seenRoot ? 'junk after document element' : 'syntax error');
      }
      break;
    }
    const top = stack[stack.length - 1];
    if (top && !hadChild[hadChild.length - 1]) top.text += decode(text.slice(at, lt));
    else if (!top && text.slice(at, lt).trim() !== '') throw parseError(text, at, 'syntax error');
    if (text.startsWith('<?', lt)) {
      const end = text.indexOf('?>', lt);
      if (end < 0) throw parseError(text, lt, 'unclosed token');
      at = end + 2;
    } else if (text.startsWith('<!--', lt)) {
      const end = text.indexOf('-->', lt);
      if (end < 0) throw parseError(text, lt, 'unclosed token');
      at = end + 3;
    } else if (text.startsWith('<![CDATA[', lt)) {
      const end = text.indexOf(']]>', lt);
      if (end < 0 || !top) throw parseError(text, lt, 'unclosed token');
      if (!hadChild[hadChild.length - 1]) top.text += text.slice(lt + 9, end);
      at = end + 3;
    } else if (text.startsWith('<!', lt)) {
      const end = text.indexOf('>', lt);
      if (end < 0) throw parseError(text, lt, 'unclosed token');
      at = end + 1;
    } else if (text.startsWith('</', lt)) {
      const end = text.indexOf('>', lt);
      const tag = text.slice(lt + 2, end < 0 ? n : end).trim();
      const el = stack.pop();
      hadChild.pop();
      if (end < 0 || !el || el.tag !== tag) throw parseError(text, lt, 'mismatched tag');
      at = end + 1;
      yield { ev: 'end', el };
    } else {
      const end = text.indexOf('>', lt);
      if (end < 0) throw parseError(text, lt, 'unclosed token');
      if (seenRoot && stack.length === 0) throw parseError(text, lt, 'junk after document element');
      const selfClosing = text[end - 1] === '/';
      const body = text.slice(lt + 1, selfClosing ? end - 1 : end);
      const tag = /^[^\s/>]+/.exec(body)?.[0];
      if (!tag) throw parseError(text, lt, 'not well-formed (invalid token)');
      const attrib: Record<string, string> = {};
      for (const m of body.slice(tag.length).matchAll(ATTR)) {
        attrib[m[1] as string] = decode((m[3] ?? m[4] ?? '').replace(/\s/g, ' '));
      }
      const el: XmlElement = { tag, attrib, text: '', children: [] };
      if (tree) stack[stack.length - 1]?.children.push(el);
      if (hadChild.length > 0) hadChild[hadChild.length - 1] = true;
      seenRoot = true;
      yield { ev: 'start', el };
      if (selfClosing) yield { ev: 'end', el };
      else {
        stack.push(el);
        hadChild.push(false);
      }
      at = end + 1;
    }
  }
  if (!seenRoot) throw parseError(text, n, 'no element found');
  if (stack.length > 0) throw parseError(text, n, 'no element found');
}

/** The document's root element, its subtree read whole (`ElementTree.parse(...).getroot()`). */
export function xmlTree(text: string): XmlElement {
  let root: XmlElement | undefined;
  for (const { ev, el } of xmlEvents(text, true)) if (ev === 'start' && !root) root = el;
  return root as XmlElement;
}

/** `el.find(tag)`: the first child of that tag. */
export const child = (el: XmlElement, tag: string) => el.children.find((c) => c.tag === tag);
