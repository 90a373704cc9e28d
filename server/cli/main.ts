/**
 * The `wmap` command line. Every failure is a message on stderr and exit code 1, never a stack trace.
 * Each command's module is imported when the command runs, never at start: `wmap --version` loads
 * commander and reads two files, `wmap validate` loads the engine, and only the live commands load
 * the cluster layer (the one-shot start time is most of what a command costs).
 */
import { Command, CommanderError } from 'commander';
import { ServerError, UsageError, type Io } from './errors.ts';
import { terminalIo, waitForSignal } from './terminal-io.ts';
import type { LiveFlags } from './live-commands.ts';
import type { GetFlags } from './get-command.ts';
import type { ContainerFlags, LabelFlags, ResourceFlags, WriteFlags } from './action-commands.ts';

/** How long `serve` may take to close after a signal before the process exits anyway. */
const STOP_GRACE_MS = 5000;

/**
 * A one-shot command prints its answer; the cluster layer's progress is for servers. A level asked
 * for (WMAP_LOG_LEVEL) or a logger set on purpose (a test capturing the audit lines) is kept.
 */
async function quietLogs(): Promise<void> {
  if (process.env.WMAP_LOG_LEVEL) return;
  const { rootLoggerWasSet, setRootDefaults } = await import('../log/index.ts');
  if (rootLoggerWasSet()) return;
  setRootDefaults({ level: 'warn' });
}

/** How the program is called in its messages: `wmap`, or `kubectl wmap` as a kubectl plugin (bin/kubectl-wmap). */
export interface MainOptions {
  name?: string;
}

export async function main(argv: string[], io: Io = terminalIo, opts: MainOptions = {}): Promise<number> {
  const state = { code: 0 };
  const name = opts.name ?? 'wmap';
  const program = buildProgram(io, state, name);
  // `--version` alone answers without parsing the rest of the command line, as `version` does.
  if (argv.length === 1 && (argv[0] === '--version' || argv[0] === '-V')) argv = ['version'];
  try {
    await program.parseAsync(argv, { from: 'user' });
    return state.code;
  } catch (e) {
    if (e instanceof CommanderError) return e.exitCode === 0 ? 0 : 1;
    // kubectl's own words for what the API server said (`Error from server (NotFound): …`).
    if (e instanceof ServerError) {
      io.err(e.message);
      return 1;
    }
    if (e instanceof UsageError) {
      io.err(`${name}: ${e.message}`);
      return 1;
    }
    io.err(`${name}: unexpected failure: ${e instanceof Error ? e.message : String(e)}`);
    return 1;
  }
}

/** The command tree (what `__complete` walks too). Actions leave their exit code in `state.code`. */
export function buildProgram(io: Io, state: { code: number }, name = 'wmap'): Command {
  const setCode = (c: number) => { state.code = c; };
  const program = new Command(name)
    .description('AI workloads on Kubernetes as one tree each: roles, status, pods and GPU totals')
    .exitOverride()
    .configureOutput({ writeOut: (s) => io.out(s.trimEnd()), writeErr: (s) => io.err(s.trimEnd()) })
    .showHelpAfterError()
    .option('-V, --version', 'the product version, the definition APIs it reads (run.ai/v1alpha1 Karta, optimization.nvidia.com/v1alpha1 ResourceInterface) and the catalog version')
    .option('--gpu-resources <list>', 'extended resources that count as GPUs, comma-separated, prefixes end in * (or WMAP_GPU_RESOURCES, or gpuResources: in ~/.config/wmap/config.yaml)');
  // The root option, for every command (commander keeps it on the program).
  const gpuFlag = (): string | undefined => program.opts<{ gpuResources?: string }>().gpuResources;

  program
    .command('validate')
    .description('check definition files (Karta or ResourceInterface); exit 1 on any error')
    .argument('<files...>', 'YAML or JSON files, or folders of them')
    .action(async (files: string[]) => { setCode((await import('./offline.ts')).cmdValidate(files, io)); });

  program
    .command('resolve')
    .description('resolve a workload from a file of objects (root, what it owns, pods) into its tree')
    .argument('<objects>', 'multi-document YAML, a JSON array or a List')
    .option('-d, --definition <file|name>', 'definition file or catalog entry (default: the catalog entry for the root kind)')
    .option('-o, --output <format>', 'json | yaml | tree', 'tree')
    .action(async (file: string, opts: { definition?: string; output: string }) => {
      const [{ cmdResolve }, { gpuPatterns }] = await Promise.all([import('./offline.ts'), import('./live-commands.ts')]);
      setCode(cmdResolve(file, { ...opts, gpuResources: gpuPatterns(gpuFlag()) }, io));
    });

  program
    .command('catalog')
    .description('list the built-in definitions')
    .option('-o, --output <format>', 'table | json', 'table')
    .action(async (opts: { output: string }) => { setCode((await import('./offline.ts')).cmdCatalog(opts, io)); });

  program
    .command('version')
    .description('the product version, the definition APIs it reads and the catalog version (what --version prints)')
    .option('-o, --output <format>', 'json | yaml')
    .action(async (opts: { output?: string }) => { setCode(await (await import('./version.ts')).cmdVersion(opts, io)); });

  program
    .command('completion')
    .description('a shell completion script: source <(wmap completion bash), or zsh')
    .argument('<shell>', 'bash | zsh')
    .action(async (shell: string) => {
      const { bashScript, zshScript } = await import('./completion.ts');
      const command = name.replace(/ /g, '-');
      if (shell === 'bash') io.out(bashScript(command).trimEnd());
      else if (shell === 'zsh') io.out(zshScript(command).trimEnd());
      else throw new UsageError(`unsupported shell "${shell}" (bash, zsh)`);
    });

  // Cobra's protocol: the candidates for the last word, then `:DIRECTIVE` (completion.ts).
  program
    .command('__complete', { hidden: true })
    .argument('[words...]')
    .allowUnknownOption()
    .helpOption(false)
    .action(async (words: string[]) => {
      const [{ complete }, { completionSources }] = await Promise.all([import('./completion.ts'), import('./completion-sources.ts')]);
      for (const line of await complete(buildProgram(io, { code: 0 }, name), words, completionSources)) io.out(line);
    });

  const liveFlags = (c: Command) =>
    c
      .option('--kubeconfig <file>', 'kubeconfig file (default: KUBECONFIG or ~/.kube/config)')
      .option('--context <name>', 'kubeconfig context (default: the current one)')
      .option('-n, --namespace <ns>', 'namespace (default: the context\'s)')
      .option('-A, --all-namespaces', 'every namespace', false)
      .option('--timeout <seconds>', 'how long to wait for the cluster', '30')
      .hook('preAction', quietLogs);

  // Utilization: where the readings come from and what counts as idle (usage-settings.ts).
  const usageFlags = (c: Command) =>
    c
      .option('--prometheus <target...>', 'Prometheus with DCGM series: URL, service:namespace/name:port, or context=either (or WMAP_PROMETHEUS; found in the cluster when absent)')
      .option('--idle-threshold <percent>', 'a GPU below this utilization for the idle window is idle (default 5)')
      .option('--idle-window <duration>', 'how long a GPU must stay below the threshold to be idle (default 15m)')
      .option('--usage-interval <duration>', 'how often utilization is read (default 30s)')
      .option('--no-usage', 'do not read GPU utilization');

  // kubectl's selection and output habits (get-command.ts), for get, tree and describe.
  const kubectlFlags = (c: Command) =>
    c
      .option('-l, --selector <selector>', "label selector on the workload's root object: key=value, key!=value, key in (a,b), key notin (a), key, !key")
      .option('--field-selector <selector>', 'metadata.name, metadata.namespace or status.phase: field=value, field!=value, comma-separated')
      .option('--phase <phases>', "only workloads in these native phases (the root's status.phase), comma-separated")
      .option('--status <statuses>', 'only workloads with these statuses (Running, Pending, Failed, …), comma-separated')
      .option('--sort-by <spec>', 'a JSONPath over the row or tree (.gpus.allocated), or a sort name (allocated, requested, desired, age, name, namespace, status, pods, …)')
      .option('--no-headers', 'no header line in tables and custom columns');

  // `get workloads` (every kind; also `workload`, `wl`) or `get KIND[/NAME]` (the workloads of one
  // kind): one command, so that its flags go anywhere on the line, as kubectl's do.
  kubectlFlags(usageFlags(liveFlags(program.command('get').description('one line per workload: status, GPUs, pods, roles (utilization with -o wide). `get workloads`: every kind; `get KIND`: the workloads of one kind (a resource, short name or kind.group, as kubectl names it); KIND/NAME or KIND NAME…: only those').argument('[workloads|kind[/name]]').argument('[names...]', 'only these workloads (NotFound for the others)'))))
    .option('-o, --output <format>', 'json | yaml | wide | name | jsonpath=TEMPLATE | custom-columns=SPEC')
    .option('-w, --watch', 'after the listing, print rows as they change, until interrupted', false)
    .option('--chunk-size <n>', 'list in pages of this many objects (0: in one)', '500')
    .option('--idle', 'only workloads holding idle GPUs', false)
    .option('-q, --query <query>', "the dashboard's filters and sort as its URL query, e.g. 'status=Running&minGpus=8&sort=allocated'")
    .action(async (what: string | undefined, names: string[], o: GetFlags) => {
      const { cmdGet, parseGetArgs } = await import('./get-command.ts');
      const scope = parseGetArgs(what === undefined ? names : [what, ...names]);
      setCode(await cmdGet(scope.names, { ...o, gpuResources: gpuFlag() }, io, scope.kind));
    });

  const top = program.command('top').description('GPU utilization, like kubectl top');
  usageFlags(liveFlags(top.command('workloads').alias('workload').alias('wl').description('workloads holding GPUs, most idle GPUs first: utilization, GPU memory, idle GPUs and since when')))
    .option('-o, --output <format>', 'json | yaml')
    .option('-q, --query <query>', "the dashboard's filters as its URL query, e.g. 'namespace=team-a&preset=underused'")
    .action(async (o: LiveFlags) => { setCode(await (await import('./top-command.ts')).cmdTopWorkloads({ ...o, gpuResources: gpuFlag() }, io)); });

  kubectlFlags(liveFlags(program.command('tree').description('the workload tree of a live object (KIND/NAME, KIND NAME, or KIND with -l: every workload of the kind)').argument('<kind[/name]>').argument('[name]')))
    .option('-o, --output <format>', 'tree | wide | json | yaml | name | jsonpath=TEMPLATE | custom-columns=SPEC', 'tree')
    .option('--chunk-size <n>', 'list in pages of this many objects (0: in one)', '500')
    .action(async (ref: string, name: string | undefined, o: GetFlags) => { setCode(await (await import('./tree-command.ts')).cmdTree(ref, name, { ...o, gpuResources: gpuFlag() }, io)); });

  kubectlFlags(liveFlags(program.command('describe').description('a workload in full: tree, resources per role with a total, why pods are not running, recent warning events').argument('[kind[/name]]').argument('[name]')))
    .option('-f, --filename <file>', 'describe the workload in a file of objects instead (no cluster, no live status)')
    .option('-d, --definition <file|name>', 'with -f: definition file or catalog entry (default: the catalog entry for the root kind)')
    .option('--chunk-size <n>', 'list in pages of this many objects (0: in one)', '500')
    .action(async (ref: string | undefined, name: string | undefined, o: GetFlags & { filename?: string; definition?: string }) => {
      const [{ cmdDescribe }, { gpuPatterns }] = await Promise.all([import('./describe-command.ts'), import('./live-commands.ts')]);
      setCode(await cmdDescribe(ref, name, { ...o, gpuResources: gpuFlag(), gpuResourceList: gpuPatterns(gpuFlag()) }, io));
    });

  liveFlags(program.command('logs').description("the logs of a workload's pods (every role, or --role), each line prefixed with its pod and container").argument('<kind/name>'))
    .option('-r, --role <role>', 'only the pods of this role (as `wmap tree` names it)')
    .option('-f, --follow', 'keep streaming, and add pods as they appear, until interrupted', false)
    .option('--tail <lines>', 'lines of each log to show from its end (-1: all)')
    .option('-c, --container <name>', 'this container (default: the pod\'s default container)')
    .option('--all-containers', 'every container of each pod', false)
    .option('-p, --previous', "the container's previous instance (before its last restart)", false)
    .option('--timestamps', 'prefix each line with its timestamp', false)
    .option('--no-prefix', 'print lines without their [pod/NAME/CONTAINER] prefix')
    .option('--max-log-requests <n>', 'streams followed at once, at most', '10')
    .action(async (ref: string, o: LiveFlags & { role?: string; follow?: boolean; tail?: string; container?: string; allContainers?: boolean; previous?: boolean; timestamps?: boolean; prefix?: boolean; maxLogRequests?: string }) => {
      const { cmdLogs } = await import('./logs-command.ts');
      setCode(await cmdLogs(ref, { ...o, gpuResources: gpuFlag() }, io));
    });

  // The write commands: each prints the diff, dry-runs on the server, writes with a resourceVersion precondition.
  const writeFlags = (c: Command) => liveFlags(c).option('--dry-run [mode]', 'client: show the diff only; server: also let the API server check it, without persisting; none: write (the default)');
  const actions = () => import('./action-commands.ts');
  for (const action of ['suspend', 'resume'] as const) {
    writeFlags(program.command(action).description(`${action} a workload through its definition's suspendDefinition: prints the diff, dry-runs on the server, writes with a resourceVersion precondition`).argument('<kind/name>'))
      .action(async (ref: string, o: WriteFlags) => { setCode(await (await actions()).cmdAction(action, ref, { ...o, gpuResources: gpuFlag() }, io)); });
  }
  for (const [name, action] of [['label', 'labels'], ['annotate', 'annotations']] as const) {
    writeFlags(program.command(name).description(`set (key=value) or remove (key-) ${action} on the pod templates of a role, or of every role: like kubectl ${name}, through the definition`).argument('<kind/name>').argument('<changes...>', 'key=value sets, key- removes'))
      .option('-r, --role <role>', 'only this role (as `wmap tree` names it, or a component for all its instances); default: every role with a pod template')
      .option('--overwrite', `change ${action} that already have another value`, false)
      .action(async (ref: string, changes: string[], o: LabelFlags) => { setCode(await (await actions()).cmdLabel(action, ref, changes, { ...o, gpuResources: gpuFlag() }, io)); });
  }
  const set = program.command('set').description("change a role's pod template, like kubectl set: image, env, resources");
  const roleFlags = (c: Command) => writeFlags(c).requiredOption('-r, --role <role>', 'the role (as `wmap tree` names it, or a component for all its instances)');
  roleFlags(set.command('image').description('set container images in the pod templates of a role').argument('<kind/name>').argument('<container=image...>', 'CONTAINER=IMAGE pairs (*=IMAGE: every container of the role)'))
    .action(async (ref: string, pairs: string[], o: ContainerFlags) => { setCode(await (await actions()).cmdSetImage(ref, pairs, { ...o, gpuResources: gpuFlag() }, io)); });
  roleFlags(set.command('env').description("set (KEY=VALUE) or remove (KEY-) a container's environment variables in the pod templates of a role").argument('<kind/name>').argument('<changes...>', 'KEY=VALUE sets, KEY- removes'))
    .option('-c, --container <name>', "the container (default: the role's only one)")
    .action(async (ref: string, changes: string[], o: ContainerFlags) => { setCode(await (await actions()).cmdSetEnv(ref, changes, { ...o, gpuResources: gpuFlag() }, io)); });
  roleFlags(set.command('resources').description("set a container's resource requests and limits in the pod templates of a role").argument('<kind/name>'))
    .option('-c, --container <name>', "the container (default: the role's only one)")
    .option('--requests <list>', 'requests, e.g. cpu=1,memory=2Gi (name- removes one)')
    .option('--limits <list>', 'limits, e.g. nvidia.com/gpu=2 (name- removes one)')
    .action(async (ref: string, o: ResourceFlags) => { setCode(await (await actions()).cmdSetResources(ref, { ...o, gpuResources: gpuFlag() }, io)); });
  writeFlags(program.command('delete').description('delete a workload (its root object) with a resourceVersion precondition; what it owns goes with it unless --cascade=orphan').argument('<kind/name>'))
    .option('--cascade <mode>', 'background (the default): dependents are removed after the root; foreground: before it; orphan: left behind', 'background')
    .action(async (ref: string, o: WriteFlags & { cascade?: string }) => { setCode(await (await actions()).cmdDelete(ref, { ...o, gpuResources: gpuFlag() }, io)); });

  // Definitions in the clusters: register them (the write path, kubectl's words) and list what each cluster has.
  const oneShot = (c: Command) =>
    c
      .option('--kubeconfig <file>', 'kubeconfig file (default: KUBECONFIG or ~/.kube/config)')
      .option('--context <name>', 'kubeconfig context (default: the current one)')
      .hook('preAction', quietLogs);
  oneShot(program.command('apply').description("register Karta definitions in the cluster, like kubectl apply: validated first (errors with lines and field paths), checked against the cluster's CRD, dry-run on the server, created or updated with a resourceVersion precondition"))
    .option('-f, --filename <file...>', 'YAML or JSON files of Karta definitions (- for stdin)')
    .option('--dry-run [mode]', 'client: show what would happen only; server: also let the API server check it, without persisting; none: write (the default)')
    .option('--install-crd', "install the kartas.run.ai CRD Workload Map ships first when the cluster lacks it (or has an older one), if you may", false)
    .option('--diff', 'print the diff of each definition before its result', false)
    .action(async (o: { filename?: string[]; dryRun?: string | boolean; installCrd?: boolean; diff?: boolean; kubeconfig?: string; context?: string }) => {
      const { cmdApply } = await import('./apply-command.ts');
      setCode(await cmdApply(o, io));
    });
  oneShot(program.command('definitions').alias('defs').description("the catalog's and each cluster's definitions: which one serves each root kind, what a cluster definition overrides, the kartas.run.ai CRD's state, run.ai/karta-* label mismatches"))
    .option('-o, --output <format>', 'wide | json | yaml')
    .option('--all-contexts', 'every context of the kubeconfig, not only the current one', false)
    .action(async (o: { output?: string; allContexts?: boolean; kubeconfig?: string; context?: string }) => {
      const { cmdDefinitions } = await import('./definitions-command.ts');
      setCode(await cmdDefinitions(o, io));
    });

  liveFlags(program.command('verify').description("compare a definition's view with the raw ownership graph; exit 1 on a discrepancy").argument('[kind/name]'))
    .option('--all', 'every workload', false)
    .option('-d, --definition <file>', "try this definition file on the workload instead of the one that serves it (the studio's trial)")
    .action(async (ref: string | undefined, o: LiveFlags & { all?: boolean; definition?: string }) => {
      if (o.definition) {
        const { cmdVerifyDefinition } = await import('./draft-command.ts');
        setCode(await cmdVerifyDefinition(ref, o.definition, { ...o, gpuResources: gpuFlag() }, io));
      } else setCode(await (await import('./live-commands.ts')).cmdVerify(ref, { ...o, gpuResources: gpuFlag() }, io));
    });

  liveFlags(program.command('draft').description('propose a definition (run.ai/v1alpha1 Karta) for a live workload from what its objects show; guesses are marked').argument('<kind/name>'))
    .option('-o, --output <format>', 'yaml (guesses as comments) | json (guesses on stderr)', 'yaml')
    .action(async (ref: string, o: LiveFlags) => {
      const { cmdDraft } = await import('./draft-command.ts');
      setCode(await cmdDraft(ref, { ...o, gpuResources: gpuFlag() }, io));
    });

  usageFlags(program
    .command('serve')
    .description('serve the dashboard and API (what `npm start` runs); the embedded simulated cluster when there is no kubeconfig')
    .option('-p, --port <port>', 'port', process.env.PORT ?? '3000')
    .option('-H, --host <host>', 'address to bind (anything but loopback needs --token)', process.env.HOST ?? '127.0.0.1')
    .option('--demo', 'use the embedded simulated cluster even when a kubeconfig exists', false)
    .option('--kubeconfig <file>', 'kubeconfig file (default: KUBECONFIG or ~/.kube/config)')
    .option('--context <name...>', 'only these contexts')
    .option('--token <token>', 'access token required from clients (or WMAP_TOKEN)')
    .option('--allowed-host <name...>', 'host names or addresses clients use to reach an exposed server (or WMAP_ALLOWED_HOSTS)')
    .option('--shared', 'shared mode on loopback too: every request signs in (always on beyond loopback or in a cluster)', false)
    .option('--no-token-signin', 'shared mode: do not accept Kubernetes bearer tokens (TokenReview) for sign-in')
    .option('--auth-cluster <context>', 'shared mode: the cluster whose TokenReview checks sign-in tokens (default: the first)')
    .option('--oidc-issuer <url>', 'shared mode: OIDC sign-in with this issuer (or WMAP_OIDC_ISSUER)', process.env.WMAP_OIDC_ISSUER)
    .option('--oidc-client-id <id>', 'the OIDC client id (or WMAP_OIDC_CLIENT_ID)', process.env.WMAP_OIDC_CLIENT_ID)
    .option('--oidc-username-claim <claim>', 'the ID token claim that is the Kubernetes user name', 'email')
    .option('--oidc-groups-claim <claim>', 'the ID token claim with the groups', 'groups')
    .option('--public-url <url>', "the dashboard's external URL (the OIDC callback is <url>/auth/oidc/callback; https makes cookies Secure)")
    .option('--auth-proxy-user-header <name>', 'shared mode behind an authenticating proxy: its user header (the proxy secret comes from WMAP_PROXY_SECRET)', 'x-remote-user')
    .option('--auth-proxy-group-header <name>', "the proxy's group header", 'x-remote-group')
    .option('--read-only', 'no writes (actions) at all', false)
    .option('--allow-writes', 'writes in shared mode, authorized as each user (off by default there)', false))
    .action(async (o: { port: string; host: string; demo: boolean; kubeconfig?: string; context?: string[]; token?: string; allowedHost?: string[]; shared: boolean; tokenSignin: boolean; authCluster?: string; oidcIssuer?: string; oidcClientId?: string; oidcUsernameClaim: string; oidcGroupsClaim: string; publicUrl?: string; authProxyUserHeader: string; authProxyGroupHeader: string; readOnly: boolean; allowWrites: boolean } & LiveFlags) => {
      const [{ serve }, { gpuPatterns, usageSettingsOf }] = await Promise.all([import('./serve.ts'), import('./live-commands.ts')]);
      const port = Number(o.port);
      const publicUrl = (o.publicUrl ?? `http://${o.host.includes(':') ? `[${o.host}]` : o.host}:${port}`).replace(/\/+$/, '');
      if (o.oidcIssuer && !o.oidcClientId) throw new UsageError('--oidc-issuer needs --oidc-client-id (or WMAP_OIDC_CLIENT_ID)');
      const oidc = o.oidcIssuer && o.oidcClientId ? { issuer: o.oidcIssuer, clientId: o.oidcClientId, clientSecret: process.env.WMAP_OIDC_CLIENT_SECRET, redirectUri: `${publicUrl}/auth/oidc/callback`, usernameClaim: o.oidcUsernameClaim, groupsClaim: o.oidcGroupsClaim } : undefined;
      const proxySecret = process.env.WMAP_PROXY_SECRET;
      const proxy = proxySecret ? { secret: proxySecret, userHeader: o.authProxyUserHeader, groupHeader: o.authProxyGroupHeader } : undefined;
      const s = await serve({ port, host: o.host, demo: o.demo, kubeconfig: o.kubeconfig, contexts: o.context, token: o.token, allowedHosts: o.allowedHost, gpuResources: gpuPatterns(gpuFlag()), usage: usageSettingsOf(o), shared: o.shared, tokenSignIn: o.tokenSignin, authCluster: o.authCluster, oidc, proxy, readOnly: o.readOnly, allowWrites: o.allowWrites, publicUrl: o.publicUrl });
      await waitForSignal();
      // Stopping must never hang on a slow peer or a busy stretch: a few seconds, then out.
      setTimeout(() => process.exit(0), STOP_GRACE_MS).unref();
      process.once('SIGINT', () => process.exit(130));
      process.once('SIGTERM', () => process.exit(143));
      await s.close();
      setCode(0);
    });

  program
    .command('sim')
    .description('run the simulated Kubernetes cluster in the foreground and print where its kubeconfig is')
    .option('--scenario <name>', 'empty | demo | scale', 'demo')
    .option('-p, --port <port>', 'port (0 = any free port)', '0')
    .option('--kubeconfig <file>', 'where to write the kubeconfig')
    .option('--pods <n>', 'scale: pods')
    .option('--workloads <n>', 'scale: workloads')
    .option('--nodes <n>', 'scale: nodes')
    .option('--churn <n>', 'scale: events per second')
    .option('--faults <json>', 'faults as JSON, e.g. {"watchDropEverySeconds":30,"errorRate":0.05}')
    .option('--seed <n>', 'random seed', '1')
    .option('--state-file <file>', 'keep state across restarts in this file')
    .option('--prometheus', "also run a real Prometheus (Debian's prometheus binary) scraping the simulated DCGM exporters, registered as the service monitoring/prometheus-k8s", false)
    .option('--scrape-interval <seconds>', "Prometheus's scrape interval", '15')
    .action(async (o: { scenario: string; port: string; kubeconfig?: string; pods?: string; workloads?: string; nodes?: string; churn?: string; faults?: string; seed: string; stateFile?: string; prometheus: boolean; scrapeInterval: string }) => {
      if (!['empty', 'demo', 'scale'].includes(o.scenario)) throw new UsageError(`unknown scenario "${o.scenario}" (empty, demo, scale)`);
      let faults: Record<string, unknown> | undefined;
      if (o.faults) {
        try {
          faults = JSON.parse(o.faults) as Record<string, unknown>;
        } catch {
          throw new UsageError('--faults must be JSON, e.g. {"watchDropEverySeconds":30}');
        }
      }
      const num = (v?: string) => (v === undefined ? undefined : Number(v));
      const { startSim } = await import('../sim/index.ts');
      const sim = await startSim({
        scenario: o.scenario as 'empty' | 'demo' | 'scale',
        port: Number(o.port),
        kubeconfigPath: o.kubeconfig,
        seed: Number(o.seed),
        stateFile: o.stateFile,
        faults,
        scale: { pods: num(o.pods), workloads: num(o.workloads), nodes: num(o.nodes), churnPerSecond: num(o.churn) },
      });
      const { startPrometheus } = await import('../sim/index.ts');
      const prometheus = o.prometheus ? await startPrometheus({ sim, scrapeIntervalSeconds: Number(o.scrapeInterval) }) : null;
      io.out(`simulated cluster at ${sim.url}`);
      // Before the kubeconfig line, which scripts wait for.
      if (prometheus) io.out(`prometheus: ${prometheus.url}`);
      io.out(`kubeconfig: ${sim.kubeconfigPath}`);
      io.out(`try: KUBECONFIG=${sim.kubeconfigPath} kubectl get pods -A`);
      await waitForSignal();
      await prometheus?.stop();
      await sim.stop();
      setCode(0);
    });

  return program;
}
