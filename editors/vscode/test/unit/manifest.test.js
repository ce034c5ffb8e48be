// package.json, the sources and the server agree on ids, settings and commands.
'use strict';
const { test } = require('node:test');
const assert = require('node:assert');
const fs = require('node:fs');
const path = require('node:path');
const c = require('../../out/config.js');

const root = path.join(__dirname, '..', '..');
const pkg = require('../../package.json');
const extensionSource = fs.readFileSync(path.join(root, 'src', 'extension.ts'), 'utf8');

test('every pcpDerived.* setting is read (trace.server is vscode-languageclient\'s)', () => {
  const declared = Object.keys(pkg.contributes.configuration.properties);
  const read = new Set();
  c.readSettings((key) => { read.add(`${c.SECTION}.${key}`); return undefined; });
  for (const key of declared) {
    if (key === 'pcpDerived.trace.server') {
      assert.match(extensionSource, /CLIENT_ID = SECTION/, 'the client id must be the section for trace.server');
      continue;
    }
    assert.ok(read.has(key), `${key} is declared but never read`);
  }
  for (const key of read) {
    assert.ok(declared.includes(key), `${key} is read but not declared in package.json`);
  }
  for (const [key, p] of Object.entries(pkg.contributes.configuration.properties)) {
    assert.ok(p.description || p.markdownDescription, `${key} has no description`);
  }
});

test('declared defaults are the ones readSettings falls back to', () => {
  const props = pkg.contributes.configuration.properties;
  const fromDefaults = c.readSettings((key) => props[`${c.SECTION}.${key}`].default);
  assert.deepStrictEqual(fromDefaults, c.readSettings(() => undefined));
});

test('commands in package.json are registered by the extension, and only those', () => {
  const declared = pkg.contributes.commands.map((x) => x.command).sort();
  const registered = [...extensionSource.matchAll(/reg\('([^']+)'/g)].map((m) => m[1]).sort();
  assert.deepStrictEqual(registered, declared);
  // The server's own command (code lenses) is registered by vscode-languageclient: no clash.
  assert.ok(!declared.includes('pcp-derive.preview'));
});

test('language id, grammar and language configuration fit together', () => {
  const lang = pkg.contributes.languages[0];
  assert.strictEqual(lang.id, 'pcp-derived');
  assert.match(extensionSource, /LANGUAGE_ID = 'pcp-derived'/);
  const grammar = pkg.contributes.grammars[0];
  assert.strictEqual(grammar.language, lang.id);
  const tm = JSON.parse(fs.readFileSync(path.join(root, grammar.path), 'utf8'));
  assert.strictEqual(tm.scopeName, grammar.scopeName);
  const langConf = JSON.parse(fs.readFileSync(path.join(root, lang.configuration), 'utf8'));
  assert.strictEqual(langConf.comments.lineComment, '#');
  const word = new RegExp(langConf.wordPattern, 'g');
  assert.deepStrictEqual('disk.dev.avgsz = delta(disk.dev.total_bytes) / 0.5'.match(word), ['disk.dev.avgsz', 'delta', 'disk.dev.total_bytes', '0.5']);
  // pmrep, pcp-dstat and pcp-htop files: their own language and grammar,
  // whose expressions are pcp-derived's; the client serves both languages.
  const tool = pkg.contributes.languages[1];
  assert.strictEqual(tool.id, 'pcp-toolconf');
  assert.match(extensionSource, /TOOL_LANGUAGE_ID = 'pcp-toolconf'/);
  assert.match(extensionSource, /LANGUAGE_IDS: readonly string\[\] = \[LANGUAGE_ID, TOOL_LANGUAGE_ID\]/);
  const toolGrammar = pkg.contributes.grammars.find((g) => g.language === tool.id);
  const toolTm = JSON.parse(fs.readFileSync(path.join(root, toolGrammar.path), 'utf8'));
  assert.strictEqual(toolTm.scopeName, toolGrammar.scopeName);
  assert.match(JSON.stringify(toolTm), new RegExp(`"include":"${grammar.scopeName}#expression"`));
  assert.deepStrictEqual(pkg.engines.vscode, '^1.82.0');
  assert.strictEqual(pkg.dependencies['vscode-languageclient'], '9.0.1');
  assert.strictEqual(pkg.devDependencies['@types/vscode'], '1.82.0', '@types/vscode must not be newer than engines.vscode');
});

test('the settings sent to the server are the ones lsp/server.go reads', (t) => {
  const serverGo = path.join(root, '..', '..', 'lsp', 'server.go');
  if (!fs.existsSync(serverGo)) {
    t.skip('lsp/server.go is not here');
    return;
  }
  const src = fs.readFileSync(serverGo, 'utf8');
  const struct = src.slice(src.indexOf('type Settings struct'), src.indexOf('\n}\n', src.indexOf('type Settings struct')));
  const serverKeys = new Set([...struct.matchAll(/json:"([A-Za-z]+)/g)].map((m) => m[1]));
  const sent = c.toServerSettings(c.readSettings(() => undefined));
  for (const key of Object.keys(sent)) {
    assert.ok(serverKeys.has(key), `the extension sends ${key}, which the server does not read`);
  }
  for (const key of serverKeys) {
    assert.ok(Object.hasOwn(sent, key) || ['enabled', 'interval'].includes(key), `the server reads ${key}, which the extension never sends`);
  }
  // The source is one choose.Spec, whose JSON keys are what the extension sends.
  assert.match(struct, /Source choose\.Spec `json:"source"`/, 'the source setting');
  const chooseGo = fs.readFileSync(path.join(root, '..', '..', 'pmclient', 'choose', 'choose.go'), 'utf8');
  const specStruct = chooseGo.slice(chooseGo.indexOf('type Spec struct'), chooseGo.indexOf('\n}\n', chooseGo.indexOf('type Spec struct')));
  const specKeys = [...specStruct.matchAll(/json:"([A-Za-z]+)/g)].map((m) => m[1]);
  assert.deepStrictEqual(Object.keys(sent.source), specKeys, 'the source fields');
  assert.deepStrictEqual(Object.keys(sent.source), ['host', 'socket', 'archive', 'metadata', 'pmproxy', 'hostspec']);
  const fleetGo = fs.readFileSync(path.join(root, '..', '..', 'lsp', 'fleet.go'), 'utf8');
  const fleetStruct = fleetGo.slice(fleetGo.indexOf('type FleetSettings struct'), fleetGo.indexOf('\n}\n', fleetGo.indexOf('type FleetSettings struct')));
  assert.deepStrictEqual(Object.keys(sent.fleet).sort(), [...fleetStruct.matchAll(/json:"([A-Za-z]+)/g)].map((m) => m[1]).sort(), 'the fleet fields');
  const settingsGo = fs.readFileSync(path.join(root, '..', '..', 'lsp', 'settings.go'), 'utf8');
  assert.match(settingsGo, /settingsSection = "pcpDerive"/, 'didChangeConfiguration is sent as {pcpDerive: ...}');
  assert.match(extensionSource, /settings: \{ pcpDerive: /);
});
