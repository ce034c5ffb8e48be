// Settings, file patterns and previews (src/config.ts), with plain node.
'use strict';
const { test } = require('node:test');
const assert = require('node:assert');
const c = require('../../out/config.js');

const getter = (values) => (key) => values[key];

test('readSettings: defaults, and wrong types ignored', () => {
  const d = c.readSettings(getter({}));
  assert.deepStrictEqual(d, {
    serverPath: '', source: { host: '', socket: '', archive: '', metadata: '', pmproxy: '', hostspec: '' },
    fleet: { hosts: [], hostsFile: '', archiveDir: '', pmproxy: '', concurrency: 16, hostTimeout: 10 },
    pcpVersion: 'auto', dialect: 'auto', indomConfig: '', derivedControl: '',
    preview: { enabled: true, interval: 10 }, inlayHints: true, debounce: 150, logLevel: 'info', filePatterns: [],
  });
  const odd = c.readSettings(getter({ dialect: 'pcp8', 'preview.interval': 0.2, debounce: -5, logLevel: 7, filePatterns: ['*.x', 3, ' '], 'source.host': ' h:44321 ' }));
  assert.strictEqual(odd.dialect, 'auto');
  assert.strictEqual(odd.preview.interval, 1, 'at least one second, as the server');
  assert.strictEqual(odd.debounce, 0);
  assert.strictEqual(odd.logLevel, 'info');
  assert.deepStrictEqual(odd.filePatterns, ['*.x']);
  assert.strictEqual(odd.source.host, 'h:44321');
});

test('toServerSettings: the server shape, paths made absolute, host and embedded untouched', () => {
  const s = c.readSettings(getter({
    'source.host': 'pcp.example.com', 'source.socket': 'run/pmcd.socket', 'source.archive': '~/archives/20260101',
    'source.metadata': 'embedded', indomConfig: '${workspaceFolder}/indom.conf', derivedControl: ' option_novalue=1 ', dialect: 'pcp6', 'preview.enabled': false, logLevel: 'debug',
    'source.pmproxy': 'http://gw:44322', 'source.hostspec': 'db1',
    'fleet.hosts': [' web1 ', 'db=http://gw:44322?hostspec=db1', 3, ''], 'fleet.archiveDir': 'farm', 'fleet.concurrency': 0,
  }));
  assert.deepStrictEqual(c.toServerSettings(s, { workspaceFolder: '/ws', homedir: '/home/u' }), {
    pcpVersion: 'auto',
    dialect: 'pcp6',
    source: { host: 'pcp.example.com', socket: '/ws/run/pmcd.socket', archive: '/home/u/archives/20260101', metadata: 'embedded', pmproxy: 'http://gw:44322', hostspec: 'db1' },
    fleet: { hosts: ['web1', 'db=http://gw:44322?hostspec=db1'], hostsFile: '', archiveDir: '/ws/farm', pmproxy: '', concurrency: 1, hostTimeout: 10 },
    indomConfig: '/ws/indom.conf',
    derivedControl: 'option_novalue=1',
    preview: { enabled: false, interval: 10 },
    inlayHints: true,
    debounce: 150,
    logLevel: 'debug',
  });
  const rel = c.readSettings(getter({ 'source.metadata': 'snap.json' }));
  assert.strictEqual(c.toServerSettings(rel, { workspaceFolder: '/ws' }).source.metadata, '/ws/snap.json');
});

test('describeSource follows the server precedence: metadata, archive, pmproxy, host, socket', () => {
  const s = (src) => c.readSettings(getter(Object.fromEntries(Object.entries(src).map(([k, v]) => [`source.${k}`, v]))));
  assert.strictEqual(c.describeSource(s({})).label, 'auto');
  assert.strictEqual(c.describeSource(s({ socket: '/run/pcp/pmcd.socket' })).label, 'socket pmcd.socket');
  assert.strictEqual(c.describeSource(s({ socket: '/x', host: 'h1' })).label, 'h1');
  assert.strictEqual(c.describeSource(s({ host: 'h1', archive: '/a/20260101.meta' })).label, 'archive 20260101.meta');
  assert.deepStrictEqual(c.describeSource(s({ host: 'h1', pmproxy: 'http://gw:44322', hostspec: 'db1' })), { label: 'db1 via pmproxy', detail: 'pmcd on db1 through pmproxy http://gw:44322' });
  assert.strictEqual(c.describeSource(s({ host: 'h1', pmproxy: 'http://gw:44322' })).label, 'h1 via pmproxy');
  assert.strictEqual(c.describeSource(s({ pmproxy: 'http://gw:44322', archive: '/a/b' })).label, 'archive b');
  assert.strictEqual(c.describeSource(s({ archive: '/a/b', metadata: 'embedded' })).label, 'embedded snapshot');
  assert.deepStrictEqual(c.describeSource(s({ metadata: '/x/host.json' })), { label: 'snapshot host.json', detail: 'metadata snapshot /x/host.json' });
});

test('sourceUpdate sets one source and clears the others', () => {
  assert.deepStrictEqual(c.sourceUpdate('host', 'h'), { host: 'h', socket: undefined, archive: undefined, metadata: undefined, pmproxy: undefined });
  assert.deepStrictEqual(c.sourceUpdate('auto'), { host: undefined, socket: undefined, archive: undefined, metadata: undefined, pmproxy: undefined });
  assert.deepStrictEqual(c.sourceUpdate('pmproxy', 'http://gw'), { host: undefined, socket: undefined, archive: undefined, metadata: undefined, pmproxy: 'http://gw' });
});

test('needsRestart: only for the server path and the file patterns', () => {
  const a = c.readSettings(getter({}));
  assert.strictEqual(c.needsRestart(a, c.readSettings(getter({ dialect: 'pcp6', 'source.host': 'x' }))), false);
  assert.strictEqual(c.needsRestart(a, c.readSettings(getter({ 'server.path': '/x' }))), true);
  assert.strictEqual(c.needsRestart(a, c.readSettings(getter({ filePatterns: ['*.d'] }))), true);
});

test('globToRegExp', () => {
  const m = (g, p) => c.globToRegExp(g).test(p);
  assert.ok(m('**/pcp/derived/*.conf', '/etc/pcp/derived/a.conf'));
  assert.ok(m('**/pcp/derived/*.conf', 'pcp/derived/a.conf'));
  assert.ok(!m('**/pcp/derived/*.conf', '/etc/pcp/derived/sub/a.conf'));
  assert.ok(m('*.{conf,derived}', 'x.derived'));
  assert.ok(!m('*.{conf,derived}', 'x.txt'));
  assert.ok(m('file?.[ch]', 'file1.c'));
  assert.ok(!m('file?.[!ch]', 'file1.c'));
  assert.ok(m('a.b+c(1)', 'a.b+c(1)'), 'regexp characters are literal');
  assert.ok(!m('a.b', 'axb'));
  assert.ok(m('/etc/**', '/etc/pcp/x'));
});

test('fileMatcher: name patterns, path patterns, absolute patterns, Windows paths', () => {
  const m = c.fileMatcher(['*.pcpderived', 'metrics/derived/*.conf', '/srv/pcp/**/*.cfg', '  ']);
  assert.ok(m('/home/u/x.pcpderived'));
  assert.ok(m('/home/u/proj/metrics/derived/a.conf'));
  assert.ok(!m('/home/u/proj/metrics/derived/a.txt'));
  assert.ok(!m('/home/u/proj/othermetrics/derived/a.conf'));
  assert.ok(m('/srv/pcp/a/b/c.cfg'));
  assert.ok(!m('/opt/srv/pcp/c.cfg'));
  assert.ok(m('C:\\Users\\u\\metrics\\derived\\a.conf'));
  assert.ok(!c.fileMatcher([])('/a.conf'));
});

test('the built-in associations of package.json, read as filePatterns, match what they should', () => {
  const pkg = require('../../package.json');
  const lang = pkg.contributes.languages[0];
  const m = c.fileMatcher([...lang.filenamePatterns, ...lang.extensions.map((e) => `*${e}`)]);
  assert.ok(m('/etc/pcp/derived/disk.conf'));
  assert.ok(m('/var/lib/pcp/config/derived/x.conf'));
  assert.ok(m('/tmp/foo.derived'));
  assert.ok(!m('/etc/pcp/pmcd/pmcd.conf'));
});

test('the tool files language matches pmrep, pcp-dstat and pcp-htop files by path', () => {
  const pkg = require('../../package.json');
  const lang = pkg.contributes.languages.find((l) => l.id === 'pcp-toolconf');
  const m = c.fileMatcher([...lang.filenamePatterns, ...lang.filenames.map((f) => `**/${f}`)]);
  for (const p of ['/etc/pcp/pmrep/collectl.conf', '/home/u/.pcp/pmrep/mine.conf', '/home/u/.pmrep.conf', '/etc/pcp/dstat/disk',
    '/etc/pcp/htop/meters/load', '/etc/pcp/htop/columns/gpu', '/home/u/.config/htop/screens/biosnoop']) {
    assert.ok(m(p), p);
  }
  for (const p of ['/etc/pcp/pmcd/pmcd.conf', '/etc/pcp/derived/disk.conf', '/etc/pcp/htop/htoprc', '/etc/pcp/pmrep/README']) {
    assert.ok(!m(p), p);
  }
});

const live = {
  name: 'm.load', source: 'pmcd on this host', timestamp: '2026-11-22T18:00:00Z', metadata: 'float instant, units none, indom 60.2',
  values: [{ instance: '1 minute', value: '0.5' }, { instance: '15 minute', value: '0.25' }], text: 'm.load = 1 minute: 0.5, 15 minute: 0.25',
};

test('formatPreview', () => {
  assert.deepStrictEqual(c.formatPreview(live), [
    'm.load from pmcd on this host at 2026-11-22T18:00:00Z',
    '  float instant, units none, indom 60.2',
    '  [1 minute]   0.5',
    '  [15 minute]  0.25',
  ]);
  assert.deepStrictEqual(c.formatPreview({ name: 'x', source: 's', values: [{ value: '3' }], text: '' }), ['x from s', '  3']);
  assert.deepStrictEqual(c.formatPreview({ name: 'x', source: 's', values: null, text: '' }), ['x from s', '  no values']);
  assert.deepStrictEqual(c.formatPreview({ name: 'x', source: 's', values: [], error: 'no values in a snapshot', text: '' }), ['x from s', '  error: no values in a snapshot']);
});

test('isPreviewResult and previewErrorMessage', () => {
  assert.ok(c.isPreviewResult(live));
  assert.ok(c.isPreviewResult({ ...live, values: null }));
  assert.ok(!c.isPreviewResult(null));
  assert.ok(!c.isPreviewResult({ name: 'x' }));
  assert.match(c.previewErrorMessage({ code: -32601, message: 'method not found' }), /does not answer pcp\/preview/);
  assert.strictEqual(c.previewErrorMessage({ code: -32603, message: 'pcp/preview: no derived metric definition here' }), 'Preview failed: no derived metric definition here');
  assert.strictEqual(c.previewErrorMessage('boom'), 'Preview failed: boom');
  assert.deepStrictEqual(c.previewParams('file:///a', 1, 2), { textDocument: { uri: 'file:///a' }, position: { line: 1, character: 2 } });
});

test('webArgs: the explain page for a config, from the server settings: value sources, release, indom config', () => {
  const s = (settings) => c.toServerSettings(c.readSettings(getter(settings)), { workspaceFolder: '/ws', homedir: '/home/u' });
  assert.deepStrictEqual(c.webArgs(s({}), '/ws/a.conf'), ['web', '--listen', '127.0.0.1:0', '--', '/ws/a.conf']);
  assert.deepStrictEqual(
    c.webArgs(s({ 'source.archive': 'arch/a', 'source.host': 'h1', 'source.metadata': 'embedded', pcpVersion: '6.0.3', indomConfig: 'indom.conf' }), '/ws/-x.conf'),
    ['web', '--listen', '127.0.0.1:0', '--pcp-version', '6.0.3', '--archive', '/ws/arch/a', '--host', 'h1', '--indom-config', '/ws/indom.conf', '--', '/ws/-x.conf'],
  );
  assert.deepStrictEqual(
    c.webArgs(s({ 'source.pmproxy': 'http://gw:44322', 'source.hostspec': 'db1' }), '/c'),
    ['web', '--listen', '127.0.0.1:0', '--pmproxy', 'http://gw:44322', '--hostspec', 'db1', '--', '/c'],
  );
});

test('webURL, webPageURL and webFrame: the page read from the command, framed from its own origin only', () => {
  assert.strictEqual(c.webURL('pcp-derive-lsp web: serving http://127.0.0.1:40123/ (values from pmcd at local:)\n'), 'http://127.0.0.1:40123');
  assert.strictEqual(c.webURL('pcp-derive-lsp web: serv'), undefined);
  assert.strictEqual(c.webURL('serving http://example.com:80/'), undefined);
  assert.strictEqual(c.webPageURL('http://127.0.0.1:40123/', 'kernel.cpu "x"&y'), 'http://127.0.0.1:40123/?metric=kernel.cpu%20%22x%22%26y');
  const html = c.webFrame('a <b> over time', 'http://127.0.0.1:40123/?metric=a&b');
  assert.match(html, /frame-src http:\/\/127\.0\.0\.1:40123;/);
  assert.match(html, /<iframe src="http:\/\/127\.0\.0\.1:40123\/\?metric=a&amp;b" title="a &lt;b&gt; over time">/);
  assert.doesNotMatch(html, /<script/);
});
