/** A JSON GET of the dashboard's own API; a non-2xx answer throws the API's error message. */
export async function fetchApiJson<T>(url: string): Promise<T> {
  const res = await fetch(url, { cache: 'no-store' });
  const body = (await res.json().catch(() => null)) as (T & { error?: { message?: string } }) | null;
  if (!res.ok || !body) throw new Error(body?.error?.message ?? `HTTP ${res.status}`);
  return body;
}
