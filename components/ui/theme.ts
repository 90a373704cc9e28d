/**
 * Light/dark theme: follows the system unless the user picked one (kept in localStorage).
 * The same logic runs as an inline script before first paint (so a dark page never flashes white)
 * and in the toggle afterwards.
 */

export type ThemePreference = 'system' | 'light' | 'dark';
export const THEME_KEY = 'wmap-theme';

export function resolveTheme(pref: ThemePreference, systemDark: boolean): 'light' | 'dark' {
  return pref === 'system' ? (systemDark ? 'dark' : 'light') : pref;
}

export function nextPreference(pref: ThemePreference): ThemePreference {
  return pref === 'system' ? 'light' : pref === 'light' ? 'dark' : 'system';
}

export function parsePreference(v: string | null | undefined): ThemePreference {
  return v === 'light' || v === 'dark' ? v : 'system';
}

/** Runs in <head> before the body renders; kept tiny and dependency-free. */
export const THEME_BOOT_SCRIPT = `(function(){try{var p=localStorage.getItem('${THEME_KEY}');var d=p==='dark'||(p!=='light'&&matchMedia('(prefers-color-scheme: dark)').matches);var e=document.documentElement;e.classList.toggle('dark',d);e.style.colorScheme=d?'dark':'light';}catch(_){}})();`;
