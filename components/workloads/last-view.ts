/**
 * The table's last query string in this tab, so that "← Workloads" on a workload page returns to
 * the filtered, sorted view the user came from. Module state: it lives as long as the page does.
 */
let last = '';

export function rememberTableQuery(qs: string): void {
  last = qs;
}

export function tableHref(): string {
  return last ? `/?${last}` : '/';
}
