/**
 * Leading-and-trailing throttle: the first call runs at once, calls during the next `ms` collapse
 * into one at its end. Under heavy churn the table then re-derives a few times a second at most,
 * and the last change is never lost.
 */
export interface Timers {
  set(fn: () => void, ms: number): ReturnType<typeof setTimeout>;
  clear(t: ReturnType<typeof setTimeout>): void;
}

// Wrapped, not passed as is: browsers throw "Illegal invocation" when setTimeout is called as a
// method of another object.
const GLOBAL_TIMERS: Timers = { set: (fn, ms) => setTimeout(fn, ms), clear: (t) => clearTimeout(t) };

export function throttle(fn: () => void, ms: number, timers: Timers = GLOBAL_TIMERS) {
  let last = Number.NEGATIVE_INFINITY;
  let timer: ReturnType<typeof setTimeout> | null = null;
  const run = () => {
    timer = null;
    last = Date.now();
    fn();
  };
  const call = () => {
    if (timer) return;
    const wait = last + ms - Date.now();
    if (wait <= 0) run();
    else timer = timers.set(run, wait);
  };
  call.cancel = () => {
    if (timer) timers.clear(timer);
    timer = null;
  };
  return call;
}
