/**
 * Events that say the same thing about several objects — 2,000 pods that cannot be scheduled for the
 * same reason — as one entry naming how many objects said it, newest first. Pure; the CLI's describe
 * and the dashboard's timeline both read events this way.
 */
import type { EventItem } from '../../contract/pod.ts';

export interface EventGroup {
  /** The newest event of the group (its time, type and reason); its message with whitespace collapsed. */
  newest: EventItem;
  /** `kind/name` of every object that reported it, newest first. */
  objects: string[];
  /** Occurrences over all of them. */
  count: number;
}

export function groupEvents(events: readonly EventItem[]): EventGroup[] {
  const groups = new Map<string, EventGroup & { seen: Set<string> }>();
  for (const e of events) {
    const message = e.message.replace(/\s+/g, ' ').trim();
    const key = `${e.type}\u0000${e.reason}\u0000${message}`;
    const object = `${e.object.kind.toLowerCase()}/${e.object.name}`;
    const g = groups.get(key);
    if (!g) {
      groups.set(key, { newest: { ...e, message }, objects: [object], count: e.count, seen: new Set([object]) });
      continue;
    }
    g.count += e.count;
    if (!g.seen.has(object)) {
      g.seen.add(object);
      g.objects.push(object);
    }
    const t = (x: EventItem) => (x.last ? Date.parse(x.last) : 0);
    if (t(e) > t(g.newest)) g.newest = { ...e, message };
  }
  const t = (g: EventGroup) => (g.newest.last ? Date.parse(g.newest.last) : 0);
  return [...groups.values()].map(({ seen: _seen, ...g }) => g).sort((a, b) => t(b) - t(a));
}

/** `pod/x`, or `7 pods` (`3 objects` when of several kinds). */
export function objectsText(objects: readonly string[]): string {
  if (objects.length === 1) return objects[0];
  const kinds = new Set(objects.map((o) => o.slice(0, o.indexOf('/'))));
  return `${objects.length} ${kinds.size === 1 ? `${[...kinds][0]}s` : 'objects'}`;
}
