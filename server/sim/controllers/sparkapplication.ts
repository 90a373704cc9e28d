/**
 * Kubeflow Spark operator (sparkoperator.k8s.io/v1beta2 SparkApplication, operator v2.5) together with the
 * part of Spark's Kubernetes scheduler backend that makes pods. The operator "runs spark-submit": the
 * driver pod `<app>-driver` (controller: the SparkApplication), Spark's headless `<prefix>-driver-svc`
 * and `spark-drv-<hex>-conf-map` (owned by the driver pod), then the web UI Service `<app>-ui-svc`.
 * Once the driver runs, "the driver" creates executor pods `<prefix>-exec-<id>` (`<prefix>` =
 * `<app>-<16 hex>`, ids from 1) whose controller is the driver pod, with the app's non-controller
 * reference from the operator's executor template (v2.4+); a failed executor is deleted and replaced
 * under a new id, and when the driver ends its executors are deleted. The operator's state machine:
 * "" → SUBMITTED → RUNNING → SUCCEEDING → COMPLETED, or FAILING → FAILED / PENDING_RERUN (restart
 * policy), SUSPENDING → SUSPENDED → RESUMING on spec.suspend; executorState per pod, TTL after the end.
 */

import { sha1Hex } from './random.ts';
import type { Rng } from './random.ts';
import { ctrlRef, isPodRunning, mergeMaps } from './meta.ts';
import { buildPod, SIM } from './pods.ts';
import type { Controller, Runtime } from './runtime.ts';
import { service } from './services.ts';
import type { Container, KubeObject, OwnerReference, Pod, StringMap } from './types.ts';

export const SPARK_API = 'sparkoperator.k8s.io/v1beta2';
const OP = 'sparkoperator.k8s.io';
const UI_PORT = 4040;

interface SparkPodSpec {
  cores?: number;
  coreRequest?: string;
  memory?: string;
  gpu?: { name: string; quantity: number };
  image?: string;
  labels?: StringMap;
  annotations?: StringMap;
  nodeSelector?: StringMap;
  serviceAccount?: string;
}

export interface SparkApplicationSpec {
  type?: string;
  sparkVersion?: string;
  image?: string;
  mainClass?: string;
  mainApplicationFile?: string;
  arguments?: string[];
  nodeSelector?: StringMap;
  suspend?: boolean;
  timeToLiveSeconds?: number;
  restartPolicy?: { type?: 'Never' | 'OnFailure' | 'Always'; onFailureRetries?: number };
  driver: SparkPodSpec;
  executor: SparkPodSpec & { instances?: number };
  dynamicAllocation?: { enabled?: boolean; initialExecutors?: number; minExecutors?: number; maxExecutors?: number };
}

export type AppState =
  | '' | 'SUBMITTED' | 'RUNNING' | 'SUCCEEDING' | 'COMPLETED' | 'FAILING' | 'FAILED' | 'SUBMISSION_FAILED'
  | 'PENDING_RERUN' | 'INVALIDATING' | 'SUSPENDING' | 'SUSPENDED' | 'RESUMING' | 'UNKNOWN';

export interface SparkApplicationStatus {
  applicationState?: { state: AppState; errorMessage?: string };
  driverInfo?: { podName?: string; webUIServiceName?: string; webUIPort?: number; webUIAddress?: string };
  executorState?: Record<string, string>;
  sparkApplicationId?: string;
  submissionID?: string;
  lastSubmissionAttemptTime?: string;
  terminationTime?: string;
  executionAttempts?: number;
  submissionAttempts?: number;
}

/** What one submission is called: ids the real components draw at random, derived here from the submission id. */
export function submissionNames(app: KubeObject, submissionID: string, submittedAt: string): { appId: string; prefix: string; confHex: string } {
  const h = sha1Hex(submissionID) + sha1Hex(`${submissionID}/app`);
  // Spark's uniqueID: 6 random hex + the low 40 bits of the launch time in milliseconds.
  const time = (BigInt(Date.parse(submittedAt)) & 0xffffffffffn).toString(16).padStart(10, '0');
  return { appId: `spark-${h.slice(0, 32)}`, prefix: `${app.metadata.name}-${h.slice(32, 38)}${time}`, confHex: h.slice(40, 56) };
}

/** Executors the driver asks for: instances, or with dynamic allocation Spark's initial number. */
export function wantedExecutors(spec: SparkApplicationSpec): number {
  const da = spec.dynamicAllocation;
  if (da?.enabled) return Math.max(spec.executor.instances ?? 0, da.initialExecutors ?? 0, da.minExecutors ?? 0);
  return spec.executor.instances ?? 1;
}

/** Memory a Spark pod asks for: the JVM heap plus overhead (10%, at least 384 MiB; 40% for non-JVM apps), in MiB. */
export function podMemoryMiB(memory: string | undefined, type: string | undefined): number {
  const m = /^(\d+)([kmgt]?)b?$/i.exec((memory ?? '1g').trim());
  const n = m ? Number(m[1]) : 1024;
  const unit = (m?.[2] ?? 'm').toLowerCase();
  const mib = unit === 'g' ? n * 1024 : unit === 't' ? n * 1024 * 1024 : unit === 'k' ? Math.ceil(n / 1024) : n;
  const factor = type === 'Python' || type === 'R' ? 0.4 : 0.1;
  return mib + Math.max(384, Math.floor(mib * factor));
}

function resources(p: SparkPodSpec, type: string | undefined): Container['resources'] {
  const mem = `${podMemoryMiB(p.memory, type)}Mi`;
  const gpu = p.gpu && p.gpu.quantity > 0 ? { [p.gpu.name]: String(p.gpu.quantity) } : {};
  return { requests: { cpu: p.coreRequest ?? String(p.cores ?? 1), memory: mem }, limits: { memory: mem, ...gpu } };
}

function appRef(app: KubeObject, controller: boolean): OwnerReference {
  return controller ? ctrlRef(app) : { apiVersion: app.apiVersion, kind: app.kind, name: app.metadata.name!, uid: app.metadata.uid! };
}

function podRef(pod: Pod): OwnerReference {
  // Spark's own references: controller, no blockOwnerDeletion.
  return { apiVersion: 'v1', kind: 'Pod', name: pod.metadata.name!, uid: pod.metadata.uid!, controller: true };
}

function operatorLabels(app: KubeObject, submissionID: string): StringMap {
  return {
    [`${OP}/app-name`]: app.metadata.name!,
    [`${OP}/launched-by-spark-operator`]: 'true',
    // No pod templates in the spec: the operator's webhook mutates the pods (GPUs, node selectors …).
    [`${OP}/mutated-by-spark-operator`]: 'true',
    [`${OP}/submission-id`]: submissionID,
  };
}

function sparkLabels(app: KubeObject, appId: string, role: 'driver' | 'executor', spec: SparkApplicationSpec): StringMap {
  return { 'spark-app-name': app.metadata.name!, 'spark-app-selector': appId, 'spark-role': role, 'spark-version': spec.sparkVersion ?? '3.5.0' };
}

export function driverPod(app: KubeObject, st: SparkApplicationStatus): Pod {
  const spec = app.spec as SparkApplicationSpec;
  const { appId, confHex } = submissionNames(app, st.submissionID!, st.lastSubmissionAttemptTime!);
  const name = st.driverInfo!.podName!;
  const ns = app.metadata.namespace!;
  const d = spec.driver;
  const image = d.image ?? spec.image ?? 'apache/spark:3.5.5';
  const args = ['driver', '--properties-file', '/opt/spark/conf/spark.properties', '--class', spec.mainClass ?? 'org.apache.spark.deploy.PythonRunner', spec.mainApplicationFile ?? '', ...(spec.arguments ?? [])];
  return buildPod({
    namespace: ns,
    name,
    template: {
      spec: {
        containers: [{
          name: 'spark-kubernetes-driver',
          image,
          imagePullPolicy: 'IfNotPresent',
          args,
          env: [
            { name: 'SPARK_USER', value: 'spark' },
            { name: 'SPARK_APPLICATION_ID', value: appId },
            { name: 'SPARK_DRIVER_BIND_ADDRESS', valueFrom: { fieldRef: { apiVersion: 'v1', fieldPath: 'status.podIP' } } },
            { name: 'SPARK_LOCAL_DIRS', value: '/var/data/spark-local-dir-1' },
            { name: 'SPARK_CONF_DIR', value: '/opt/spark/conf' },
          ],
          ports: [
            { name: 'driver-rpc-port', containerPort: 7078, protocol: 'TCP' },
            { name: 'blockmanager', containerPort: 7079, protocol: 'TCP' },
            { name: 'spark-ui', containerPort: UI_PORT, protocol: 'TCP' },
          ],
          resources: resources(d, spec.type),
          volumeMounts: [{ name: 'spark-local-dir-1', mountPath: '/var/data/spark-local-dir-1' }, { name: 'spark-conf-volume-driver', mountPath: '/opt/spark/conf' }],
        }],
        ...(mergeMaps(spec.nodeSelector, d.nodeSelector) ? { nodeSelector: mergeMaps(spec.nodeSelector, d.nodeSelector) } : {}),
        ...(d.serviceAccount ? { serviceAccountName: d.serviceAccount } : {}),
        volumes: [
          { name: 'spark-local-dir-1', emptyDir: {} },
          { name: 'spark-conf-volume-driver', configMap: { name: `spark-drv-${confHex}-conf-map`, defaultMode: 420, items: [{ key: 'spark.properties', path: 'spark.properties', mode: 420 }] } },
        ],
      },
    },
    labels: { ...mergeMaps(app.metadata.labels, d.labels), ...sparkLabels(app, appId, 'driver', spec), ...operatorLabels(app, st.submissionID!) },
    annotations: d.annotations,
    ownerRef: appRef(app, true),
    hostname: name,
    restartPolicy: 'Never',
  });
}

/** Spark's own objects next to the driver: its headless Service and its properties ConfigMap. */
export function driverSideObjects(app: KubeObject, st: SparkApplicationStatus, driver: Pod): KubeObject[] {
  const { appId, prefix, confHex } = submissionNames(app, st.submissionID!, st.lastSubmissionAttemptTime!);
  const ns = app.metadata.namespace!;
  const svc = service({
    name: `${prefix}-driver-svc`.slice(0, 63),
    namespace: ns,
    headless: true,
    labels: { 'spark-app-selector': appId },
    selector: Object.fromEntries(Object.entries(driver.metadata.labels ?? {})),
    ports: [{ name: 'driver-rpc-port', port: 7078 }, { name: 'blockmanager', port: 7079 }, { name: 'spark-ui', port: UI_PORT }],
  });
  svc.metadata.ownerReferences = [podRef(driver)];
  const cm: KubeObject = {
    apiVersion: 'v1',
    kind: 'ConfigMap',
    metadata: { name: `spark-drv-${confHex}-conf-map`, namespace: ns, labels: { 'spark-app-selector': appId }, ownerReferences: [podRef(driver)] },
    data: {
      'spark.properties': [
        `spark.app.id=${appId}`, `spark.app.name=${app.metadata.name}`, `spark.driver.host=${prefix}-driver-svc.${ns}.svc`, 'spark.driver.port=7078',
        `spark.kubernetes.driver.pod.name=${driver.metadata.name}`, `spark.kubernetes.executor.podNamePrefix=${prefix}`, `spark.kubernetes.namespace=${ns}`,
        'spark.submit.deployMode=cluster', '',
      ].join('\n'),
    },
  };
  return [svc, cm];
}

export function executorPod(app: KubeObject, st: SparkApplicationStatus, driver: Pod, id: number): Pod {
  const spec = app.spec as SparkApplicationSpec;
  const { appId, prefix, confHex } = submissionNames(app, st.submissionID!, st.lastSubmissionAttemptTime!);
  const ns = app.metadata.namespace!;
  const e = spec.executor;
  const name = `${prefix}-exec-${id}`;
  // Executors serve the driver until it stops them: they run as long as it does unless told otherwise.
  const annotations = mergeMaps({ [SIM.duration]: 'forever' }, e.annotations);
  const pod = buildPod({
    namespace: ns,
    name,
    template: {
      spec: {
        containers: [{
          name: 'spark-kubernetes-executor',
          image: e.image ?? spec.image ?? 'apache/spark:3.5.5',
          imagePullPolicy: 'IfNotPresent',
          args: ['executor'],
          env: [
            { name: 'SPARK_USER', value: 'spark' },
            { name: 'SPARK_DRIVER_URL', value: `spark://CoarseGrainedScheduler@${prefix}-driver-svc.${ns}.svc:7078` },
            { name: 'SPARK_EXECUTOR_CORES', value: String(e.cores ?? 1) },
            { name: 'SPARK_APPLICATION_ID', value: appId },
            { name: 'SPARK_CONF_DIR', value: '/opt/spark/conf' },
            { name: 'SPARK_EXECUTOR_ID', value: String(id) },
            { name: 'SPARK_RESOURCE_PROFILE_ID', value: '0' },
            { name: 'SPARK_EXECUTOR_POD_IP', valueFrom: { fieldRef: { apiVersion: 'v1', fieldPath: 'status.podIP' } } },
            { name: 'SPARK_EXECUTOR_POD_NAME', valueFrom: { fieldRef: { apiVersion: 'v1', fieldPath: 'metadata.name' } } },
          ],
          ports: [{ name: 'blockmanager', containerPort: 7079, protocol: 'TCP' }],
          resources: resources(e, spec.type),
          volumeMounts: [{ name: 'spark-local-dir-1', mountPath: '/var/data/spark-local-dir-1' }, { name: 'spark-conf-volume-exec', mountPath: '/opt/spark/conf' }],
        }],
        ...(mergeMaps(spec.nodeSelector, e.nodeSelector) ? { nodeSelector: mergeMaps(spec.nodeSelector, e.nodeSelector) } : {}),
        ...(e.serviceAccount ? { serviceAccountName: e.serviceAccount } : {}),
        volumes: [
          { name: 'spark-local-dir-1', emptyDir: {} },
          { name: 'spark-conf-volume-exec', configMap: { name: `spark-exec-${confHex}-conf-map`, defaultMode: 420, items: [{ key: 'spark.properties', path: 'spark.properties', mode: 420 }] } },
        ],
      },
    },
    labels: {
      ...mergeMaps(app.metadata.labels, e.labels),
      ...sparkLabels(app, appId, 'executor', spec),
      'spark-exec-id': String(id),
      'spark-exec-resourceprofile-id': '0',
      ...operatorLabels(app, st.submissionID!),
    },
    annotations,
    hostname: name.slice(-63),
    restartPolicy: 'Never',
  });
  // The app's reference comes first (from the operator's executor template), then the driver's controller reference.
  pod.metadata.ownerReferences = [appRef(app, false), podRef(driver)];
  return pod;
}

export function uiService(app: KubeObject, submissionID: string, rng?: Rng): KubeObject {
  const name = app.metadata.name!;
  return service({
    rng,
    name: `${name}-ui-svc`,
    namespace: app.metadata.namespace!,
    owner: app,
    labels: { [`${OP}/app-name`]: name, [`${OP}/created-by-spark-operator`]: 'true', [`${OP}/submission-id`]: submissionID },
    selector: { [`${OP}/app-name`]: name, 'spark-role': 'driver' },
    ports: [{ name: 'spark-driver-ui-port', port: UI_PORT, targetPort: UI_PORT }],
  });
}

/** The operator's executor state of a pod (from its phase). */
function executorState(p: Pod): string {
  const ph = p.status?.phase;
  return ph === 'Running' ? 'RUNNING' : ph === 'Succeeded' ? 'COMPLETED' : ph === 'Failed' ? 'FAILED' : ph === 'Unknown' ? 'UNKNOWN' : 'PENDING';
}

const TERMINAL_EXECUTOR = new Set(['COMPLETED', 'FAILED']);

export interface SparkPlan {
  status: SparkApplicationStatus;
  /** Submit: create the driver pod (and Spark's objects next to it) for this status. */
  submit?: boolean;
  uiService?: boolean;
  createExecutors: number[];
  deleteExecutors: Pod[];
  /** Delete the driver pod and the UI Service (rerun, suspend). */
  deleteResources?: boolean;
  deleteApp?: boolean;
  recheckMs?: number;
}

function shouldRetry(spec: SparkApplicationSpec, st: SparkApplicationStatus, succeeded: boolean): boolean {
  const policy = spec.restartPolicy?.type ?? 'Never';
  if (policy === 'Always') return true;
  return !succeeded && policy === 'OnFailure' && (st.executionAttempts ?? 0) <= (spec.restartPolicy?.onFailureRetries ?? 0);
}

/**
 * Pure reconcile of a SparkApplication: one step of the operator's state machine, plus what the driver
 * does with executors. `newSubmissionID` draws a submission id; `uiIP` is the UI Service's cluster IP, once it exists.
 */
export function planSparkApplication(
  app: KubeObject,
  driver: Pod | undefined,
  executors: Pod[],
  uiIP: string | undefined,
  nowIso: string,
  newSubmissionID: () => string,
): SparkPlan {
  const spec = app.spec as SparkApplicationSpec;
  const prev = (app.status ?? {}) as SparkApplicationStatus;
  const st: SparkApplicationStatus = structuredClone(prev);
  const plan: SparkPlan = { status: st, createExecutors: [], deleteExecutors: [] };
  const state: AppState = prev.applicationState?.state ?? '';
  const set = (s: AppState, errorMessage?: string): void => {
    st.applicationState = { state: s, ...(errorMessage ? { errorMessage } : {}) };
  };
  const submit = (): void => {
    st.submissionID = newSubmissionID();
    st.driverInfo = { podName: `${app.metadata.name}-driver` };
    st.lastSubmissionAttemptTime = nowIso;
    st.submissionAttempts = (st.submissionAttempts ?? 0) + 1;
    st.executionAttempts = (st.executionAttempts ?? 0) + 1;
    set('SUBMITTED');
    plan.submit = true;
  };
  const live = executors.filter((p) => !p.metadata.deletionTimestamp);

  // spec.suspend takes over any state that is not finished or already suspending.
  if (spec.suspend && !['COMPLETED', 'FAILED', 'SUSPENDED', 'SUSPENDING'].includes(state)) {
    set('SUSPENDING');
    return plan;
  }
  switch (state) {
    case '':
      submit();
      return plan;
    case 'SUSPENDING':
      plan.deleteResources = true;
      plan.deleteExecutors = live;
      set('SUSPENDED');
      delete st.sparkApplicationId;
      st.driverInfo = {};
      delete st.executorState;
      return plan;
    case 'SUSPENDED':
      if (!spec.suspend && !driver) set('RESUMING');
      return plan;
    case 'RESUMING':
      submit();
      return plan;
    case 'PENDING_RERUN':
      // Resubmitted once the previous run's driver is gone.
      if (!driver) submit();
      return plan;
    case 'SUCCEEDING':
    case 'FAILING': {
      const ok = state === 'SUCCEEDING';
      if (shouldRetry(spec, st, ok)) {
        plan.deleteResources = true;
        plan.deleteExecutors = live;
        delete st.sparkApplicationId;
        delete st.terminationTime;
        st.driverInfo = {};
        delete st.executorState;
        set('PENDING_RERUN');
      } else set(ok ? 'COMPLETED' : 'FAILED', prev.applicationState?.errorMessage);
      return plan;
    }
    case 'COMPLETED':
    case 'FAILED': {
      plan.deleteExecutors = live;
      const states = executorStates(prev.executorState, executors, state);
      if (states) st.executorState = states;
      const ttl = spec.timeToLiveSeconds;
      if (ttl !== undefined && st.terminationTime) {
        const due = Date.parse(st.terminationTime) + ttl * 1000 - Date.parse(nowIso);
        if (due <= 0) plan.deleteApp = true;
        else plan.recheckMs = due;
      }
      return plan;
    }
    default:
      break;
  }

  // SUBMITTED, RUNNING, UNKNOWN: follow the driver pod.
  if (!driver) {
    set('FAILING', 'driver pod not found');
    st.terminationTime ??= nowIso;
    return plan;
  }
  const names = submissionNames(app, st.submissionID!, st.lastSubmissionAttemptTime!);
  st.sparkApplicationId = names.appId;
  if (state === 'SUBMITTED') {
    plan.uiService = true;
    st.driverInfo = { ...st.driverInfo, webUIServiceName: `${app.metadata.name}-ui-svc`, webUIPort: UI_PORT, ...(uiIP ? { webUIAddress: `${uiIP}:${UI_PORT}` } : {}) };
  }
  const phase = driver.status?.phase ?? 'Pending';
  const term = driver.status?.containerStatuses?.find((c) => c.name === 'spark-kubernetes-driver')?.state.terminated;
  let next: AppState = phase === 'Pending' ? 'SUBMITTED' : phase === 'Running' ? 'RUNNING' : phase === 'Succeeded' ? 'SUCCEEDING' : phase === 'Failed' ? 'FAILING' : 'UNKNOWN';
  if (phase === 'Failed' && term?.exitCode === 0) next = 'SUCCEEDING';
  let error: string | undefined;
  if (next === 'SUCCEEDING' || next === 'FAILING') {
    st.terminationTime ??= nowIso;
    if (next === 'FAILING') error = term ? `driver container failed with ExitCode: ${term.exitCode}, Reason: ${term.reason ?? 'Error'}` : 'driver container status missing';
  }
  set(next, error);

  // Executors: the driver's side. It keeps the count it wants while it runs, replaces failed ones, and
  // removes them all when it ends.
  if (next === 'RUNNING' && isPodRunning(driver)) {
    const failed = live.filter((p) => p.status?.phase === 'Failed' || p.status?.phase === 'Succeeded');
    plan.deleteExecutors = failed;
    const alive = live.length - failed.length;
    let maxId = 0;
    for (const name of Object.keys(prev.executorState ?? {})) maxId = Math.max(maxId, Number(/-exec-(\d+)$/.exec(name)?.[1] ?? 0));
    for (const p of executors) maxId = Math.max(maxId, Number(p.metadata.labels?.['spark-exec-id'] ?? 0));
    for (let i = alive; i < wantedExecutors(spec); i++) plan.createExecutors.push(++maxId);
  } else if (next !== 'SUBMITTED' && next !== 'RUNNING') {
    plan.deleteExecutors = live;
  }
  const states = executorStates(prev.executorState, executors, next);
  if (states) st.executorState = states;
  return plan;
}

/**
 * The operator's executorState: each executor pod's state from its phase; one gone without a final
 * state is UNKNOWN while the driver runs, then COMPLETED after a successful run and FAILED otherwise.
 */
function executorStates(prev: Record<string, string> | undefined, executors: Pod[], app: AppState): Record<string, string> | undefined {
  const states: Record<string, string> = { ...(prev ?? {}) };
  for (const p of executors) states[p.metadata.name!] = executorState(p);
  const present = new Set(executors.map((p) => p.metadata.name!));
  for (const [name, s] of Object.entries(states)) {
    if (present.has(name) || TERMINAL_EXECUTOR.has(s)) continue;
    states[name] = app === 'RUNNING' ? 'UNKNOWN' : app === 'SUCCEEDING' || app === 'COMPLETED' ? 'COMPLETED' : 'FAILED';
  }
  return Object.keys(states).length > 0 ? states : undefined;
}

export class SparkApplicationController implements Controller {
  readonly name = 'sparkapplication';
  readonly primary = `${OP}/SparkApplication`;
  readonly priority = 2;
  readonly owns = ['/Pod', '/Service'];
  readonly watches = [
    {
      // Executor pods belong to the driver pod; their changes concern the application (its executorState, replacements).
      gk: '/Pod',
      map: (obj: KubeObject): Array<[string, string]> => {
        const l = obj.metadata.labels;
        return l?.['spark-role'] === 'executor' && l[`${OP}/launched-by-spark-operator`] === 'true' && l[`${OP}/app-name`] ? [[obj.metadata.namespace ?? '', l[`${OP}/app-name`]]] : [];
      },
    },
  ];

  reconcile(rt: Runtime, ns: string, name: string): void {
    const app = rt.get(SPARK_API, 'SparkApplication', ns, name);
    if (!app || app.metadata.deletionTimestamp) return;
    const st = (app.status ?? {}) as SparkApplicationStatus;
    const podName = st.driverInfo?.podName ?? `${name}-driver`;
    const found = rt.get<Pod>('v1', 'Pod', ns, podName);
    // Only this submission's driver counts (a previous run's pod may still be terminating).
    const driver = found && found.metadata.ownerReferences?.some((r) => r.uid === app.metadata.uid) ? found : undefined;
    const executors = driver ? rt.children<Pod>(driver, '/Pod') : [];
    const ui = rt.get('v1', 'Service', ns, `${name}-ui-svc`);
    const uiIP = (ui?.spec as { clusterIP?: string } | undefined)?.clusterIP;
    const plan = planSparkApplication(app, driver, executors, uiIP, rt.now(), () => uuidFrom(rt.rng.hex(32)));
    if (plan.deleteApp) {
      rt.delete(app);
      return;
    }
    for (const p of plan.deleteExecutors) rt.delete(p);
    if (plan.deleteResources) {
      if (driver) rt.delete(driver);
      if (ui) rt.delete(ui);
    }
    const stored = rt.setStatus(app, plan.status);
    if (plan.submit && !rt.get('v1', 'Pod', ns, plan.status.driverInfo!.podName!)) {
      const pod = rt.createPod(driverPod(stored, plan.status));
      for (const o of driverSideObjects(stored, plan.status, pod)) rt.ensure(o);
    }
    if (plan.uiService) rt.applyService(uiService(app, plan.status.submissionID!, rt.rng));
    if (driver && plan.createExecutors.length > 0) for (const id of plan.createExecutors) rt.createPod(executorPod(app, plan.status, driver, id));
    if (plan.recheckMs) rt.after(this, ns, name, plan.recheckMs);
  }
}

/** A random UUID (v4 layout) from 32 hex characters. */
function uuidFrom(h: string): string {
  return `${h.slice(0, 8)}-${h.slice(8, 12)}-4${h.slice(13, 16)}-${'89ab'[parseInt(h[16], 16) % 4]}${h.slice(17, 20)}-${h.slice(20, 32)}`;
}
