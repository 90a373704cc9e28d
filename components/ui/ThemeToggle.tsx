'use client';

import { useCallback, useEffect, useState, useSyncExternalStore } from 'react';
import { THEME_KEY, nextPreference, parsePreference, resolveTheme } from './theme.ts';
import type { ThemePreference } from './theme.ts';

const media = () => window.matchMedia('(prefers-color-scheme: dark)');

function subscribeSystem(fn: () => void): () => void {
  const m = media();
  m.addEventListener('change', fn);
  return () => m.removeEventListener('change', fn);
}

/** The theme in effect (for components such as the graph that need it as a value). */
export function useResolvedTheme(): 'light' | 'dark' {
  return useSyncExternalStore(
    (fn) => {
      const obs = new MutationObserver(fn);
      obs.observe(document.documentElement, { attributes: true, attributeFilter: ['class'] });
      return () => obs.disconnect();
    },
    () => (document.documentElement.classList.contains('dark') ? 'dark' : 'light'),
    () => 'light',
  );
}

function apply(pref: ThemePreference): void {
  const dark = resolveTheme(pref, media().matches) === 'dark';
  document.documentElement.classList.toggle('dark', dark);
  document.documentElement.style.colorScheme = dark ? 'dark' : 'light';
}

const LABELS: Record<ThemePreference, string> = { system: 'System theme', light: 'Light theme', dark: 'Dark theme' };
const ICONS: Record<ThemePreference, string> = { system: '◐', light: '☀', dark: '☾' };

export function ThemeToggle() {
  const [pref, setPref] = useState<ThemePreference>('system');
  useEffect(() => {
    setPref(parsePreference(localStorage.getItem(THEME_KEY)));
  }, []);
  const systemDark = useSyncExternalStore(subscribeSystem, () => media().matches, () => false);
  useEffect(() => {
    apply(pref);
  }, [pref, systemDark]);
  const cycle = useCallback(() => {
    setPref((p) => {
      const n = nextPreference(p);
      if (n === 'system') localStorage.removeItem(THEME_KEY);
      else localStorage.setItem(THEME_KEY, n);
      return n;
    });
  }, []);
  return (
    <button
      type="button"
      onClick={cycle}
      className="inline-flex h-8 w-8 items-center justify-center rounded-md border border-slate-300 text-base hover:bg-slate-100 dark:border-slate-700 dark:hover:bg-slate-800"
      aria-label={`${LABELS[pref]} (click to change)`}
      title={`${LABELS[pref]} — click to change`}
    >
      <span aria-hidden="true">{ICONS[pref]}</span>
    </button>
  );
}
