/** The dashboard's calls of the write path (`…/actions`): a preview, then the write with the previewed version. */
import type { ActionAnswer, ActionSpecJson } from '../../contract/index.ts';

export async function postAction(api: string, body: { mode: 'preview' | 'apply'; actions: ActionSpecJson[]; resourceVersion?: string; fingerprint?: string }): Promise<ActionAnswer> {
  const res = await fetch(`${api}/actions`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body), cache: 'no-store' });
  const answer = (await res.json().catch(() => null)) as (ActionAnswer & { error?: { message?: string } }) | null;
  if (!answer) throw new Error(`HTTP ${res.status}`);
  if (answer.error) return { plan: null, result: 'invalid', message: answer.error.message ?? `HTTP ${res.status}`, diff: '' };
  return answer;
}
