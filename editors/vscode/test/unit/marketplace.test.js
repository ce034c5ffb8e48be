// What the VS Code Marketplace and Open VSX show, and the universal .vsix
// (no server inside) finding pcp-derive-lsp on PATH on every platform.
'use strict';
const { test } = require('node:test');
const assert = require('node:assert');
const fs = require('node:fs');
const path = require('node:path');
const sp = require('../../out/serverPath.js');

const root = path.join(__dirname, '..', '..');
const repoRoot = path.join(root, '..', '..');
const pkg = require('../../package.json');

// https://code.visualstudio.com/api/references/extension-manifest#fields
const marketplaceCategories = [
  'AI', 'Azure', 'Chat', 'Data Science', 'Debuggers', 'Education', 'Extension Packs', 'Formatters', 'Keymaps',
  'Language Packs', 'Linters', 'Machine Learning', 'Notebooks', 'Programming Languages', 'SCM Providers',
  'Snippets', 'Testing', 'Themes', 'Visualization', 'Other',
];

test('manifest fields the galleries need', () => {
  assert.match(pkg.publisher, /^[a-z0-9][a-z0-9-]*$/);
  assert.match(pkg.name, /^[a-z0-9][a-z0-9-]*$/);
  assert.match(pkg.version, /^\d+\.\d+\.\d+$/, 'VS Code versions are plain X.Y.Z');
  assert.ok(pkg.displayName && pkg.description);
  assert.strictEqual(pkg.license, 'Apache-2.0');
  assert.match(pkg.repository.url, /^https:\/\/github\.com\/pcp-derive-lsp\/pcp-derive-lsp(\.git)?$/);
  assert.match(pkg.bugs.url, /^https:\/\/github\.com\/pcp-derive-lsp\/pcp-derive-lsp\/issues$/);
  assert.match(pkg.homepage, /^https:\/\//);
  assert.match(pkg.galleryBanner.color, /^#[0-9a-f]{6}$/i);
  assert.ok(['dark', 'light'].includes(pkg.galleryBanner.theme));
  assert.ok(pkg.categories.length > 0);
  for (const c of pkg.categories) {
    assert.ok(marketplaceCategories.includes(c), `${c} is not a Marketplace category`);
  }
  assert.ok(pkg.keywords.length > 0 && pkg.keywords.length <= 30, 'the Marketplace takes at most 30 keywords');
});

test('the icon is a 128x128 PNG that goes into the .vsix', () => {
  const png = fs.readFileSync(path.join(root, pkg.icon));
  assert.deepStrictEqual([...png.subarray(0, 8)], [0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]);
  assert.strictEqual(png.subarray(12, 16).toString('ascii'), 'IHDR');
  assert.deepStrictEqual([png.readUInt32BE(16), png.readUInt32BE(20)], [128, 128]);
  const ignore = fs.readFileSync(path.join(root, '.vscodeignore'), 'utf8').split('\n');
  for (const keep of [`!${pkg.icon}`, '!CHANGELOG.md', '!LICENSE', '!README.md']) {
    assert.ok(ignore.includes(keep), `.vscodeignore must keep ${keep.slice(1)}`);
  }
});

test('the changelogs and the license', () => {
  const heading = new RegExp(`^## ${pkg.version.replace(/\./g, '\\.')}\\b`, 'm');
  for (const file of [path.join(root, 'CHANGELOG.md'), path.join(repoRoot, 'CHANGELOG.md')]) {
    const text = fs.readFileSync(file, 'utf8');
    assert.match(text, heading, `${file} has no entry for ${pkg.version}`);
    // Changes wait under "## Unreleased" until a release names them.
    const first = [...text.matchAll(/^## (\S+)/gm)].map((m) => m[1]).find((v) => v !== 'Unreleased');
    assert.strictEqual(first, pkg.version, `${file}: the newest released entry should be ${pkg.version}`);
  }
  const license = fs.readFileSync(path.join(repoRoot, 'LICENSE'), 'utf8');
  assert.match(license, /Apache License\s+Version 2\.0, January 2004/);
  assert.match(license, /END OF TERMS AND CONDITIONS/);
});

test('the universal .vsix (no server/ inside) finds the server on PATH on every target', () => {
  const targets = [['linux', 'x64'], ['linux', 'arm64'], ['darwin', 'x64'], ['darwin', 'arm64'], ['win32', 'x64'], ['win32', 'arm64']];
  for (const [platform, arch] of targets) {
    const win = platform === 'win32';
    const dir = win ? 'C:\\tools\\bin' : '/opt/pcp/bin';
    const exe = path.join(dir, sp.executableName(platform));
    const files = new Set([exe]);
    const fsys = { isFile: (p) => files.has(p), isExecutable: (p) => files.has(p), makeExecutable: () => assert.fail('nothing to chmod') };
    const env = win ? { Path: 'C:\\Windows;C:\\tools\\bin' } : { PATH: '/usr/bin:/opt/pcp/bin' };
    const found = sp.findServer({ configured: '', extensionPath: '/ext', platform, arch, env, fs: fsys });
    assert.deepStrictEqual(found, { path: exe, origin: 'path' }, `${platform}-${arch}`);
    if (win) {
      assert.ok(found.path.endsWith('pcp-derive-lsp.exe'));
    }
  }
});
