'use client';

import { useQuery } from '@tanstack/react-query';
import { fetchApiJson } from '../workload/fetch-json.ts';

interface Me {
  user: string;
  groups: string[];
  via: string;
  mode: 'local' | 'shared';
  writes: { enabled: boolean; reason: string | null };
}

const VIA: Record<string, string> = { local: 'your kubeconfig', 'access-token': 'the access token', token: 'a Kubernetes token', oidc: 'your identity provider', proxy: 'the authenticating proxy' };

/** Who the dashboard acts as; in shared mode with a sign-out (the session ends on the server too). */
export function UserMenu() {
  const me = useQuery({ queryKey: ['me'], queryFn: () => fetchApiJson<Me>('/api/me'), staleTime: 60_000 });
  if (!me.data) return null;
  const m = me.data;
  const title = `${m.mode === 'shared' ? 'Signed in' : 'Acting'} as ${m.user} through ${VIA[m.via] ?? m.via}${m.groups.length ? ` · groups: ${m.groups.join(', ')}` : ''}${m.writes.enabled ? '' : ` · ${m.writes.reason}`}`;
  async function signOut() {
    await fetch('/auth/signout', { method: 'POST', headers: { 'content-type': 'application/json', accept: 'application/json' }, body: '{}' }).catch(() => null);
    window.location.assign('/signin');
  }
  return (
    <div className="flex items-center gap-2 text-xs" data-testid="user-menu">
      <span title={title} className="max-w-[14rem] truncate rounded border border-slate-300 px-1.5 py-0.5 dark:border-slate-700" data-testid="user-name">
        <span className="sr-only">{title}</span>
        <span aria-hidden="true">{m.mode === 'shared' ? m.user : 'local · kubeconfig'}</span>
      </span>
      {m.mode === 'shared' && (
        <button type="button" onClick={() => void signOut()} className="rounded px-1.5 py-0.5 text-sky-700 hover:underline dark:text-sky-400" data-testid="sign-out">
          Sign out
        </button>
      )}
    </div>
  );
}
