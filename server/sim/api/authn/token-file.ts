/**
 * Static bearer tokens, as kube-apiserver's `--token-auth-file` reads them (pure): CSV records
 * `token,user,uid[,"group1,group2"]`; fewer than three columns is an error, an empty token is skipped,
 * a repeated token replaces the earlier one.
 */

export interface StaticToken {
  token: string;
  user: string;
  uid?: string;
  groups?: string[];
}

/** Records of a CSV text (RFC 4180 quoting, as Go's encoding/csv reads it; blank lines skipped). */
function csvRecords(text: string): string[][] {
  const records: string[][] = [];
  let record: string[] = [];
  let field = '';
  let quoted = false;
  let started = false;
  for (let i = 0; i < text.length; i++) {
    const c = text[i];
    if (quoted) {
      if (c === '"' && text[i + 1] === '"') {
        field += '"';
        i++;
      } else if (c === '"') quoted = false;
      else field += c;
      continue;
    }
    if (c === '"' && field === '') {
      quoted = true;
      started = true;
    } else if (c === ',') {
      record.push(field);
      field = '';
      started = true;
    } else if (c === '\n' || c === '\r') {
      if (c === '\r' && text[i + 1] === '\n') i++;
      if (started || field !== '') records.push([...record, field]);
      record = [];
      field = '';
      started = false;
    } else {
      field += c;
      started = true;
    }
  }
  if (started || field !== '') records.push([...record, field]);
  return records;
}

/** The tokens of a token file's text; `path` only names the file in errors. */
export function parseTokenFile(text: string, path = 'tokens.csv'): StaticToken[] {
  const out = new Map<string, StaticToken>();
  for (const r of csvRecords(text)) {
    if (r.length < 3) throw new Error(`token file '${path}' must have at least 3 columns (token, user name, user uid), found ${r.length}`);
    if (r[0] === '') continue;
    const t: StaticToken = { token: r[0], user: r[1], uid: r[2] };
    if (r.length >= 4) t.groups = r[3].split(',');
    out.set(t.token, t);
  }
  return [...out.values()];
}
