// A scripted session against pcp-derive-lsp through vscode-jsonrpc and
// vscode-languageserver-protocol, the libraries VS Code's client uses.
// PCP_DERIVE_LSP_BIN names the server binary (default ../../bin/pcp-derive-lsp).
'use strict';
const { test } = require('node:test');
const assert = require('node:assert');
const cp = require('node:child_process');
const rpc = require('vscode-jsonrpc/node');
const lsp = require('vscode-languageserver-protocol');
const { serverBinary } = require('../helpers.js');

test('initialize, diagnostics, hover, completion, formatting, shutdown', async () => {
  const child = cp.spawn(serverBinary(), ['serve', '--stdio'], { stdio: ['pipe', 'pipe', 'inherit'] });
  const conn = rpc.createMessageConnection(
    new rpc.StreamMessageReader(child.stdout), new rpc.StreamMessageWriter(child.stdin));
  const diagnostics = new Promise((resolve) => {
    conn.onNotification(lsp.PublishDiagnosticsNotification.type, (p) => resolve(p));
  });
  conn.onNotification(lsp.LogMessageNotification.type, () => {});
  conn.listen();

  const init = await conn.sendRequest(lsp.InitializeRequest.type, {
    processId: process.pid, rootUri: null,
    capabilities: { textDocument: { hover: { contentFormat: ['markdown'] }, completion: {} } },
    initializationOptions: { source: { metadata: 'embedded' }, dialect: 'pcp7' },
  });
  assert.ok(init.capabilities.hoverProvider);
  await conn.sendNotification(lsp.InitializedNotification.type, {});

  const uri = 'file:///tmp/vscode-test.conf';
  await conn.sendNotification(lsp.DidOpenTextDocumentNotification.type, {
    textDocument: { uri, languageId: 'pcp-derived', version: 1,
      text: 'm.a = kernel.all.load  +   1\nm.b = disk.dev.reda\nm.c = kernel.al\n' },
  });
  const diags = await diagnostics;
  assert.strictEqual(diags.uri, uri);
  assert.ok(diags.diagnostics.some((d) => d.code === 'unknown-metric' && /did you mean disk.dev.read/.test(d.message)),
    JSON.stringify(diags.diagnostics));

  const hover = await conn.sendRequest(lsp.HoverRequest.type, { textDocument: { uri }, position: { line: 0, character: 10 } });
  assert.match(hover.contents.value, /load average/);

  const completion = await conn.sendRequest(lsp.CompletionRequest.type, { textDocument: { uri }, position: { line: 2, character: 15 } });
  assert.ok(completion.items.some((i) => i.label === 'all'), JSON.stringify(completion.items.map((i) => i.label)));

  const edits = await conn.sendRequest(lsp.DocumentFormattingRequest.type, {
    textDocument: { uri }, options: { tabSize: 4, insertSpaces: true } });
  assert.ok(edits.some((e) => e.newText === 'm.a = kernel.all.load + 1'), JSON.stringify(edits));

  await assert.rejects(conn.sendRequest('pcp/noSuchMethod', {}), /not implemented|not found/i);

  await conn.sendRequest(lsp.ShutdownRequest.type);
  await conn.sendNotification(lsp.ExitNotification.type);
  conn.dispose();
  child.stdin.end();
  await new Promise((resolve) => child.on('exit', resolve));
});
