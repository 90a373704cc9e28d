'use client';

/** Registering the definition in a cluster (filled in with the registration endpoint). */
export function RegisterPanel({ valid, name }: { text: string; valid: boolean; name: string | null }) {
  return (
    <section aria-label="Register" className="rounded border border-slate-200 p-2 text-sm dark:border-slate-800" data-testid="studio-register">
      {valid ? `Register ${name} in a cluster: coming with the registration step.` : 'Fix the errors to register it.'}
    </section>
  );
}
