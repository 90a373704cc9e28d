import type { Metadata } from 'next';
import type { ReactNode } from 'react';
import { AppHeader } from '@/components/ui/AppHeader.tsx';
import { THEME_BOOT_SCRIPT } from '@/components/ui/theme.ts';
import { Providers } from './providers.tsx';
import './globals.css';

export const metadata: Metadata = {
  title: 'workload-map',
  description: 'AI workloads on Kubernetes, one row per workload, with correct GPU totals.',
  icons: { icon: '/icon.svg' },
};

export default function RootLayout({ children }: { children: ReactNode }) {
  return (
    // The theme class is set before paint by the boot script, so it differs from the server's HTML.
    <html lang="en" suppressHydrationWarning>
      <head>
        <script dangerouslySetInnerHTML={{ __html: THEME_BOOT_SCRIPT }} />
      </head>
      <body className="flex h-screen flex-col bg-white text-slate-900 antialiased dark:bg-slate-950 dark:text-slate-100">
        <Providers>
          <AppHeader />
          {children}
        </Providers>
      </body>
    </html>
  );
}
