// The requests and settings the extension sends, against the real server:
// initializationOptions and didChangeConfiguration built by out/config.js,
// and pcp/preview with the parameters the preview command sends.
// PCP_DERIVE_LSP_BIN names the server binary (default ../../bin/pcp-derive-lsp).
'use strict';
const { test } = require('node:test');
const assert = require('node:assert');
const cp = require('node:child_process');
const path = require('node:path');
const rpc = require('vscode-jsonrpc/node');
const lsp = require('vscode-languageserver-protocol');
const config = require('../../out/config.js');
const { serverBinary } = require('../helpers.js');

function settings(overrides) {
  const base = config.readSettings(() => undefined);
  return { ...base, ...overrides, source: { ...base.source, ...(overrides.source ?? {}) } };
}

async function startServer(initializationOptions) {
  const child = cp.spawn(serverBinary(), ['serve'], { stdio: ['pipe', 'pipe', 'pipe'] });
  let stderr = '';
  child.stderr.on('data', (d) => { stderr += d; });
  const conn = rpc.createMessageConnection(new rpc.StreamMessageReader(child.stdout), new rpc.StreamMessageWriter(child.stdin));
  const logs = [];
  const diagnostics = [];
  conn.onNotification(lsp.LogMessageNotification.type, (p) => logs.push(p.message));
  conn.onNotification(lsp.ShowMessageNotification.type, (p) => logs.push(p.message));
  conn.onNotification(lsp.PublishDiagnosticsNotification.type, (p) => diagnostics.push(p));
  conn.onRequest(() => null); // workspace/inlayHint/refresh and the like
  conn.listen();
  const init = await conn.sendRequest(lsp.InitializeRequest.type, {
    processId: process.pid, rootUri: null, capabilities: {}, initializationOptions,
  });
  await conn.sendNotification(lsp.InitializedNotification.type, {});
  return {
    conn, init, logs, diagnostics,
    get stderr() { return stderr; },
    async stop() {
      await conn.sendRequest(lsp.ShutdownRequest.type);
      await conn.sendNotification(lsp.ExitNotification.type);
      conn.dispose();
      child.stdin.end();
      await new Promise((resolve) => child.on('exit', resolve));
    },
  };
}

function waitFor(cond, what, ms = 10000) {
  return new Promise((resolve, reject) => {
    const start = Date.now();
    const tick = () => {
      const v = cond();
      if (v) { resolve(v); return; }
      if (Date.now() - start > ms) { reject(new Error(`timed out waiting for ${what}`)); return; }
      setTimeout(tick, 20);
    };
    tick();
  });
}

test('initializationOptions from the extension settings select the source', async () => {
  const s = await startServer(config.toServerSettings(settings({ source: { metadata: 'embedded' }, dialect: 'pcp7' })));
  try {
    await waitFor(() => s.logs.find((m) => /metric metadata from/.test(m)), 'the source log message');
    assert.match(s.logs.join('\n'), /embedded/);
    assert.ok(s.init.capabilities.executeCommandProvider.commands.includes('pcp-derive.preview'),
      'the code lens command the language client registers');
  } finally {
    await s.stop();
  }
});

test('didChangeConfiguration as the extension sends it ({pcpDerive: ...}) is applied', async () => {
  const dir = path.join(__dirname, '..', 'grammar');
  // Start with a snapshot file that does not exist: no metadata.
  const s = await startServer(config.toServerSettings(settings({ source: { metadata: 'no-such-snapshot.json' } }), { workspaceFolder: dir }));
  try {
    await waitFor(() => s.logs.find((m) => /no metric metadata/.test(m)), 'the missing source message');
    assert.match(s.logs.join('\n'), new RegExp(path.join(dir, 'no-such-snapshot.json').replace(/[.*+?^${}()|[\]\\]/g, '\\$&')),
      'relative snapshot paths are resolved against the workspace folder');
    const uri = 'file:///tmp/extension-settings.conf';
    await s.conn.sendNotification(lsp.DidOpenTextDocumentNotification.type, {
      textDocument: { uri, languageId: 'pcp-derived', version: 1, text: 'm.a = disk.dev.reda\n' },
    });
    await s.conn.sendNotification(lsp.DidChangeConfigurationNotification.type, {
      settings: { pcpDerive: config.toServerSettings(settings({ source: { metadata: 'embedded' } })) },
    });
    // With metadata, the misspelt metric is reported.
    await waitFor(() => s.diagnostics.some((d) => d.uri === uri && d.diagnostics.some((x) => x.code === 'unknown-metric')),
      'an unknown-metric diagnostic after the settings change');
  } finally {
    await s.stop();
  }
});

test('pcp/preview answers the preview command with a result the extension can show', async () => {
  const s = await startServer(config.toServerSettings(settings({ source: { metadata: 'embedded' } })));
  try {
    const uri = 'file:///tmp/extension-preview.conf';
    await s.conn.sendNotification(lsp.DidOpenTextDocumentNotification.type, {
      textDocument: { uri, languageId: 'pcp-derived', version: 1, text: '# preview\nm.load = kernel.all.load * 2\n' },
    });
    let result;
    try {
      result = await s.conn.sendRequest('pcp/preview', config.previewParams(uri, 1, 3));
    } catch (err) {
      // A snapshot has no values: an error is a fine answer too, as long
      // as the extension turns it into a sentence.
      const msg = config.previewErrorMessage(err);
      assert.match(msg, /^Preview failed: /);
      assert.doesNotMatch(msg, /method not found/i);
      return;
    }
    assert.ok(config.isPreviewResult(result), JSON.stringify(result));
    assert.strictEqual(result.name, 'm.load');
    const lines = config.formatPreview(result);
    assert.match(lines[0], /^m\.load from /);

    // Not on a definition: a clear error.
    await assert.rejects(s.conn.sendRequest('pcp/preview', config.previewParams(uri, 0, 1)), (err) => {
      assert.match(config.previewErrorMessage(err), /no derived metric definition here/);
      return true;
    });
  } finally {
    await s.stop();
  }
});

test('the explain command answers with markdown the extension can show, and the server lists it', async () => {
  const s = await startServer(config.toServerSettings(settings({ source: { metadata: 'embedded' } })));
  try {
    assert.ok(s.init.capabilities.executeCommandProvider.commands.includes(config.EXPLAIN_COMMAND));
    const uri = 'file:///tmp/extension-explain.conf';
    await s.conn.sendNotification(lsp.DidOpenTextDocumentNotification.type, {
      textDocument: { uri, languageId: 'pcp-derived', version: 1, text: '# explain\nm.load = kernel.all.load * 2\n' },
    });
    const result = await s.conn.sendRequest('workspace/executeCommand', config.explainCommandParams(uri, 1, 3));
    assert.ok(config.isExplainResult(result), JSON.stringify(result));
    assert.strictEqual(result.name, 'm.load');
    // The embedded snapshot has metadata only: the answer says so.
    assert.match(result.markdown, /^\*\*Explain `m\.load`\*\*/);
    assert.match(result.error, /metadata only/);
    const page = config.explainPage('Explain <m>', '<p>tree</p>');
    assert.match(page, /<title>Explain &lt;m&gt;<\/title>/);
    assert.match(page, /default-src 'none'/);
  } finally {
    await s.stop();
  }
});

test('pcp/preview with the automatic source: values when a local pmcd answers', async () => {
  const s = await startServer(config.toServerSettings(settings({})));
  try {
    const uri = 'file:///tmp/extension-preview-live.conf';
    await s.conn.sendNotification(lsp.DidOpenTextDocumentNotification.type, {
      textDocument: { uri, languageId: 'pcp-derived', version: 1, text: 'm.ncpu = hinv.ncpu + 0\n' },
    });
    const result = await s.conn.sendRequest('pcp/preview', config.previewParams(uri, 0, 0));
    assert.ok(config.isPreviewResult(result), JSON.stringify(result));
    if (result.error) {
      assert.strictEqual(config.formatPreview(result).at(-1), `  error: ${result.error}`);
      return; // no pmcd here: the embedded snapshot has no values
    }
    assert.strictEqual(result.values.length, 1, JSON.stringify(result));
    assert.match(result.values[0].value, /^[0-9]+$/);
    assert.match(config.formatPreview(result).at(-1), /^ {2}[0-9]+$/);
  } finally {
    await s.stop();
  }
});

test('the grammar fixtures are valid configs', () => {
  const dir = path.join(__dirname, '..', 'grammar');
  const out = cp.spawnSync(serverBinary(), ['check', '--metadata', 'embedded', '--dialect', 'pcp7', '--fail-on', 'warning', dir], { encoding: 'utf8' });
  assert.strictEqual(out.status, 0, out.stdout + out.stderr);
  assert.match(out.stderr + out.stdout, /0 errors, 0 warnings in 4 files/);
});
