/**
 * How the CLI fails and where it prints: a dependency-free module, so that `main.ts` can tell its
 * errors apart without loading any command.
 */
export interface Io {
  out: (s: string) => void;
  err: (s: string) => void;
  /** Resolves when the user interrupts a command that runs until then (`get -w`): SIGINT/SIGTERM by default. */
  interrupted?: () => Promise<void>;
}

/** A mistake in how the command was called, or a failure it explains: `wmap: MESSAGE`, exit 1. */
export class UsageError extends Error {}

/**
 * An answer of the API server, printed as kubectl prints it (no `wmap:` prefix), so scripts that
 * match kubectl's messages match ours: `Error from server (NotFound): jobsets.jobset.x-k8s.io "x" not found`.
 */
export class ServerError extends UsageError {
  readonly reason: string;
  constructor(reason: string, message: string) {
    super(`Error from server (${reason}): ${message}`);
    this.reason = reason;
  }
}

/** kubectl's NotFound, for a resource (`jobsets.jobset.x-k8s.io`) and a name. */
export function notFound(resource: string, name: string): ServerError {
  return new ServerError('NotFound', `${resource} "${name}" not found`);
}
