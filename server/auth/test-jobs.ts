/** Jobs for the worker pool's tests: each one misbehaves in one way a hostile validation could. */
export function echo(input: string): string {
  return `echo:${input}`;
}

export function spin(): never {
  for (;;) {
    // A job that never yields: only terminating its worker stops it.
  }
}

export function hog(): number {
  const keep: number[][] = [];
  for (;;) keep.push(new Array<number>(1 << 16).fill(keep.length));
}

export function recurse(n: number): number {
  return recurse(n + 1) + 1;
}

export function fail(): never {
  throw new Error('the job failed\nwith a second line');
}
