/**
 * What the server counts and times (instruments.ts: plain calls, no dependency, no-ops until a
 * server installs a registry), and the route templates its request metrics use. The Prometheus
 * registry itself (prometheus.ts, prom-client) is imported only by `wmap serve`, so the CLI and the
 * modules that report carry no metrics library.
 */
export { instruments, setInstruments, type Instruments, type WatchInstruments, type WatchRestartReason } from './instruments.ts';
export { routeTemplate } from './route-template.ts';
