/**
 * The CLI against kubectl on the same cluster: the embedded simulated cluster's demo scenario in its
 * own process (`wmap sim`, as a real cluster is one), its kubeconfig, then each `wmap` command paired
 * with the kubectl command that reads the same thing, run alternately (so that load on the machine
 * falls on both alike) and timed from spawn to exit. Prints median / min / max of the runs and the
 * ratio of the medians, against issue 17's targets. The first run of each command is a warm-up and
 * is reported apart: it writes the command's code cache (bin/cli-loader.cjs), as kubectl's first run
 * writes its discovery cache.
 *
 *   node --import tsx bench/cli-bench.ts [--runs 9] [--kubectl kubectl] [--without-extra-ca]
 *
 * NODE_EXTRA_CA_CERTS makes every Node process parse that file's certificates, and Node's own ~140
 * roots with them, before any JavaScript runs (some 45 ms here, where it names the system bundle);
 * kubectl does not care. `--without-extra-ca` runs wmap without it, as on a machine that does not
 * set it; the footer gives `node -e 0` both ways when it is set.
 *
 * The CLI must be built (node scripts/build-cli.mjs); it says so otherwise.
 */
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { numberArg, startSimProcess } from './measure.ts';

const RUNS = numberArg('runs', 9);
const KUBECTL = process.argv.includes('--kubectl') ? process.argv[process.argv.indexOf('--kubectl') + 1] : 'kubectl';
const WITHOUT_EXTRA_CA = process.argv.includes('--without-extra-ca');

interface Timing {
  ms: number;
  code: number | null;
  stderr: string;
}

function timed(cmd: string, args: string[], env: NodeJS.ProcessEnv): Timing {
  const t = process.hrtime.bigint();
  const r = spawnSync(cmd, args, { env, encoding: 'utf8', maxBuffer: 64 << 20 });
  return { ms: Number(process.hrtime.bigint() - t) / 1e6, code: r.status, stderr: r.stderr ?? '' };
}

const median = (xs: number[]) => {
  const s = [...xs].sort((a, b) => a - b);
  return s.length % 2 ? s[(s.length - 1) / 2] : (s[s.length / 2 - 1] + s[s.length / 2]) / 2;
};
const f = (ms: number) => `${(ms / 1000).toFixed(3)} s`;

interface Pair {
  what: string;
  wmap: string[];
  kubectl: string[] | null;
  /** The target: a ratio to kubectl's median, or an absolute time. */
  target: { ratio: number } | { seconds: number };
}

async function main(): Promise<void> {
  // WMAP_CLI=compiled refuses to fall back to the sources: the build must be current.
  const check = spawnSync(process.execPath, ['bin/wmap.cjs', '--version'], { env: { ...process.env, WMAP_CLI: 'compiled' }, encoding: 'utf8' });
  if (check.status !== 0) {
    console.error(`${check.stderr.trim()}\nbuild it first: node scripts/build-cli.mjs`);
    process.exit(1);
  }
  const work = mkdtempSync(join(tmpdir(), 'wmap-cli-bench-'));
  const { sim, kubeconfig } = await startSimProcess(['--scenario', 'demo', '--kubeconfig', join(work, 'kubeconfig')]);
  // Each command's code cache starts empty here: the warm-up run writes it.
  const env: NodeJS.ProcessEnv = { ...process.env, WMAP_CLI: 'compiled', KUBECONFIG: kubeconfig, WMAP_CACHE_DIR: join(work, 'compile-cache'), WMAP_LOG_LEVEL: 'warn', NO_COLOR: '1' };
  const { NODE_EXTRA_CA_CERTS: extraCa, ...withoutExtraCa } = env;
  const wmapEnv = WITHOUT_EXTRA_CA ? withoutExtraCa : env;
  try {
    // A JobSet the demo runs (its names carry a generation suffix as workloads finish and start again).
    const js = JSON.parse(spawnSync(KUBECTL, ['get', 'jobsets.jobset.x-k8s.io', '-A', '-o', 'json'], { env, encoding: 'utf8' }).stdout) as { items: Array<{ metadata: { name: string; namespace: string } }> };
    const jobset = js.items[0]?.metadata;
    if (!jobset) throw new Error('the demo has no JobSet');
    const file = 'catalog/jobset-x-k8s-io-jobset-v1alpha2.yaml';
    const pairs: Pair[] = [
      { what: `tree jobset/${jobset.name} -n ${jobset.namespace}`, wmap: ['tree', `jobset/${jobset.name}`, '-n', jobset.namespace], kubectl: ['get', 'jobset', jobset.name, '-n', jobset.namespace, '-o', 'json'], target: { ratio: 3 } },
      { what: 'get workloads -A', wmap: ['get', 'workloads', '-A'], kubectl: ['get', 'pods', '-A'], target: { ratio: 3 } },
      { what: `validate ${file}`, wmap: ['validate', file], kubectl: null, target: { seconds: 0.3 } },
      { what: '--version', wmap: ['--version'], kubectl: ['version', '--client'], target: { seconds: 0.15 } },
    ];
    const caNote = extraCa === undefined ? 'NODE_EXTRA_CA_CERTS unset' : WITHOUT_EXTRA_CA ? `wmap without NODE_EXTRA_CA_CERTS (set here: ${extraCa})` : `NODE_EXTRA_CA_CERTS=${extraCa}`;
    console.log(`${RUNS} runs each after one warm-up, alternating wmap and kubectl; simulated cluster (demo scenario) in its own process; node ${process.version}; ${caNote}\n`);
    // `ratio` is of the medians; `pair ratio` the median of each run's ratio to the kubectl run right
    // after it, which a host whose speed drifts during the benchmark moves less.
    const rows: string[][] = [['command', 'wmap median', 'min', 'max', 'first run', 'kubectl', 'kubectl median', 'min', 'max', 'ratio', 'pair ratio', 'target', 'met']];
    for (const p of pairs) {
      const w: number[] = [];
      const k: number[] = [];
      const first = timed(process.execPath, ['bin/wmap.cjs', ...p.wmap], wmapEnv);
      if (first.code !== 0) throw new Error(`wmap ${p.wmap.join(' ')} exited with ${first.code}: ${first.stderr}`);
      if (p.kubectl) timed(KUBECTL, p.kubectl, env);
      for (let i = 0; i < RUNS; i++) {
        const a = timed(process.execPath, ['bin/wmap.cjs', ...p.wmap], wmapEnv);
        if (a.code !== 0) throw new Error(`wmap ${p.wmap.join(' ')} exited with ${a.code}: ${a.stderr}`);
        w.push(a.ms);
        if (p.kubectl) {
          const b = timed(KUBECTL, p.kubectl, env);
          if (b.code !== 0) throw new Error(`kubectl ${p.kubectl.join(' ')} exited with ${b.code}: ${b.stderr}`);
          k.push(b.ms);
        }
      }
      const ratio = k.length ? median(w) / median(k) : null;
      const pairRatio = k.length ? median(w.map((x, i) => x / k[i])) : null;
      const target = 'ratio' in p.target ? `≤ ${p.target.ratio}× kubectl` : `< ${p.target.seconds} s`;
      const met = 'ratio' in p.target ? ratio !== null && ratio <= p.target.ratio : median(w) < p.target.seconds * 1000;
      rows.push([
        `wmap ${p.what}`, f(median(w)), f(Math.min(...w)), f(Math.max(...w)), f(first.ms),
        p.kubectl ? `kubectl ${p.kubectl.join(' ')}` : '—',
        k.length ? f(median(k)) : '—', k.length ? f(Math.min(...k)) : '—', k.length ? f(Math.max(...k)) : '—',
        ratio === null ? '—' : `${ratio.toFixed(2)}×`, pairRatio === null ? '—' : `${pairRatio.toFixed(2)}×`, target, met ? 'yes' : 'NO',
      ]);
    }
    const nodeAlone = (e: NodeJS.ProcessEnv): number[] => Array.from({ length: RUNS }, () => timed(process.execPath, ['-e', '0'], e).ms);
    const scale = (xs: number[]) => `${f(median(xs))} (median; min ${f(Math.min(...xs))}, max ${f(Math.max(...xs))})`;
    const widths = rows[0].map((_, i) => Math.max(...rows.map((r) => r[i].length)));
    for (const r of rows) console.log(r.map((c, i) => c.padEnd(widths[i])).join('  ').trimEnd());
    console.log(`\nfor scale: node -e 0 takes ${scale(nodeAlone(wmapEnv))}`);
    if (extraCa !== undefined) console.log(`           with NODE_EXTRA_CA_CERTS=${extraCa}: ${scale(nodeAlone(env))}; without: ${scale(nodeAlone(withoutExtraCa))}`);
  } finally {
    sim.kill('SIGTERM');
    rmSync(work, { recursive: true, force: true });
  }
}

await main();
