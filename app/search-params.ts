/** A page's searchParams back as a query string (repeated keys kept), for views that read their state from the URL. */
export type SearchParams = Record<string, string | string[] | undefined>;

export function queryString(sp: SearchParams): string {
  const p = new URLSearchParams();
  for (const [k, v] of Object.entries(sp)) {
    if (Array.isArray(v)) for (const x of v) p.append(k, x);
    else if (v !== undefined) p.append(k, v);
  }
  return p.toString();
}
