/**
 * How an HTTP endpoint in or near a cluster is reached: directly (a configured URL), or through the
 * API server's service or pod proxy with the context's own credentials (nothing is installed in the
 * cluster, and no port needs to be reachable but the API server's).
 */
import type { KubeConfig } from '@kubernetes/client-node';
import { ApiError, apiRequest } from '../cluster/index.ts';

export interface HttpAnswer {
  status: number;
  body: string;
}

export interface Transport {
  /** For people: where the requests go. */
  readonly describe: string;
  get(path: string, timeoutMs: number, signal?: AbortSignal): Promise<HttpAnswer>;
  /** POST a form (long PromQL queries do not fit in a URL). */
  postForm(path: string, form: URLSearchParams, timeoutMs: number, signal?: AbortSignal): Promise<HttpAnswer>;
}

/** A URL reached from this process (`http://127.0.0.1:9090`, `https://prometheus.example/prom`). */
export function directTransport(base: string): Transport {
  const root = base.replace(/\/+$/, '');
  const call = async (path: string, init: RequestInit, timeoutMs: number, signal?: AbortSignal): Promise<HttpAnswer> => {
    const timeout = AbortSignal.timeout(timeoutMs);
    const res = await fetch(`${root}${path}`, { ...init, signal: signal ? AbortSignal.any([signal, timeout]) : timeout, redirect: 'error' });
    return { status: res.status, body: await res.text() };
  };
  return {
    describe: root,
    get: (path, timeoutMs, signal) => call(path, { method: 'GET', headers: { accept: 'application/json, text/plain' } }, timeoutMs, signal),
    postForm: (path, form, timeoutMs, signal) => call(path, { method: 'POST', body: form.toString(), headers: { 'content-type': 'application/x-www-form-urlencoded', accept: 'application/json' } }, timeoutMs, signal),
  };
}

/** Through the API server's proxy: `prefix` is `/api/v1/namespaces/{ns}/services/{name}:{port}/proxy` or the pods' equivalent. */
export function proxyTransport(kc: KubeConfig, prefix: string, describe: string): Transport {
  const call = async (method: string, path: string, timeoutMs: number, signal: AbortSignal | undefined, body?: string): Promise<HttpAnswer> => {
    try {
      const r = await apiRequest(kc, method, `${prefix}${path}`, { body, contentType: body === undefined ? undefined : 'application/x-www-form-urlencoded', accept: 'application/json, text/plain', timeoutMs, signal, gzip: true });
      return { status: r.status, body: r.body };
    } catch (e) {
      // The proxied endpoint's own error answers (Prometheus's 400/422/503) arrive as API errors.
      if (e instanceof ApiError && e.status > 0) return { status: e.status, body: e.message };
      throw e;
    }
  };
  return {
    describe,
    get: (path, timeoutMs, signal) => call('GET', path, timeoutMs, signal),
    postForm: (path, form, timeoutMs, signal) => call('POST', path, timeoutMs, signal, form.toString()),
  };
}

export function servicePrefix(namespace: string, name: string, port: string | number, scheme?: 'http' | 'https'): string {
  const svc = `${scheme ? `${scheme}:` : ''}${name}:${port}`;
  return `/api/v1/namespaces/${encodeURIComponent(namespace)}/services/${encodeURIComponent(svc)}/proxy`;
}

export function podPrefix(namespace: string, name: string, port: string | number): string {
  return `/api/v1/namespaces/${encodeURIComponent(namespace)}/pods/${encodeURIComponent(`${name}:${port}`)}/proxy`;
}
