/**
 * The framework behind a kind, for the table's icon: JobSet, Kubeflow, Ray, KServe … keyed by the
 * API group so that e.g. a Knative `Service` is not mistaken for a core `Service`.
 */

export interface FrameworkInfo {
  framework: string;
  /** Two or three letters drawn in the icon. */
  abbr: string;
  /** Tailwind classes for the icon's colours (light and dark). */
  tone: string;
}

const TONES = {
  indigo: 'bg-indigo-100 text-indigo-800 dark:bg-indigo-950 dark:text-indigo-200',
  orange: 'bg-orange-100 text-orange-800 dark:bg-orange-950 dark:text-orange-200',
  sky: 'bg-sky-100 text-sky-800 dark:bg-sky-950 dark:text-sky-200',
  teal: 'bg-teal-100 text-teal-800 dark:bg-teal-950 dark:text-teal-200',
  violet: 'bg-violet-100 text-violet-800 dark:bg-violet-950 dark:text-violet-200',
  cyan: 'bg-cyan-100 text-cyan-800 dark:bg-cyan-950 dark:text-cyan-200',
  lime: 'bg-lime-100 text-lime-800 dark:bg-lime-950 dark:text-lime-200',
  slate: 'bg-slate-200 text-slate-800 dark:bg-slate-800 dark:text-slate-200',
  stone: 'bg-stone-200 text-stone-800 dark:bg-stone-800 dark:text-stone-200',
  rose: 'bg-rose-100 text-rose-800 dark:bg-rose-950 dark:text-rose-200',
} as const;

const KIND_ABBR: Record<string, string> = {
  JobSet: 'JS',
  PyTorchJob: 'PT',
  MPIJob: 'MPI',
  TFJob: 'TF',
  XGBoostJob: 'XGB',
  PaddleJob: 'PD',
  JAXJob: 'JAX',
  TrainJob: 'TJ',
  RayCluster: 'RC',
  RayJob: 'RJ',
  RayService: 'RS',
  LeaderWorkerSet: 'LWS',
  InferenceService: 'IS',
  Service: 'Kn',
  NIMService: 'NIM',
  NIMCache: 'NIM',
  Job: 'Job',
  CronJob: 'CJ',
  Deployment: 'Dep',
  StatefulSet: 'STS',
  ReplicaSet: 'RS',
  DaemonSet: 'DS',
  Pod: 'Pod',
};

const GROUPS: Record<string, { framework: string; tone: string }> = {
  'jobset.x-k8s.io': { framework: 'JobSet', tone: TONES.indigo },
  'kubeflow.org': { framework: 'Kubeflow', tone: TONES.orange },
  'trainer.kubeflow.org': { framework: 'Kubeflow Trainer', tone: TONES.orange },
  'ray.io': { framework: 'Ray', tone: TONES.sky },
  'leaderworkerset.x-k8s.io': { framework: 'LeaderWorkerSet', tone: TONES.teal },
  'serving.kserve.io': { framework: 'KServe', tone: TONES.violet },
  'serving.knative.dev': { framework: 'Knative', tone: TONES.cyan },
  'apps.nvidia.com': { framework: 'NVIDIA NIM', tone: TONES.lime },
  batch: { framework: 'Kubernetes batch', tone: TONES.slate },
  apps: { framework: 'Kubernetes apps', tone: TONES.slate },
  '': { framework: 'Kubernetes core', tone: TONES.stone },
};

export function apiGroup(apiVersion: string): string {
  const i = apiVersion.indexOf('/');
  return i < 0 ? '' : apiVersion.slice(0, i);
}

export function frameworkOf(apiVersion: string, kind: string): FrameworkInfo {
  const group = apiGroup(apiVersion);
  const g = GROUPS[group] ?? { framework: group || 'Kubernetes', tone: TONES.rose };
  const abbr = KIND_ABBR[kind] ?? (kind.replace(/[a-z]/g, '').slice(0, 3) || kind.slice(0, 2));
  return { framework: g.framework, abbr, tone: g.tone };
}
