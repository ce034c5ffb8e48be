// The bundled extension (dist/extension.js, vscode-languageclient inside)
// run under node against a fake `vscode` module and the real server:
// activation, lazy start on the first config, diagnostics, the status bar,
// the preview command, settings changes, file patterns, restart, deactivation.
'use strict';
const { test } = require('node:test');
const assert = require('node:assert');
const fs = require('node:fs');
const os = require('node:os');
const path = require('node:path');
const { createFake, installFake } = require('../fake-vscode.js');
const { serverBinary } = require('../helpers.js');

function waitFor(cond, what, ms = 15000) {
  return new Promise((resolve, reject) => {
    const start = Date.now();
    const tick = () => {
      let v;
      try { v = cond(); } catch { v = undefined; }
      if (v) { resolve(v); return; }
      if (Date.now() - start > ms) { reject(new Error(`timed out waiting for ${what}`)); return; }
      setTimeout(tick, 25);
    };
    tick();
  });
}

/** Pids of processes running the given binary (Linux /proc; [] elsewhere). */
function serverProcesses(bin) {
  if (process.platform !== 'linux') {
    return [];
  }
  const pids = [];
  for (const pid of fs.readdirSync('/proc').filter((p) => /^[0-9]+$/.test(p))) {
    try {
      if (fs.readFileSync(`/proc/${pid}/cmdline`, 'utf8').split('\0')[0] === bin) {
        pids.push(Number(pid));
      }
    } catch {
      // gone already
    }
  }
  return pids;
}

test('the extension under a fake VS Code with the real server', async (t) => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'pcp-derived-activation-'));
  const extensionPath = path.join(dir, 'extension');
  const bundled = path.join(extensionPath, 'server', `${process.platform}-${process.arch}`, 'pcp-derive-lsp');
  fs.mkdirSync(path.dirname(bundled), { recursive: true });
  fs.copyFileSync(serverBinary(), bundled);
  fs.chmodSync(bundled, 0o644); // as if the .vsix had lost the x bits
  const ws = path.join(dir, 'ws');
  fs.mkdirSync(path.join(ws, 'pcp', 'derived'), { recursive: true });

  const fake = createFake({
    workspaceFolder: ws,
    config: { 'pcpDerived.source.metadata': 'embedded', 'pcpDerived.dialect': 'pcp7' },
  });
  const uninstall = installFake(fake);
  const distPath = require.resolve('../../dist/extension.js');
  delete require.cache[distPath];
  const ext = require(distPath);
  const context = {
    extensionPath, extensionUri: fake.vscode.Uri.file(extensionPath), subscriptions: [],
    asAbsolutePath: (p) => path.join(extensionPath, p),
    globalState: { get: () => undefined, update: async () => {} }, workspaceState: { get: () => undefined, update: async () => {} },
  };
  try {
    ext.activate(context);
    for (const id of ['pcpDerived.restartServer', 'pcpDerived.pickSource', 'pcpDerived.previewValues', 'pcpDerived.showOutput']) {
      assert.ok(fake.commands.has(id), `${id} registered`);
    }
    const output = fake.outputs.find((o) => o.name === 'PCP Derived');
    assert.ok(output, 'the output channel');
    const status = fake.statusItems[0];
    assert.ok(status, 'the status bar item');
    assert.strictEqual(status.visible, false, 'hidden until a config is focused');
    assert.ok(!output.lines.some((l) => /starting/.test(l)), 'no server before a config is opened');

    // Opening a config starts the server from the bundled binary.
    const conf = path.join(ws, 'pcp', 'derived', 'test.conf');
    const text = '# test\nm.a = disk.dev.reda + 1\nm.b = kernel.all.load * 2\n';
    fs.writeFileSync(conf, text);
    const doc = fake.open(conf, 'pcp-derived', text);
    fake.focus(doc, 2, 2);
    await waitFor(() => (fake.diagnostics.get(doc.uri.toString()) || []).some((d) => d.code === 'unknown-metric' || (d.code && d.code.value === 'unknown-metric')),
      'the unknown-metric diagnostic');
    assert.ok(output.lines.some((l) => l.includes(`starting ${bundled} (bundled)`)), output.lines.join('\n'));
    assert.strictEqual(fs.statSync(bundled).mode & 0o111, 0o111, 'made executable');
    await waitFor(() => status.text.includes('$(pulse)'), 'the running state in the status bar');
    assert.match(status.text, /PCP: embedded snapshot/);
    assert.strictEqual(status.visible, true);

    // Preview: the embedded snapshot has no values, which the server says.
    await fake.commands.get('pcpDerived.previewValues')();
    const shown = fake.messages.at(-1);
    assert.ok(shown, 'a message');
    assert.match(shown.text, /m\.b/);
    assert.ok(output.lines.some((l) => /^m\.b from /.test(l)), output.lines.join('\n'));
    fake.focus(doc, 0, 1);
    await fake.commands.get('pcpDerived.previewValues')();
    assert.match(fake.messages.at(-1).text, /Preview failed: .*no derived metric definition here/);

    // A settings change goes to the running server: without metadata the
    // unknown metric is no longer reported.
    const cfg = fake.vscode.workspace.getConfiguration('pcpDerived');
    await cfg.update('source.metadata', path.join(dir, 'no-such-snapshot.json'));
    await waitFor(() => status.text.includes('snapshot no-such-snapshot.json'), 'the new source in the status bar');
    await waitFor(() => !(fake.diagnostics.get(doc.uri.toString()) || []).some((d) => d.code === 'unknown-metric' || (d.code && d.code.value === 'unknown-metric')),
      'diagnostics without metadata');
    await cfg.update('source.metadata', 'embedded');

    // A pmcd that does not answer: the server says so (pcp/status) and the
    // status bar shows it.
    await cfg.update('source.metadata', '');
    await cfg.update('source.host', '127.0.0.1:1');
    await waitFor(() => status.text.includes('unreachable'), 'the unreachable pmcd in the status bar');
    await cfg.update('source.host', '');
    await cfg.update('source.metadata', 'embedded');
    await waitFor(() => status.text.includes('$(pulse)') && !status.text.includes('unreachable'), 'back to the embedded metadata');

    // Extra file patterns: a matching file is switched to pcp-derived and checked.
    await cfg.update('filePatterns', ['*.pcpd']);
    const other = path.join(ws, 'more.pcpd');
    fs.writeFileSync(other, 'm.c = kernel.all.lod\n');
    fake.open(other, 'plaintext', 'm.c = kernel.all.lod\n');
    await waitFor(() => fake.textDocuments.some((d) => d.fileName === other && d.languageId === 'pcp-derived'), 'the language switch');
    await waitFor(() => (fake.diagnostics.get(fake.vscode.Uri.file(other).toString()) || []).length > 0, 'diagnostics of the .pcpd file');

    // Restart, then deactivate: the server goes away.
    await fake.commands.get('pcpDerived.restartServer')();
    await waitFor(() => status.text.includes('$(pulse)'), 'running again after the restart');
    assert.strictEqual(serverProcesses(bundled).length, 1, 'one server after the restarts');
    await ext.deactivate();
    await waitFor(() => serverProcesses(bundled).length === 0, 'the server to exit after deactivate');
    if (process.env.DEBUG_ACTIVATION) { console.log(output.lines.join("\n")); console.log(JSON.stringify(fake.messages, null, 1)); console.log(status.text); }
    t.diagnostic(`vscode API members the fake lacks (no-ops): ${[...fake.missing].sort().join(', ') || 'none'}`);
  } finally {
    uninstall();
    await ext.deactivate();
    fs.rmSync(dir, { recursive: true, force: true });
  }
});

test('no server anywhere: a clear error, and the status bar says so', async () => {
  const fake = createFake({ config: { 'pcpDerived.server.path': '/nonexistent/pcp-derive-lsp' } });
  const uninstall = installFake(fake);
  const distPath = require.resolve('../../dist/extension.js');
  delete require.cache[distPath];
  const ext = require(distPath);
  try {
    ext.activate({ extensionPath: '/nonexistent-extension', subscriptions: [] });
    const doc = fake.open('/tmp/x.derived', 'pcp-derived', 'a = 1\n');
    fake.open('/tmp/y.derived', 'pcp-derived', 'b = 1\n');
    fake.focus(doc);
    await waitFor(() => fake.messages.some((m) => m.level === 'error'), 'an error message');
    await new Promise((resolve) => setTimeout(resolve, 100));
    assert.strictEqual(fake.messages.length, 1, `one message for two documents: ${JSON.stringify(fake.messages)}`);
    assert.match(fake.messages[0].text, /pcpDerived\.server\.path is set to "\/nonexistent\/pcp-derive-lsp", but .* does not exist/);
    await waitFor(() => fake.statusItems[0].text.startsWith('$(warning)'), 'the warning in the status bar');
    await fake.commands.get('pcpDerived.previewValues')();
    assert.match(fake.messages.at(-1).text, /does not exist/);
  } finally {
    uninstall();
    await ext.deactivate();
  }
});

test('pick source: a host typed in, written to the workspace settings, the others cleared', async () => {
  const fake = createFake({
    workspaceFolder: os.tmpdir(),
    config: { 'pcpDerived.source.metadata': 'embedded', 'pcpDerived.source.archive': '/a/b' },
    quickPick: (items) => items.find((i) => /host/.test(i.label)),
    inputBox: ' pcp.example.com:44321 ',
  });
  const uninstall = installFake(fake);
  const distPath = require.resolve('../../dist/extension.js');
  delete require.cache[distPath];
  const ext = require(distPath);
  try {
    ext.activate({ extensionPath: '/nonexistent-extension', subscriptions: [] });
    fake.focus(fake.open('/tmp/y.derived', 'javascript', ''));
    await fake.commands.get('pcpDerived.pickSource')();
    assert.deepStrictEqual(fake.config, { 'pcpDerived.source.host': 'pcp.example.com:44321' });
    await waitFor(() => /PCP: pcp\.example\.com:44321/.test(fake.statusItems[0].text), 'the host in the status bar');
  } finally {
    uninstall();
    await ext.deactivate();
  }
});
