/**
 * Churn for the live benchmark, as an external client: flips the Ready condition of pods through
 * the API server's status subresource at a fixed rate, and prints `<namespace>/<name> <epoch ms>`
 * for every write so the benchmark can time the delta that follows.
 *
 *   node --import tsx bench/churn-writer.ts KUBECONFIG RATE SECONDS < pods.txt   (lines: namespace/name)
 */
import { createInterface } from 'node:readline';
import { loadClusterConfigs, apiRequest } from '../server/cluster/index.ts';

const [kubeconfig, rateArg, secondsArg] = process.argv.slice(2);
const rate = Number(rateArg);
const seconds = Number(secondsArg);
const [cluster] = loadClusterConfigs({ kubeconfig });
const pods: string[] = [];
for await (const line of createInterface({ input: process.stdin })) if (line.trim()) pods.push(line.trim());
const ready = new Map<string, boolean>();
const start = Date.now();
let sent = 0;
let inFlight = 0;
let errors = 0;
const out: string[] = [];
const flush = () => { if (out.length) { process.stdout.write(out.join('\n') + '\n'); out.length = 0; } };
while (Date.now() - start < seconds * 1000) {
  const due = Math.floor(((Date.now() - start) / 1000) * rate);
  while (sent < due && inFlight < 256) {
    const pod = pods[sent % pods.length];
    const [ns, name] = pod.split('/');
    const next = !(ready.get(pod) ?? true);
    ready.set(pod, next);
    const v = next ? 'True' : 'False';
    const body = JSON.stringify({ status: { conditions: [{ type: 'PodScheduled', status: 'True' }, { type: 'Initialized', status: 'True' }, { type: 'ContainersReady', status: v }, { type: 'Ready', status: v }] } });
    out.push(`${pod} ${Date.now()}`);
    inFlight++;
    sent++;
    apiRequest(cluster.kc, 'PATCH', `/api/v1/namespaces/${ns}/pods/${name}/status`, { body, contentType: 'application/merge-patch+json' })
      .catch(() => { errors++; })
      .finally(() => { inFlight--; });
  }
  flush();
  await new Promise((r) => setTimeout(r, 2));
}
while (inFlight > 0) await new Promise((r) => setTimeout(r, 5));
flush();
process.stderr.write(`churn-writer: ${sent} writes in ${seconds} s, ${errors} errors\n`);
process.exit(0);
