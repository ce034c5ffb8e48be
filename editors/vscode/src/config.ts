// Settings, file patterns and preview formatting. No `vscode` import: the
// unit tests run this module with plain node (test/unit/config.test.js).
import * as path from 'node:path';
import { expandPath } from './serverPath';

export const SECTION = 'pcpDerived';

export type Dialect = 'auto' | 'pcp6' | 'pcp7';
export type LogLevel = 'debug' | 'info' | 'warn' | 'error';
export type SourceKind = 'host' | 'socket' | 'archive' | 'metadata' | 'pmproxy';
export const SOURCE_KINDS: readonly SourceKind[] = ['host', 'socket', 'archive', 'metadata', 'pmproxy'];

/** The source settings: one kind at a time, and the pmcd a pmproxy reaches. */
export type SourceSettings = Record<SourceKind, string> & { hostspec: string };

/** The hosts a config is deployed to (lsp/fleet.go FleetSettings). */
export interface FleetSettings {
  hosts: string[];
  hostsFile: string;
  archiveDir: string;
  pmproxy: string;
  concurrency: number;
  hostTimeout: number;
}

/** The pcpDerived.* settings as the extension reads them. */
export interface ExtensionSettings {
  serverPath: string;
  source: SourceSettings;
  fleet: FleetSettings;
  pcpVersion: string;
  dialect: Dialect;
  indomConfig: string;
  derivedControl: string;
  preview: { enabled: boolean; interval: number };
  inlayHints: boolean;
  debounce: number;
  logLevel: LogLevel;
  filePatterns: string[];
}

/** What the server reads from initializationOptions and didChangeConfiguration (lsp/server.go Settings). */
export interface ServerSettings {
  pcpVersion: string;
  dialect: Dialect;
  source: SourceSettings;
  fleet: FleetSettings;
  indomConfig: string;
  derivedControl: string;
  preview: { enabled: boolean; interval: number };
  inlayHints: boolean;
  debounce: number;
  logLevel: LogLevel;
}

/** Reads one setting; the extension passes WorkspaceConfiguration.get. */
export type Getter = (key: string) => unknown;

function str(v: unknown): string {
  return typeof v === 'string' ? v.trim() : '';
}

function oneOf<T extends string>(v: unknown, allowed: readonly T[], fallback: T): T {
  return typeof v === 'string' && (allowed as readonly string[]).includes(v) ? (v as T) : fallback;
}

function num(v: unknown, fallback: number, min: number): number {
  return typeof v === 'number' && Number.isFinite(v) ? Math.max(v, min) : fallback;
}

/** Reads the settings with their defaults, tolerating wrong types. */
export function readSettings(get: Getter): ExtensionSettings {
  const patterns = get('filePatterns');
  const hosts = get('fleet.hosts');
  return {
    serverPath: str(get('server.path')),
    source: {
      host: str(get('source.host')),
      socket: str(get('source.socket')),
      archive: str(get('source.archive')),
      metadata: str(get('source.metadata')),
      pmproxy: str(get('source.pmproxy')),
      hostspec: str(get('source.hostspec')),
    },
    fleet: {
      hosts: Array.isArray(hosts) ? hosts.filter((h): h is string => typeof h === 'string' && h.trim() !== '').map((h) => h.trim()) : [],
      hostsFile: str(get('fleet.hostsFile')),
      archiveDir: str(get('fleet.archiveDir')),
      pmproxy: str(get('fleet.pmproxy')),
      concurrency: Math.round(num(get('fleet.concurrency'), 16, 1)),
      hostTimeout: num(get('fleet.hostTimeout'), 10, 1),
    },
    pcpVersion: str(get('pcpVersion')) || 'auto',
    dialect: oneOf(get('dialect'), ['auto', 'pcp6', 'pcp7'] as const, 'auto'),
    indomConfig: str(get('indomConfig')),
    derivedControl: str(get('derivedControl')),
    preview: {
      enabled: get('preview.enabled') !== false,
      interval: num(get('preview.interval'), 10, 1),
    },
    inlayHints: get('inlayHints') !== false,
    debounce: Math.round(num(get('debounce'), 150, 0)),
    logLevel: oneOf(get('logLevel'), ['debug', 'info', 'warn', 'error'] as const, 'info'),
    filePatterns: Array.isArray(patterns) ? patterns.filter((p): p is string => typeof p === 'string' && p.trim() !== '') : [],
  };
}

export interface PathContext {
  workspaceFolder?: string;
  homedir?: string;
  env?: NodeJS.ProcessEnv;
}

/**
 * The settings the server gets. Paths are made absolute here (the server
 * resolves relative ones against its own working directory, which is not
 * the workspace); host and "embedded" pass through.
 */
export function toServerSettings(s: ExtensionSettings, ctx: PathContext = {}): ServerSettings {
  const file = (p: string) => (p === '' ? '' : expandPath(p, ctx));
  return {
    pcpVersion: s.pcpVersion,
    dialect: s.dialect,
    source: {
      host: s.source.host,
      socket: file(s.source.socket),
      archive: file(s.source.archive),
      metadata: s.source.metadata === 'embedded' ? 'embedded' : file(s.source.metadata),
      pmproxy: s.source.pmproxy,
      hostspec: s.source.hostspec,
    },
    fleet: { ...s.fleet, hosts: [...s.fleet.hosts], hostsFile: file(s.fleet.hostsFile), archiveDir: file(s.fleet.archiveDir) },
    indomConfig: file(s.indomConfig),
    derivedControl: s.derivedControl,
    preview: { ...s.preview },
    inlayHints: s.inlayHints,
    debounce: s.debounce,
    logLevel: s.logLevel,
  };
}

/** The source the server will use, as libpcp's precedence in pmclient/choose picks it. */
export function effectiveSource(s: ExtensionSettings): { kind: SourceKind | 'auto'; value: string } {
  for (const kind of ['metadata', 'archive', 'pmproxy', 'host', 'socket'] as const) {
    if (s.source[kind] !== '') {
      return { kind, value: s.source[kind] };
    }
  }
  return { kind: 'auto', value: '' };
}

/** A short name of the configured source for the status bar, and a longer one. */
export function describeSource(s: ExtensionSettings): { label: string; detail: string } {
  const src = effectiveSource(s);
  switch (src.kind) {
    case 'metadata':
      return src.value === 'embedded'
        ? { label: 'embedded snapshot', detail: 'the metadata snapshot embedded in pcp-derive-lsp' }
        : { label: `snapshot ${path.basename(src.value)}`, detail: `metadata snapshot ${src.value}` };
    case 'archive':
      return { label: `archive ${path.basename(src.value)}`, detail: `PCP archive ${src.value}` };
    case 'pmproxy': {
      const target = s.source.hostspec || s.source.host;
      return {
        label: `${target || 'pmcd'} via pmproxy`,
        detail: `pmcd on ${target || "pmproxy's own host"} through pmproxy ${src.value}`,
      };
    }
    case 'host':
      return { label: src.value, detail: `pmcd on ${src.value}` };
    case 'socket':
      return { label: `socket ${path.basename(src.value)}`, detail: `pmcd on unix socket ${src.value}` };
    default:
      return {
        label: 'auto',
        detail: '$PCP_HOST or $PCP_ARCHIVE if set, else the local pmcd if it answers, else the embedded snapshot',
      };
  }
}

/** The source settings for one choice: the chosen one set, the others cleared. */
export function sourceUpdate(kind: SourceKind | 'auto', value = ''): Record<SourceKind, string | undefined> {
  const out: Record<SourceKind, string | undefined> = { host: undefined, socket: undefined, archive: undefined, metadata: undefined, pmproxy: undefined };
  if (kind !== 'auto') {
    out[kind] = value;
  }
  return out;
}

/** Whether a change of settings needs a new server process (not just didChangeConfiguration). */
export function needsRestart(before: ExtensionSettings, after: ExtensionSettings): boolean {
  return before.serverPath !== after.serverPath || JSON.stringify(before.filePatterns) !== JSON.stringify(after.filePatterns);
}

// ---- file patterns ----

/**
 * Turns a glob into a regular expression over "/"-separated paths:
 * "**" any number of directories, "*" and "?" within one name, "{a,b}"
 * alternatives, "[...]" character classes.
 */
export function globToRegExp(glob: string): RegExp {
  let re = '';
  let inGroup = 0;
  for (let i = 0; i < glob.length; i++) {
    const c = glob[i];
    switch (c) {
      case '*':
        if (glob[i + 1] === '*') {
          // "**/" matches zero or more directories; a trailing "**" anything.
          i++;
          if (glob[i + 1] === '/') {
            i++;
            re += '(?:[^/]*/)*';
          } else {
            re += '.*';
          }
        } else {
          re += '[^/]*';
        }
        break;
      case '?':
        re += '[^/]';
        break;
      case '{':
        inGroup++;
        re += '(?:';
        break;
      case '}':
        if (inGroup > 0) {
          inGroup--;
          re += ')';
        } else {
          re += '\\}';
        }
        break;
      case ',':
        re += inGroup > 0 ? '|' : ',';
        break;
      case '[': {
        const close = glob.indexOf(']', i + 2);
        if (close < 0) {
          re += '\\[';
          break;
        }
        let body = glob.slice(i + 1, close);
        if (body.startsWith('!')) {
          body = '^' + body.slice(1);
        }
        re += '[' + body.replace(/\\/g, '\\\\') + ']';
        i = close;
        break;
      }
      case '\\':
        re += '/';
        break;
      default:
        re += c.replace(/[.+^$()|\]]/g, '\\$&');
    }
  }
  while (inGroup-- > 0) {
    re += ')';
  }
  return new RegExp('^' + re + '$');
}

/**
 * A matcher for the pcpDerived.filePatterns setting. A pattern without "/"
 * matches the file name (like files.associations); an absolute pattern
 * matches the whole path; any other is matched anywhere below the root, as
 * if it began with "**\/".
 */
export function fileMatcher(patterns: readonly string[]): (fsPath: string) => boolean {
  const tests = patterns
    .map((p) => p.trim().replace(/\\/g, '/'))
    .filter((p) => p !== '')
    .map((p) => {
      if (!p.includes('/')) {
        const re = globToRegExp(p);
        return (full: string) => re.test(full.slice(full.lastIndexOf('/') + 1));
      }
      const absolute = p.startsWith('/') || /^[A-Za-z]:\//.test(p) || p.startsWith('**/');
      const re = globToRegExp(absolute ? p : '**/' + p);
      return (full: string) => re.test(full);
    });
  return (fsPath: string) => {
    const full = fsPath.replace(/\\/g, '/');
    return tests.some((t) => t(full));
  };
}

// ---- previews ----

/** The answer of the server's pcp/preview request (lsp/hints.go PreviewResult). */
export interface PreviewResult {
  name: string;
  source: string;
  timestamp?: string;
  metadata?: string;
  values: { instance?: string; value: string }[] | null;
  error?: string;
  text: string;
}

/** Parameters of pcp/preview: a definition, by any position in it. */
export interface PreviewParams {
  textDocument: { uri: string };
  position: { line: number; character: number };
}

export function previewParams(uri: string, line: number, character: number): PreviewParams {
  return { textDocument: { uri }, position: { line, character } };
}

/** Checks the shape of a pcp/preview answer. */
export function isPreviewResult(v: unknown): v is PreviewResult {
  if (typeof v !== 'object' || v === null) {
    return false;
  }
  const r = v as Record<string, unknown>;
  return typeof r.name === 'string' && typeof r.text === 'string' && (r.values === null || r.values === undefined || Array.isArray(r.values));
}

/** A preview as lines for the output channel. */
export function formatPreview(r: PreviewResult): string[] {
  const head = [`${r.name} from ${r.source}${r.timestamp ? ` at ${r.timestamp}` : ''}`];
  if (r.metadata) {
    head.push(`  ${r.metadata}`);
  }
  if (r.error) {
    return [...head, `  error: ${r.error}`];
  }
  const values = r.values ?? [];
  if (values.length === 0) {
    return [...head, '  no values'];
  }
  const width = Math.min(40, Math.max(0, ...values.map((v) => (v.instance ?? '').length)));
  return [
    ...head,
    ...values.map((v) => (v.instance !== undefined && v.instance !== '' ? `  [${v.instance}]${' '.repeat(Math.max(0, width - v.instance.length))}  ${v.value}` : `  ${v.value}`)),
  ];
}

/** Turns an error from a pcp/preview request into a sentence for the user. */
export function previewErrorMessage(err: unknown): string {
  const e = err as { code?: unknown; message?: unknown } | undefined;
  if (e?.code === -32601) {
    return 'This pcp-derive-lsp does not answer pcp/preview (method not found): update the server to preview values.';
  }
  const msg = typeof e?.message === 'string' ? e.message : String(err);
  return `Preview failed: ${msg.replace(/^pcp\/preview: /, '')}`;
}

// ---- explain ----

/** The server's "Explain this metric" command (lsp/explain.go cmdExplain). */
export const EXPLAIN_COMMAND = 'pcp-derive.explain';

/** The answer of the explain command (lsp/explain.go ExplainResult). */
export interface ExplainResult {
  name: string;
  markdown: string;
  explanation?: unknown;
  error?: string;
}

/** Checks the shape of an explain answer. */
export function isExplainResult(v: unknown): v is ExplainResult {
  if (typeof v !== 'object' || v === null) {
    return false;
  }
  const r = v as Record<string, unknown>;
  return typeof r.name === 'string' && typeof r.markdown === 'string';
}

/** workspace/executeCommand parameters explaining the definition at a position. */
export function explainCommandParams(uri: string, line: number, character: number): { command: string; arguments: PreviewParams[] } {
  return { command: EXPLAIN_COMMAND, arguments: [previewParams(uri, line, character)] };
}

/** A page showing an explanation's rendered markdown (trusted: our own HTML, no scripts). */
export function explainPage(title: string, bodyHtml: string): string {
  const esc = title.replace(/[&<>"]/g, (ch) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;' })[ch] ?? ch);
  return [
    '<!DOCTYPE html><html><head><meta charset="utf-8">',
    '<meta http-equiv="Content-Security-Policy" content="default-src \'none\'; style-src \'unsafe-inline\';">',
    `<title>${esc}</title>`,
    '<style>body{font-family:var(--vscode-editor-font-family);font-size:var(--vscode-editor-font-size)}pre{white-space:pre;overflow-x:auto}</style>',
    `</head><body>${bodyHtml}</body></html>`,
  ].join('\n');
}


// ---- the explain page over time (pcp-derive-lsp web) ----

/**
 * The command line serving the explain page for one config, from the
 * server's settings: every value source set is passed and the command
 * picks among them as the server does (pmclient/choose). A metadata
 * snapshot has no values, so it is left out (the command then reads the
 * local pmcd, as explain does).
 */
export function webArgs(s: ServerSettings, configPath: string): string[] {
  const args = ['web', '--listen', '127.0.0.1:0'];
  if (s.pcpVersion !== 'auto') {
    args.push('--pcp-version', s.pcpVersion);
  }
  for (const kind of ['archive', 'pmproxy', 'hostspec', 'host', 'socket'] as const) {
    if (s.source[kind] !== '') {
      args.push(`--${kind}`, s.source[kind]);
    }
  }
  if (s.indomConfig !== '') {
    args.push('--indom-config', s.indomConfig);
  }
  args.push('--', configPath);
  return args;
}

/** The page's address in the web command's output (its first line), or undefined before it is printed. */
export function webURL(stdout: string): string | undefined {
  return /serving (http:\/\/127\.0\.0\.1:\d+)\//.exec(stdout)?.[1];
}

/** The address of one definition's page. */
export function webPageURL(base: string, metric: string): string {
  return `${base.replace(/\/$/, '')}/?metric=${encodeURIComponent(metric)}`;
}

/** A webview page framing the explain page served on 127.0.0.1 (only that origin may be framed). */
export function webFrame(title: string, url: string): string {
  const esc = (s: string) => s.replace(/[&<>"]/g, (ch) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;' })[ch] ?? ch);
  const origin = new URL(url).origin;
  return [
    '<!DOCTYPE html><html><head><meta charset="utf-8">',
    `<meta http-equiv="Content-Security-Policy" content="default-src 'none'; frame-src ${esc(origin)}; style-src 'unsafe-inline';">`,
    `<title>${esc(title)}</title>`,
    '<style>html,body,iframe{margin:0;padding:0;border:0;width:100%;height:100%;overflow:hidden}body{background:#fff}</style>',
    `</head><body><iframe src="${esc(url)}" title="${esc(title)}"></iframe></body></html>`,
  ].join('\n');
}
