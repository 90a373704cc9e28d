/**
 * The draft as YAML for people to edit: each guess a `# guess:` comment above the field it is about, and
 * the notes in the header, so that what needs a decision is read where it is decided.
 */
import { Document, isMap, isScalar, isSeq } from 'yaml';
import type { Definition } from '../definition/types.ts';

/** `a.b[2].c` → `['a', 'b', 2, 'c']`. */
function pathKeys(path: string): Array<string | number> {
  const out: Array<string | number> = [];
  for (const part of path.split('.')) {
    const m = /^([^[]*)((?:\[\d+\])*)$/.exec(part);
    if (!m) return [];
    if (m[1]) out.push(m[1]);
    for (const i of m[2].matchAll(/\[(\d+)\]/g)) out.push(Number(i[1]));
  }
  return out;
}

function commentLines(text: string): string {
  return text.split('\n').map((l) => ` ${l}`).join('\n');
}

export function renderDraftYaml(definition: Definition, guesses: ReadonlyArray<{ path: string; why: string }>, notes: readonly string[], from: string): string {
  const doc = new Document(definition);
  for (const g of guesses) {
    const keys = pathKeys(g.path);
    const last = keys[keys.length - 1];
    const holder = doc.getIn(keys.slice(0, -1), true);
    let node: { commentBefore?: string | null } | undefined;
    if (isMap(holder)) {
      const pair = holder.items.find((p) => isScalar(p.key) && p.key.value === last);
      if (pair && isScalar(pair.key)) node = pair.key;
    } else if (isSeq(holder) && typeof last === 'number') {
      const item = holder.items[last];
      if (isMap(item) || isScalar(item)) node = item;
    }
    if (!node) continue;
    const line = `guess: ${g.why}`;
    node.commentBefore = node.commentBefore ? `${node.commentBefore}\n${commentLines(line)}` : commentLines(line);
  }
  const header = [
    `Drafted by wmap from ${from ? `${definition.spec.structureDefinition.rootComponent.kind?.kind ?? 'an object'} ${from}` : 'a live object'}: review every "guess:" before registering it.`,
    ...notes.map((n) => `note: ${n}`),
  ];
  doc.commentBefore = commentLines(header.join('\n'));
  return doc.toString({ lineWidth: 0 });
}
