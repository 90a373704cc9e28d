// Placeholder home page until the live dashboard lands.
export default function HomePage() {
  return (
    <main className="mx-auto max-w-5xl p-8">
      <h1 className="text-2xl font-semibold">workload-map</h1>
      <p className="mt-2 text-slate-600 dark:text-slate-400">
        AI workloads on Kubernetes: one row per workload, with correct GPU totals.
      </p>
    </main>
  );
}
