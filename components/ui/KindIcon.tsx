import { frameworkOf } from '../workloads/framework.ts';

/** The framework's mark: a coloured tile with the kind's initials, named for screen readers. */
export function KindIcon({ apiVersion, kind, size = 'sm' }: { apiVersion: string; kind: string; size?: 'sm' | 'lg' }) {
  const f = frameworkOf(apiVersion, kind);
  const box = size === 'lg' ? 'h-9 w-9 text-xs' : 'h-6 w-7 text-[10px]';
  return (
    <span
      className={`inline-flex shrink-0 items-center justify-center rounded font-bold tracking-tight ${box} ${f.tone}`}
      title={`${f.framework} · ${apiVersion}`}
      role="img"
      aria-label={f.framework}
    >
      {f.abbr}
    </span>
  );
}
