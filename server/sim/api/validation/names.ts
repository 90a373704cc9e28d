/**
 * The name formats of k8s.io/apimachinery/pkg/util/validation (pure), with their exact messages:
 * DNS-1123 labels (63) and subdomains (253), DNS-1035 labels, qualified names (label and annotation
 * keys), label values, config-map keys, and the path-segment names some kinds use.
 */

const DNS1123_LABEL = '[a-z0-9]([-a-z0-9]*[a-z0-9])?';
const DNS1123_SUBDOMAIN = `${DNS1123_LABEL}(\\.${DNS1123_LABEL})*`;
const DNS1035_LABEL = '[a-z]([-a-z0-9]*[a-z0-9])?';
const QNAME_CHAR = '[A-Za-z0-9]';
const QNAME_EXT_CHAR = '[-A-Za-z0-9_.]';
const QUALIFIED_NAME = `(${QNAME_CHAR}${QNAME_EXT_CHAR}*)?${QNAME_CHAR}`;
const LABEL_VALUE = `(${QUALIFIED_NAME})?`;
const CONFIG_MAP_KEY = '[-._a-zA-Z0-9]+';

const dns1123LabelRe = new RegExp(`^${DNS1123_LABEL}$`);
const dns1123SubdomainRe = new RegExp(`^${DNS1123_SUBDOMAIN}$`);
const dns1035LabelRe = new RegExp(`^${DNS1035_LABEL}$`);
const qualifiedNameRe = new RegExp(`^${QUALIFIED_NAME}$`);
const labelValueRe = new RegExp(`^${LABEL_VALUE}$`);
const configMapKeyRe = new RegExp(`^${CONFIG_MAP_KEY}$`);

/** Length in bytes, as Go's len() of a string counts. */
function byteLength(s: string): number {
  return Buffer.byteLength(s, 'utf8');
}

export function maxLenError(n: number): string {
  return `must be no more than ${n} characters`;
}

export function regexError(msg: string, fmt: string, ...examples: string[]): string {
  if (examples.length === 0) return `${msg} (regex used for validation is '${fmt}')`;
  return `${msg} (e.g. ${examples.map((e) => `'${e}', `).join(' or ')}regex used for validation is '${fmt}')`;
}

export function isDNS1123Label(v: string): string[] {
  const errs: string[] = [];
  if (byteLength(v) > 63) errs.push(maxLenError(63));
  if (!dns1123LabelRe.test(v)) {
    if (dns1123SubdomainRe.test(v)) errs.push('must not contain dots');
    else errs.push(regexError("a lowercase RFC 1123 label must consist of lower case alphanumeric characters or '-', and must start and end with an alphanumeric character", DNS1123_LABEL, 'my-name', '123-abc'));
  }
  return errs;
}

export function isDNS1123Subdomain(v: string): string[] {
  const errs: string[] = [];
  if (byteLength(v) > 253) errs.push(maxLenError(253));
  if (!dns1123SubdomainRe.test(v)) errs.push(regexError("a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', and must start and end with an alphanumeric character", DNS1123_SUBDOMAIN, 'example.com'));
  return errs;
}

export function isDNS1035Label(v: string): string[] {
  const errs: string[] = [];
  if (byteLength(v) > 63) errs.push(maxLenError(63));
  if (!dns1035LabelRe.test(v)) errs.push(regexError("a DNS-1035 label must consist of lower case alphanumeric characters or '-', start with an alphabetic character, and end with an alphanumeric character", DNS1035_LABEL, 'my-name', 'abc-123'));
  return errs;
}

const QUALIFIED_NAME_MSG = "must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character";

export function isQualifiedName(v: string): string[] {
  const errs: string[] = [];
  const parts = v.split('/');
  let name: string;
  if (parts.length === 1) name = parts[0];
  else if (parts.length === 2) {
    const prefix = parts[0];
    name = parts[1];
    if (prefix.length === 0) errs.push('prefix part must be non-empty');
    else for (const m of isDNS1123Subdomain(prefix)) errs.push(`prefix part ${m}`);
  } else {
    return [`a qualified name ${regexError(QUALIFIED_NAME_MSG, QUALIFIED_NAME, 'MyName', 'my.name', '123-abc')} with an optional DNS subdomain prefix and '/' (e.g. 'example.com/MyName')`];
  }
  if (name.length === 0) errs.push('name part must be non-empty');
  else if (byteLength(name) > 63) errs.push(`name part ${maxLenError(63)}`);
  if (!qualifiedNameRe.test(name)) errs.push(`name part ${regexError(QUALIFIED_NAME_MSG, QUALIFIED_NAME, 'MyName', 'my.name', '123-abc')}`);
  return errs;
}

export function isValidLabelValue(v: string): string[] {
  const errs: string[] = [];
  if (byteLength(v) > 63) errs.push(maxLenError(63));
  if (!labelValueRe.test(v)) errs.push(regexError("a valid label must be an empty string or consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character", LABEL_VALUE, 'MyValue', 'my_value', '12345'));
  return errs;
}

export function isConfigMapKey(v: string): string[] {
  const errs: string[] = [];
  if (byteLength(v) > 253) errs.push(maxLenError(253));
  if (!configMapKeyRe.test(v)) errs.push(regexError("a valid config key must consist of alphanumeric characters, '-', '_' or '.'", CONFIG_MAP_KEY, 'key.name', 'KEY_NAME', 'key-name'));
  if (v === '.') errs.push("must not be '.'");
  else if (v === '..') errs.push("must not be '..'");
  else if (v.startsWith('..')) errs.push("must not start with '..'");
  return errs;
}

/** `path.IsValidPathSegmentName` (RBAC objects and other kinds whose names only need to fit a URL). */
export function isValidPathSegmentName(v: string): string[] {
  if (v === '.' || v === '..') return [`may not be '${v}'`];
  const errs: string[] = [];
  for (const bad of ['/', '%']) if (v.includes(bad)) errs.push(`may not contain '${bad}'`);
  return errs;
}

/** `maskTrailingDash`: a generateName prefix may end with a dash. */
export function maskTrailingDash(name: string): string {
  return name.length > 1 && name.endsWith('-') ? `${name.slice(0, -2)}a` : name;
}

export type NameRule = (name: string, prefix: boolean) => string[];

export const nameIsDNSSubdomain: NameRule = (n, prefix) => isDNS1123Subdomain(prefix ? maskTrailingDash(n) : n);
export const nameIsDNSLabel: NameRule = (n, prefix) => isDNS1123Label(prefix ? maskTrailingDash(n) : n);
export const nameIsDNS1035Label: NameRule = (n, prefix) => isDNS1035Label(prefix ? maskTrailingDash(n) : n);
/** `path.ValidatePathSegmentName`: a prefix may be `.` or `..`, a name may not. */
export const nameIsPathSegment: NameRule = (n, prefix) => (prefix ? isValidPathSegmentName(n).filter((m) => m.startsWith('may not contain')) : isValidPathSegmentName(n));
