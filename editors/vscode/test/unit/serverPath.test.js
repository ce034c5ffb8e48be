// Locating the server binary (src/serverPath.ts), with plain node.
'use strict';
const { test } = require('node:test');
const assert = require('node:assert');
const fs = require('node:fs');
const os = require('node:os');
const path = require('node:path');
const sp = require('../../out/serverPath.js');

/** A file system of the given files: path → {exec: bool}. */
function fakeFs(files) {
  const chmodded = [];
  return {
    chmodded,
    isFile: (p) => Object.prototype.hasOwnProperty.call(files, p),
    isExecutable: (p) => Boolean(files[p] && files[p].exec),
    makeExecutable: (p) => { chmodded.push(p); files[p].exec = true; },
  };
}

const base = { extensionPath: '/ext', platform: 'linux', arch: 'x64', homedir: '/home/u', env: { PATH: '/usr/local/bin:/usr/bin' } };

test('the setting comes first', () => {
  const fsys = fakeFs({ '/opt/pcp-derive-lsp': { exec: true }, '/ext/server/linux-x64/pcp-derive-lsp': { exec: true } });
  assert.deepStrictEqual(sp.findServer({ ...base, configured: '/opt/pcp-derive-lsp', fs: fsys }), { path: '/opt/pcp-derive-lsp', origin: 'setting' });
});

test('a setting naming nothing is an error, not a silent fallback', () => {
  const fsys = fakeFs({ '/ext/server/linux-x64/pcp-derive-lsp': { exec: true } });
  assert.throws(() => sp.findServer({ ...base, configured: '/nope/pcp-derive-lsp', fs: fsys }),
    (err) => err instanceof sp.ServerNotFoundError && /pcpDerived\.server\.path/.test(err.message) && /does not exist/.test(err.message));
  const fsys2 = fakeFs({ '/opt/x': { exec: false } });
  assert.throws(() => sp.findServer({ ...base, configured: '/opt/x', fs: fsys2 }), /not executable/);
});

test('setting paths: ~, ${workspaceFolder}, ${env:...} and relative paths', () => {
  const fsys = fakeFs({ '/home/u/bin/pcp-derive-lsp': { exec: true }, '/ws/bin/pcp-derive-lsp': { exec: true }, '/gopath/bin/pcp-derive-lsp': { exec: true } });
  const opts = { ...base, workspaceFolder: '/ws', fs: fsys, env: { ...base.env, GOPATH: '/gopath' } };
  assert.strictEqual(sp.findServer({ ...opts, configured: '~/bin/pcp-derive-lsp' }).path, '/home/u/bin/pcp-derive-lsp');
  assert.strictEqual(sp.findServer({ ...opts, configured: '${workspaceFolder}/bin/pcp-derive-lsp' }).path, '/ws/bin/pcp-derive-lsp');
  assert.strictEqual(sp.findServer({ ...opts, configured: 'bin/pcp-derive-lsp' }).path, '/ws/bin/pcp-derive-lsp');
  assert.strictEqual(sp.findServer({ ...opts, configured: '${env:GOPATH}/bin/pcp-derive-lsp' }).path, '/gopath/bin/pcp-derive-lsp');
  assert.strictEqual(sp.findServer({ ...opts, configured: '  ' , fs: fakeFs({ '/usr/bin/pcp-derive-lsp': { exec: true } }) }).origin, 'path');
});

test('then the bundled binary for this platform, made executable if the .vsix lost the mode', () => {
  const fsys = fakeFs({ '/ext/server/linux-x64/pcp-derive-lsp': { exec: false }, '/usr/bin/pcp-derive-lsp': { exec: true } });
  assert.deepStrictEqual(sp.findServer({ ...base, configured: '', fs: fsys }), { path: '/ext/server/linux-x64/pcp-derive-lsp', origin: 'bundled' });
  assert.deepStrictEqual(fsys.chmodded, ['/ext/server/linux-x64/pcp-derive-lsp']);
  const arm = fakeFs({ '/ext/server/linux-x64/pcp-derive-lsp': { exec: true }, '/usr/bin/pcp-derive-lsp': { exec: true } });
  assert.strictEqual(sp.findServer({ ...base, arch: 'arm64', configured: '', fs: arm }).origin, 'path', 'no arm64 binary bundled');
});

test('then PATH, in order', () => {
  const fsys = fakeFs({ '/usr/bin/pcp-derive-lsp': { exec: true }, '/usr/local/bin/pcp-derive-lsp': { exec: false } });
  assert.deepStrictEqual(sp.findServer({ ...base, configured: '', fs: fsys }), { path: '/usr/bin/pcp-derive-lsp', origin: 'path' });
});

test('windows names and PATH separator', () => {
  assert.strictEqual(sp.bundledRelativePath('win32', 'x64'), 'server/win32-x64/pcp-derive-lsp.exe');
  assert.deepStrictEqual(sp.pathDirs({ Path: 'C:\\a;;C:\\b' }, 'win32'), ['C:\\a', 'C:\\b']);
});

test('nothing found: one message that says what to do, and what was tried', () => {
  assert.throws(() => sp.findServer({ ...base, configured: '', fs: fakeFs({}) }), (err) => {
    assert.ok(err instanceof sp.ServerNotFoundError);
    assert.match(err.message, /linux-x64/);
    assert.match(err.message, /pcpDerived\.server\.path/);
    assert.match(err.message, /PATH/);
    assert.deepStrictEqual(err.tried, ['/ext/server/linux-x64/pcp-derive-lsp', '/usr/local/bin/pcp-derive-lsp', '/usr/bin/pcp-derive-lsp']);
    return true;
  });
});

test('the real file system: a bundled binary without x bits gets them', () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'pcp-derived-ext-'));
  try {
    const bin = path.join(dir, 'server', `${process.platform}-${process.arch}`, sp.executableName(process.platform));
    fs.mkdirSync(path.dirname(bin), { recursive: true });
    fs.writeFileSync(bin, '#!/bin/sh\n', { mode: 0o644 });
    const found = sp.findServer({ configured: '', extensionPath: dir, env: { PATH: '' } });
    assert.deepStrictEqual(found, { path: bin, origin: 'bundled' });
    if (process.platform !== 'win32') {
      assert.strictEqual(fs.statSync(bin).mode & 0o111, 0o111);
    }
    assert.throws(() => sp.findServer({ configured: path.join(dir, 'server'), extensionPath: dir, env: { PATH: '' } }), /not a file/);
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
});
