/**
 * The audit log of writes: every attempt, accepted or refused, as a structured `audit` log record
 * (written whatever the log level: who changed what must not depend on it) and in a bounded list of
 * recent actions that the dashboard's audit page shows. The list lives on globalThis because the
 * route handlers are bundled apart from the server that also writes to it (Next.js).
 */
import type { AuditItem } from '../../contract/index.ts';
import { logger } from '../log/index.ts';

/** An audit item as the API lists it, with what was sent (kept for the log, not shown). */
export interface AuditEntry extends AuditItem {
  /** What was (or would have been) sent: the JSON patch, or the delete's options; null when nothing was planned. */
  sent: { patch: unknown[] } | { delete: { propagationPolicy: string; resourceVersion: string } } | null;
}

const KEY = Symbol.for('workload-map.audit-trail');
export const AUDIT_KEPT = 500;

function trail(): AuditEntry[] {
  const g = globalThis as Record<symbol, unknown>;
  let t = g[KEY] as AuditEntry[] | undefined;
  if (!t) g[KEY] = t = [];
  return t;
}

function auditLog(): ReturnType<typeof logger> {
  const l = logger('audit');
  if (!l.isLevelEnabled('info')) l.level = 'info';
  return l;
}

export function recordAudit(e: Omit<AuditEntry, 'at'>): AuditEntry {
  const entry: AuditEntry = { at: new Date().toISOString(), ...e };
  const { object, sent, ...rest } = entry;
  auditLog().info({ ...rest, ...(sent ?? {}), object: `${object.kind} ${object.namespace ? `${object.namespace}/` : ''}${object.name}`, apiVersion: object.apiVersion }, `${e.action} ${object.kind} ${object.namespace ? `${object.namespace}/` : ''}${object.name}: ${e.result}`);
  const t = trail();
  t.push(entry);
  if (t.length > AUDIT_KEPT) t.splice(0, t.length - AUDIT_KEPT);
  return entry;
}

/** Recent entries, newest first. */
export function recentAudit(): AuditEntry[] {
  return [...trail()].reverse();
}
