// Packages the extension for linux-x64 with the server binary inside, then
// checks what the .vsix holds. The binary is $PCP_DERIVE_LSP_BIN, else the
// repository's bin/pcp-derive-lsp (make build).
import { execFileSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { fileURLToPath } from 'node:url';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const target = 'linux-x64';
const pkg = JSON.parse(fs.readFileSync(path.join(root, 'package.json'), 'utf8'));

function fail(msg) {
  console.error(`package: ${msg}`);
  process.exit(1);
}

// 1. The server binary, which must be a static linux x86-64 executable.
const bin = process.env.PCP_DERIVE_LSP_BIN || path.resolve(root, '..', '..', 'bin', 'pcp-derive-lsp');
if (!fs.existsSync(bin)) {
  fail(`no server binary at ${bin}: run "make build" in the repository (CGO_ENABLED=0 go build -o bin/pcp-derive-lsp ./cmd/pcp-derive-lsp) or set PCP_DERIVE_LSP_BIN`);
}
const head = Buffer.alloc(20);
const fd = fs.openSync(bin, 'r');
fs.readSync(fd, head, 0, 20, 0);
fs.closeSync(fd);
const isElf = head.subarray(0, 4).equals(Buffer.from([0x7f, 0x45, 0x4c, 0x46]));
if (!isElf || head[4] !== 2 || head.readUInt16LE(18) !== 0x3e) {
  fail(`${bin} is not a 64-bit x86-64 ELF executable: build it with GOOS=linux GOARCH=amd64`);
}
const serverDir = path.join(root, 'server', target);
fs.rmSync(path.join(root, 'server'), { recursive: true, force: true });
fs.mkdirSync(serverDir, { recursive: true });
const bundled = path.join(serverDir, 'pcp-derive-lsp');
fs.copyFileSync(bin, bundled);
fs.chmodSync(bundled, 0o755);

// 2. vsce: the bundle needs no node_modules (--no-dependencies).
const vsix = path.join(root, `${pkg.name}-${target}-${pkg.version}.vsix`);
fs.rmSync(vsix, { force: true });
const vsce = path.join(root, 'node_modules', '@vscode', 'vsce', 'vsce');
execFileSync(process.execPath, [vsce, 'package', '--target', target, '--no-dependencies', '--skip-license', '--out', vsix], {
  cwd: root,
  stdio: 'inherit',
});

// 3. What is inside.
const listing = execFileSync('unzip', ['-Z', '-l', vsix], { encoding: 'utf8' });
const entries = new Map();
for (const line of listing.split('\n')) {
  // -rwxr-xr-x  6.3 unx 15101700 bl 7717850 defN 26-Nov-22 18:20 extension/server/linux-x64/pcp-derive-lsp
  const m = /^([-dlrwxsStT]{10})\s+\S+\s+\S+\s+(\d+)\s+\S+\s+\d+\s+\S+\s+\S+\s+\S+\s+(.+)$/.exec(line);
  if (m) {
    entries.set(m[3], { mode: m[1], size: Number(m[2]) });
  }
}
const need = [
  'extension/package.json',
  'extension/readme.md',
  'extension/language-configuration.json',
  'extension/syntaxes/pcp-derived.tmLanguage.json',
  'extension/dist/extension.js',
  `extension/server/${target}/pcp-derive-lsp`,
  'extension.vsixmanifest',
];
for (const name of need) {
  if (!entries.has(name)) {
    fail(`${path.basename(vsix)} lacks ${name}:\n${listing}`);
  }
}
const server = entries.get(`extension/server/${target}/pcp-derive-lsp`);
if (server.size !== fs.statSync(bin).size) {
  fail(`the bundled server is ${server.size} bytes, ${bin} is ${fs.statSync(bin).size}`);
}
if (!/^-rwx/.test(server.mode)) {
  console.warn(`package: note: the bundled server has mode ${server.mode}; the extension sets the x bits when it starts`);
}
const unwanted = [...entries.keys()].filter((n) => /^extension\/(src|test|out|node_modules|scripts)\//.test(n) || n.endsWith('.map') || n.endsWith('.ts'));
if (unwanted.length > 0) {
  fail(`${path.basename(vsix)} holds files it should not: ${unwanted.join(', ')}`);
}
if (/require\(["']vscode-languageclient/.test(fs.readFileSync(path.join(root, 'dist', 'extension.js'), 'utf8'))) {
  fail('dist/extension.js requires vscode-languageclient at run time: it must be bundled');
}
console.log(`package: ${path.relative(process.cwd(), vsix) || vsix}: ${entries.size} files, server ${server.mode} ${server.size} bytes`);
console.log(listing.trim().split('\n').filter((l) => /^[-d]/.test(l)).map((l) => '  ' + l.split(/\s+/).slice(-1)[0]).join('\n'));
