/**
 * Leading-and-trailing throttle: the first call runs at once, calls during the next `ms` collapse
 * into one at its end. Under heavy churn the table then re-derives a few times a second at most,
 * and the last change is never lost.
 */
export function throttle(fn: () => void, ms: number, timers: { set: typeof setTimeout; clear: typeof clearTimeout } = { set: setTimeout, clear: clearTimeout }) {
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
