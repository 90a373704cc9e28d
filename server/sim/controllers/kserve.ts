/**
 * KServe InferenceService operator (serving.kserve.io/v1beta1), both deployment modes:
 * - Standard (legacy RawDeployment): per component a Deployment, Service and HPA `<isvc>-<component>`,
 *   pods `<isvc>-predictor-<hash>-<rand5>` labelled `serving.kserve.io/inferenceservice`, `component`,
 *   `app=isvc.<isvc>-<component>`; PredictorReady mirrors the Deployment's availability.
 * - Knative (legacy Serverless): a Knative Service `<isvc>-<component>` (then Configuration → Revision
 *   `-00001` → Deployment → pods, by the Knative controllers), an ExternalName Service and a
 *   VirtualService `<isvc>`; conditions follow the Knative Service.
 * The model spec becomes the `kserve-container` (runtime image per model format) with a
 * `storage-initializer` init container; `serving.kserve.io/stop` stops the service.
 */

import { ctrlRef, getCondition, isPodReady, mergeMaps, setCondition } from './meta.ts';
import { DOMAIN } from './knative.ts';
import type { Controller, Runtime } from './runtime.ts';
import { service } from './services.ts';
import type { Condition, Container, KubeObject, Pod, PodSpec, ResourceRequirements, StringMap } from './types.ts';

export const KS = 'serving.kserve.io';
const VERSION = 'v0.15.2';
const RUNTIME_IMAGES: Record<string, [string, string]> = {
  huggingface: [`kserve/huggingfaceserver:${VERSION}-gpu`, 'kserve-huggingfaceserver'],
  sklearn: [`kserve/sklearnserver:${VERSION}`, 'kserve-sklearnserver'],
  xgboost: [`kserve/xgbserver:${VERSION}`, 'kserve-xgbserver'],
  lightgbm: [`kserve/lgbserver:${VERSION}`, 'kserve-lgbserver'],
  pmml: [`kserve/pmmlserver:${VERSION}`, 'kserve-pmmlserver'],
  paddle: [`kserve/paddleserver:${VERSION}`, 'kserve-paddleserver'],
  pytorch: ['pytorch/torchserve-kfs:0.9.0', 'kserve-torchserve'],
  tensorflow: ['tensorflow/serving:2.6.2', 'kserve-tensorflow-serving'],
  triton: ['nvcr.io/nvidia/tritonserver:23.05-py3', 'kserve-tritonserver'],
  onnx: ['nvcr.io/nvidia/tritonserver:23.05-py3', 'kserve-tritonserver'],
};
const COMPONENTS = ['predictor', 'transformer', 'explainer'] as const;
type Component = (typeof COMPONENTS)[number];

interface ComponentSpec extends Partial<PodSpec> {
  minReplicas?: number;
  maxReplicas?: number;
  scaleTarget?: number;
  scaleMetric?: string;
  model?: { modelFormat?: { name: string }; runtime?: string; storageUri?: string; args?: string[]; resources?: ResourceRequirements; env?: Container['env'] };
  labels?: StringMap;
  annotations?: StringMap;
  [format: string]: unknown;
}

export type DeploymentMode = 'Standard' | 'Knative';

export function deploymentMode(isvc: KubeObject): DeploymentMode {
  const a = isvc.metadata.annotations?.[`${KS}/deploymentMode`];
  return a === 'Serverless' || a === 'Knative' ? 'Knative' : 'Standard';
}

/** The pod spec of a component: custom containers, or the model turned into `kserve-container`. */
export function componentPodSpec(isvc: KubeObject, comp: Component): { spec: PodSpec; runtime?: string } {
  const c = (isvc.spec as Record<string, ComponentSpec>)[comp];
  const { minReplicas: _a, maxReplicas: _b, scaleTarget: _c, scaleMetric: _d, model, labels: _l, annotations: _n, ...rest } = c;
  const podFields: Record<string, unknown> = {};
  for (const k in rest) if (!(k in RUNTIME_IMAGES)) podFields[k] = rest[k];
  const name = isvc.metadata.name!;
  let format: string | undefined;
  let m = model;
  if (!m) {
    for (const f of Object.keys(RUNTIME_IMAGES)) {
      if (c[f]) {
        format = f;
        m = c[f] as ComponentSpec['model'];
      }
    }
  } else format = m.modelFormat?.name;
  const containers: Container[] = (rest.containers as Container[] | undefined) ?? [];
  let runtime: string | undefined;
  let initContainers = rest.initContainers as Container[] | undefined;
  if (m && containers.length === 0) {
    const [image, rt] = RUNTIME_IMAGES[format ?? 'sklearn'] ?? RUNTIME_IMAGES.sklearn;
    runtime = m.runtime ?? rt;
    containers.push({
      name: 'kserve-container',
      image,
      args: [`--model_name=${name}`, '--model_dir=/mnt/models', '--http_port=8080', ...(m.args ?? [])],
      ...(m.env ? { env: m.env } : {}),
      ports: [{ containerPort: 8080, protocol: 'TCP' }],
      resources: m.resources ?? { requests: { cpu: '1', memory: '2Gi' }, limits: { cpu: '1', memory: '2Gi' } },
      readinessProbe: { httpGet: { path: `/v1/models/${name}`, port: 8080 } },
    });
    if (m.storageUri) {
      initContainers = [
        ...(initContainers ?? []),
        {
          name: 'storage-initializer',
          image: `kserve/storage-initializer:${VERSION}`,
          args: [m.storageUri, '/mnt/models'],
          resources: { limits: { cpu: '1', memory: '1Gi' }, requests: { cpu: '100m', memory: '100Mi' } },
          terminationMessagePolicy: 'FallbackToLogsOnError',
        },
      ];
    }
  }
  return { spec: { ...(podFields as Partial<PodSpec>), containers, ...(initContainers ? { initContainers } : {}) }, runtime };
}

function componentLabels(isvc: KubeObject, comp: Component): StringMap {
  const c = (isvc.spec as Record<string, ComponentSpec>)[comp];
  return mergeMaps(isvc.metadata.labels, c.labels, {
    [`${KS}/inferenceservice`]: isvc.metadata.name!,
    component: comp,
    app: `isvc.${isvc.metadata.name}-${comp}`,
  })!;
}

function standardChildren(isvc: KubeObject, comp: Component, rt: Runtime): KubeObject[] {
  const name = `${isvc.metadata.name}-${comp}`;
  const ns = isvc.metadata.namespace!;
  const c = (isvc.spec as Record<string, ComponentSpec>)[comp];
  const labels = componentLabels(isvc, comp);
  const { spec } = componentPodSpec(isvc, comp);
  const min = c.minReplicas ?? 1;
  const max = Math.max(min, c.maxReplicas ?? min);
  const annotations = mergeMaps(c.annotations, { [`${KS}/deploymentMode`]: 'Standard' });
  return [
    {
      apiVersion: 'apps/v1',
      kind: 'Deployment',
      metadata: { name, namespace: ns, labels, annotations, ownerReferences: [ctrlRef(isvc)] },
      spec: {
        replicas: min,
        selector: { matchLabels: { app: `isvc.${name}` } },
        strategy: { type: 'RollingUpdate', rollingUpdate: { maxSurge: '25%', maxUnavailable: '25%' } },
        template: { metadata: { labels, annotations }, spec },
      },
    },
    service({ name, namespace: ns, owner: isvc, labels, selector: { app: `isvc.${name}` }, ports: [{ name: 'http', port: 80, targetPort: 8080 }], rng: rt.rng }),
    {
      apiVersion: 'autoscaling/v2',
      kind: 'HorizontalPodAutoscaler',
      metadata: { name, namespace: ns, labels, ownerReferences: [ctrlRef(isvc)] },
      spec: {
        minReplicas: min,
        maxReplicas: max,
        scaleTargetRef: { apiVersion: 'apps/v1', kind: 'Deployment', name },
        metrics: [{ type: 'Resource', resource: { name: c.scaleMetric ?? 'cpu', target: { type: 'Utilization', averageUtilization: c.scaleTarget ?? 80 } } }],
      },
    },
  ];
}

function knativeService(isvc: KubeObject, comp: Component): KubeObject {
  const name = `${isvc.metadata.name}-${comp}`;
  const c = (isvc.spec as Record<string, ComponentSpec>)[comp];
  const { spec } = componentPodSpec(isvc, comp);
  const labels = componentLabels(isvc, comp);
  const min = c.minReplicas ?? 1;
  const annotations = mergeMaps(c.annotations, {
    'autoscaling.knative.dev/class': 'kpa.autoscaling.knative.dev',
    'autoscaling.knative.dev/min-scale': String(min),
    ...(c.maxReplicas ? { 'autoscaling.knative.dev/max-scale': String(c.maxReplicas) } : {}),
    'internal.serving.kserve.io/storage-initializer-sourceuri': c.model?.storageUri ?? '',
  });
  return {
    apiVersion: 'serving.knative.dev/v1',
    kind: 'Service',
    metadata: { name, namespace: isvc.metadata.namespace, labels: { [`${KS}/inferenceservice`]: isvc.metadata.name!, component: comp }, ownerReferences: [ctrlRef(isvc)] },
    spec: { template: { metadata: { labels, annotations }, spec: { ...spec, containerConcurrency: 0, timeoutSeconds: 300 } } },
  };
}

function cap(s: string): string {
  return s[0].toUpperCase() + s.slice(1);
}

interface IsvcStatus {
  conditions?: Condition[];
  [k: string]: unknown;
}

export class InferenceServiceController implements Controller {
  readonly name = 'kserve';
  readonly primary = 'serving.kserve.io/InferenceService';
  readonly priority = 2;
  readonly owns = ['apps/Deployment', 'serving.knative.dev/Service'];
  readonly watches = [
    {
      gk: '/Pod',
      map: (obj: KubeObject): Array<[string, string]> => {
        const n = obj.metadata.labels?.[`${KS}/inferenceservice`];
        return n ? [[obj.metadata.namespace ?? '', n]] : [];
      },
    },
  ];

  reconcile(rt: Runtime, ns: string, name: string): void {
    const isvc = rt.get('serving.kserve.io/v1beta1', 'InferenceService', ns, name);
    if (!isvc || isvc.metadata.deletionTimestamp) return;
    const mode = deploymentMode(isvc);
    const stopped = isvc.metadata.annotations?.[`${KS}/stop`] === 'true';
    const comps = COMPONENTS.filter((c) => (isvc.spec as Record<string, unknown>)[c]);
    const now = rt.now();
    const prev = (isvc.status ?? {}) as IsvcStatus;
    let conds = prev.conditions;
    const components: Record<string, unknown> = {};
    let allReady = true;
    let failure: { reason: string; message: string } | undefined;
    let loading = false;
    let crash: Pod | undefined;
    const { runtime } = componentPodSpec(isvc, 'predictor');

    if (stopped) {
      for (const c of comps) {
        const childName = `${name}-${c}`;
        for (const [av, k] of [['apps/v1', 'Deployment'], ['v1', 'Service'], ['autoscaling/v2', 'HorizontalPodAutoscaler'], ['serving.knative.dev/v1', 'Service']] as const) {
          const o = rt.get(av, k, ns, childName);
          if (o) rt.delete(o);
        }
        conds = setCondition(conds, { type: `${cap(c)}Ready`, status: 'False', reason: 'Stopped', message: 'The inference service is stopped' }, now);
      }
      conds = setCondition(conds, { type: 'IngressReady', status: 'False', reason: 'Stopped', message: 'The inference service is stopped' }, now);
      conds = setCondition(conds, { type: 'Stopped', status: 'True', reason: 'Stopped', message: 'The inference service is stopped' }, now);
      conds = setCondition(conds, { type: 'Ready', status: 'False', reason: 'Stopped', message: 'The inference service is stopped' }, now);
      rt.setStatus(isvc, { ...prev, conditions: conds, modelStatus: { transitionStatus: 'UpToDate', states: { activeModelState: '', targetModelState: '' } }, deploymentMode: mode, observedGeneration: isvc.metadata.generation ?? 1 });
      return;
    }
    if (conds?.some((c) => c.type === 'Stopped')) conds = setCondition(conds, { type: 'Stopped', status: 'False' }, now);

    for (const c of comps) {
      const C = cap(c);
      const childName = `${name}-${c}`;
      const pods = rt.list<Pod>('v1', 'Pod', { namespace: ns, labels: { [`${KS}/inferenceservice`]: name, component: c } });
      crash ??= pods.find((p) => (p.status?.containerStatuses ?? []).some((s) => s.state.waiting?.reason === 'CrashLoopBackOff' || s.restartCount >= 3));
      if (pods.length === 0 || pods.some((p) => !isPodReady(p))) loading = true;
      if (mode === 'Standard') {
        const [dep, svc, hpa] = standardChildren(isvc, c, rt);
        const d = rt.apply(dep);
        rt.applyService(svc);
        rt.apply(hpa);
        const avail = getCondition(d, 'Available');
        const prog = getCondition(d, 'Progressing');
        let ready: Condition;
        if (prog?.reason === 'ProgressDeadlineExceeded') {
          ready = { type: `${C}Ready`, status: 'False', reason: prog.reason, message: prog.message };
          failure ??= { reason: prog.reason, message: prog.message ?? '' };
        } else if (avail?.status === 'True' && ((d.status as { availableReplicas?: number }).availableReplicas ?? 0) > 0) {
          ready = { type: `${C}Ready`, status: 'True', reason: avail.reason, message: avail.message };
        } else ready = { type: `${C}Ready`, status: 'False', reason: avail?.reason ?? 'MinimumReplicasUnavailable', message: avail?.message ?? 'Deployment does not have minimum availability.' };
        conds = setCondition(conds, ready, now);
        if (ready.status !== 'True') allReady = false;
        components[c] = { url: `http://${childName}-${ns}.${DOMAIN}`, address: { url: `http://${childName}.${ns}.svc.cluster.local` } };
      } else {
        const ks = rt.apply(knativeService(isvc, c));
        const kst = (ks.status ?? {}) as { url?: string; latestCreatedRevisionName?: string; latestReadyRevisionName?: string; traffic?: unknown[]; address?: unknown };
        const map: Array<[string, string]> = [['Ready', `${C}Ready`], ['RoutesReady', `${C}RouteReady`], ['ConfigurationsReady', `${C}ConfigurationReady`]];
        for (const [from, to] of map) {
          const k = getCondition(ks, from);
          conds = setCondition(conds, { type: to, status: k?.status ?? 'Unknown', ...(k?.reason ? { reason: k.reason } : {}), ...(k?.message ? { message: k.message } : {}) }, now);
        }
        const k = getCondition(ks, 'Ready');
        conds = setCondition(conds, { type: 'LatestDeploymentReady', status: k?.status ?? 'Unknown', ...(k?.reason ? { reason: k.reason } : {}) }, now);
        if (k?.status !== 'True') allReady = false;
        if (k?.status === 'False') failure ??= { reason: k.reason ?? 'RevisionFailed', message: k.message ?? '' };
        components[c] = {
          ...(kst.url ? { url: kst.url } : {}),
          ...(kst.address ? { address: kst.address } : {}),
          ...(kst.latestCreatedRevisionName ? { latestCreatedRevision: kst.latestCreatedRevisionName } : {}),
          ...(kst.latestReadyRevisionName ? { latestReadyRevision: kst.latestReadyRevisionName, latestRolledoutRevision: kst.latestReadyRevisionName } : {}),
          ...(kst.traffic ? { traffic: kst.traffic } : {}),
        };
      }
    }
    if (mode === 'Knative') {
      rt.ensure(service({ name, namespace: ns, owner: isvc, type: 'ExternalName', externalName: 'knative-local-gateway.istio-system.svc.cluster.local', labels: { [`${KS}/inferenceservice`]: name } }));
      rt.apply({
        apiVersion: 'networking.istio.io/v1beta1',
        kind: 'VirtualService',
        metadata: { name, namespace: ns, labels: { [`${KS}/inferenceservice`]: name }, ownerReferences: [ctrlRef(isvc)] },
        spec: {
          gateways: ['knative-serving/knative-local-gateway', 'knative-serving/knative-ingress-gateway'],
          hosts: [`${name}.${ns}.svc.cluster.local`, `${name}.${ns}.${DOMAIN}`],
          http: [{ match: [{ authority: { regex: `^${name.replace(/-/g, '\\-')}\\.${ns}(\\.svc(\\.cluster\\.local)?)?(?::\\d{1,5})?$` } }], route: [{ destination: { host: 'knative-local-gateway.istio-system.svc.cluster.local', port: { number: 80 } }, headers: { request: { set: { Host: `${name}-predictor.${ns}.svc.cluster.local` } } }, weight: 100 }] }],
        },
      });
    }
    const ingressReady = mode === 'Standard' ? true : getCondition({ status: { conditions: conds } }, 'PredictorReady')?.status === 'True';
    conds = setCondition(conds, ingressReady ? { type: 'IngressReady', status: 'True' } : { type: 'IngressReady', status: 'Unknown', reason: 'PredictorNotReady' }, now);
    const ready = allReady && ingressReady;
    const failed = getCondition({ status: { conditions: conds } }, 'PredictorReady');
    conds = setCondition(
      conds,
      ready ? { type: 'Ready', status: 'True' } : { type: 'Ready', status: failure ? 'False' : mode === 'Knative' ? 'Unknown' : 'False', reason: failure?.reason ?? failed?.reason, message: failure?.message ?? failed?.message },
      now,
    );
    const modelStatus = crash
      ? {
          transitionStatus: 'BlockedByFailedLoad',
          states: { activeModelState: 'FailedToLoad', targetModelState: 'FailedToLoad' },
          lastFailureInfo: { reason: 'ModelLoadFailed', location: crash.metadata.name, message: `Model ${name} failed to load: container kserve-container is in CrashLoopBackOff`, exitCode: crash.status?.containerStatuses?.[0]?.lastState.terminated?.exitCode ?? 1 },
          copies: { failedCopies: 1, totalCopies: 1 },
        }
      : ready
        ? { transitionStatus: 'UpToDate', states: { activeModelState: 'Loaded', targetModelState: 'Loaded' }, copies: { failedCopies: 0, totalCopies: 1 } }
        : { transitionStatus: 'InProgress', states: { activeModelState: loading ? 'Pending' : 'Loading', targetModelState: 'Loading' }, copies: { failedCopies: 0, totalCopies: 1 } };
    const url = mode === 'Knative' ? `http://${name}.${ns}.${DOMAIN}` : `http://${name}-${ns}.${DOMAIN}`;
    rt.setStatus(isvc, {
      observedGeneration: isvc.metadata.generation ?? 1,
      conditions: [...(conds ?? [])].sort((a, b) => (a.type < b.type ? -1 : 1)),
      url,
      address: { url: mode === 'Knative' ? `http://${name}.${ns}.svc.cluster.local` : `http://${name}-predictor.${ns}.svc.cluster.local` },
      components,
      modelStatus,
      deploymentMode: mode,
      ...(runtime ? { servingRuntimeName: runtime } : {}),
    });
  }
}
