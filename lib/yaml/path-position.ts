/**
 * Where a field path (`spec.structureDefinition.childComponents[1].podSelector`) is in a YAML text:
 * the editor marks a validation error at the line of the field it names. A path that does not exist
 * (a required field that is missing) is marked at its nearest existing parent. Pure; the browser's.
 */
import { isMap, isNode, isPair, isScalar, isSeq, parseDocument, type Node } from 'yaml';

export interface TextRange {
  from: number;
  to: number;
  /** 1-based line of `from`. */
  line: number;
  /** The whole path was found (false: marked at a parent). */
  exact: boolean;
}

/** `a.b[2].c` and `a.b.2.c` and `a["x.y"]` → ['a', 'b', 2, 'c'], ['a', 'x.y']. */
export function pathSegments(path: string): Array<string | number> {
  const out: Array<string | number> = [];
  const re = /\[(\d+)\]|\["((?:[^"\\]|\\.)*)"\]|([^.[\]]+)/g;
  for (const m of path.matchAll(re)) {
    if (m[1] !== undefined) out.push(Number(m[1]));
    else if (m[2] !== undefined) out.push(m[2].replace(/\\(.)/g, '$1'));
    else if (/^\d+$/.test(m[3])) out.push(Number(m[3]));
    else out.push(m[3]);
  }
  return out;
}

function lineOf(text: string, offset: number): number {
  let n = 1;
  for (let i = 0; i < offset && i < text.length; i++) if (text.charCodeAt(i) === 10) n++;
  return n;
}

/** The range of the key (for a map entry) or the item (for a list entry) the path names. */
export function rangeOfPath(text: string, path: string): TextRange | null {
  let doc;
  try {
    doc = parseDocument(text, { keepSourceTokens: false });
  } catch {
    return null;
  }
  // Text that is not YAML has no fields to point at (its parse errors carry their own positions).
  if (doc.errors.length > 0) return null;
  let node: unknown = doc.contents;
  let best: [number, number] | null = node && isNode(node) && (node as Node).range ? [(node as Node).range![0], (node as Node).range![1]] : null;
  const segs = pathSegments(path);
  let exact = true;
  for (const seg of segs) {
    if (isMap(node)) {
      const pair = node.items.find((p) => isPair(p) && isScalar(p.key) && String(p.key.value) === String(seg));
      if (!pair) {
        exact = false;
        break;
      }
      const key = pair.key as Node;
      if (key.range) best = [key.range[0], key.range[1]];
      node = pair.value;
    } else if (isSeq(node) && typeof seg === 'number') {
      const item = node.items[seg] as Node | undefined;
      if (!item) {
        exact = false;
        break;
      }
      if (item.range) best = [item.range[0], item.range[1]];
      node = item;
    } else {
      exact = false;
      break;
    }
  }
  if (!best) return null;
  return { from: best[0], to: Math.max(best[0] + 1, best[1]), line: lineOf(text, best[0]), exact };
}
