'use client';

import Link from 'next/link';
import { usePathname } from 'next/navigation';
import { useSyncExternalStore } from 'react';
import { subscribeTableHref, tableHref } from '../workloads/last-view.ts';
import { ClustersMenu } from './ClustersMenu.tsx';
import { ConnectionIndicator } from './ConnectionIndicator.tsx';
import { ThemeToggle } from './ThemeToggle.tsx';
import { UserMenu } from './UserMenu.tsx';

const NAV = [
  { href: '/', label: 'Workloads', match: (p: string) => p === '/' || p.startsWith('/workloads') },
  { href: '/definitions', label: 'Definitions', match: (p: string) => p.startsWith('/definitions') },
  { href: '/nodes', label: 'Nodes', match: (p: string) => p.startsWith('/nodes') },
  { href: '/studio', label: 'Studio', match: (p: string) => p.startsWith('/studio') },
  { href: '/audit', label: 'Audit', match: (p: string) => p.startsWith('/audit') },
];

export function AppHeader() {
  const path = usePathname() ?? '/';
  // "Workloads" returns to the table as it was left (filters, sort), not to an unfiltered one. The
  // server and hydration render the plain link: the view is only known in the browser.
  const workloadsHref = useSyncExternalStore(subscribeTableHref, tableHref, () => '/');
  return (
    <header className="flex h-12 shrink-0 items-center gap-6 border-b border-slate-200 px-4 dark:border-slate-800">
      <Link href="/" className="flex items-center gap-2 font-semibold tracking-tight">
        <span aria-hidden="true" className="inline-block h-5 w-5 rounded bg-gradient-to-br from-emerald-500 to-sky-600" />
        workload-map
      </Link>
      <nav aria-label="Main" className="flex gap-1 text-sm">
        {NAV.map((n) => {
          const on = n.match(path);
          return (
            <Link
              key={n.href}
              href={n.href === '/' ? workloadsHref : n.href}
              aria-current={on ? 'page' : undefined}
              className={`rounded-md px-2 py-1 ${on ? 'bg-slate-100 font-medium text-slate-900 dark:bg-slate-800 dark:text-white' : 'text-slate-600 hover:text-slate-900 dark:text-slate-400 dark:hover:text-white'}`}
            >
              {n.label}
            </Link>
          );
        })}
      </nav>
      <div className="ml-auto flex items-center gap-3">
        <ConnectionIndicator />
        <ClustersMenu />
        <UserMenu />
        <ThemeToggle />
      </div>
    </header>
  );
}
