// Packages the extension for a VS Code platform target with the server
// binary inside, then checks what the .vsix holds. The target is
// $PCP_DERIVE_LSP_TARGET (default linux-x64; "universal" packages no server:
// the extension then finds pcp-derive-lsp on PATH). The binary is
// $PCP_DERIVE_LSP_BIN, else the repository's bin/pcp-derive-lsp (make build).
import { execFileSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { fileURLToPath } from 'node:url';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const target = process.env.PCP_DERIVE_LSP_TARGET || 'linux-x64';
const universal = target === 'universal';
// The executable format each target's server must have: magic bytes and
// machine, so a binary for the wrong platform is never shipped.
const formats = {
  'linux-x64': { elf: 0x3e },
  'linux-arm64': { elf: 0xb7 },
  'darwin-x64': { macho: 0x01000007 },
  'darwin-arm64': { macho: 0x0100000c },
  'win32-x64': { pe: 0x8664 },
  'win32-arm64': { pe: 0xaa64 },
};
if (!universal && !formats[target]) {
  console.error(`package: unknown target ${target}: want one of ${Object.keys(formats).join(', ')} or universal`);
  process.exit(1);
}
const exe = target.startsWith('win32') ? 'pcp-derive-lsp.exe' : 'pcp-derive-lsp';
const pkg = JSON.parse(fs.readFileSync(path.join(root, 'package.json'), 'utf8'));

function fail(msg) {
  console.error(`package: ${msg}`);
  process.exit(1);
}

// 1. The server binary, for the target's system and machine.
const bin = process.env.PCP_DERIVE_LSP_BIN || path.resolve(root, '..', '..', 'bin', 'pcp-derive-lsp');
fs.rmSync(path.join(root, 'server'), { recursive: true, force: true });
if (!universal) {
  if (!fs.existsSync(bin)) {
    fail(`no server binary at ${bin}: run "make build" in the repository (CGO_ENABLED=0 go build -o bin/pcp-derive-lsp ./cmd/pcp-derive-lsp) or set PCP_DERIVE_LSP_BIN`);
  }
  const head = Buffer.alloc(4096);
  const fd = fs.openSync(bin, 'r');
  fs.readSync(fd, head, 0, head.length, 0);
  fs.closeSync(fd);
  const want = formats[target];
  let ok = false;
  if (want.elf !== undefined) {
    ok = head.subarray(0, 4).equals(Buffer.from([0x7f, 0x45, 0x4c, 0x46])) && head[4] === 2 && head.readUInt16LE(18) === want.elf;
  } else if (want.macho !== undefined) {
    ok = head.readUInt32LE(0) === 0xfeedfacf && head.readUInt32LE(4) === want.macho;
  } else {
    const pe = head.readUInt32LE(0x3c);
    ok = head.subarray(0, 2).toString() === 'MZ' && pe + 6 <= head.length && head.readUInt32LE(pe) === 0x00004550 && head.readUInt16LE(pe + 4) === want.pe;
  }
  if (!ok) {
    fail(`${bin} is not a ${target} executable: build it with the matching GOOS and GOARCH`);
  }
  const serverDir = path.join(root, 'server', target);
  fs.mkdirSync(serverDir, { recursive: true });
  const bundled = path.join(serverDir, exe);
  fs.copyFileSync(bin, bundled);
  fs.chmodSync(bundled, 0o755);
}

// 2. The repository's LICENSE goes into the package (vsce wants it beside
// package.json; the copy is ignored by git).
const license = path.resolve(root, '..', '..', 'LICENSE');
if (!fs.existsSync(license)) {
  fail(`no ${license}: the .vsix must carry the license`);
}
fs.copyFileSync(license, path.join(root, 'LICENSE'));

// 3. vsce: the bundle needs no node_modules (--no-dependencies).
const outDir = process.env.PCP_DERIVE_LSP_OUT || root;
const vsix = path.join(outDir, universal ? `${pkg.name}-${pkg.version}.vsix` : `${pkg.name}-${target}-${pkg.version}.vsix`);
fs.rmSync(vsix, { force: true });
const vsce = path.join(root, 'node_modules', '@vscode', 'vsce', 'vsce');
const targetArgs = universal ? [] : ['--target', target];
execFileSync(process.execPath, [vsce, 'package', ...targetArgs, '--no-dependencies', '--out', vsix], {
  cwd: root,
  stdio: 'inherit',
});

// 4. What is inside.
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
  'extension/LICENSE.txt',
  'extension/changelog.md',
  `extension/${pkg.icon}`,
  'extension.vsixmanifest',
];
if (!universal) {
  need.push(`extension/server/${target}/${exe}`);
}
for (const name of need) {
  if (!entries.has(name)) {
    fail(`${path.basename(vsix)} lacks ${name}:\n${listing}`);
  }
}
const server = universal ? { mode: 'none', size: 0 } : entries.get(`extension/server/${target}/${exe}`);
if (universal) {
  const stray = [...entries.keys()].filter((n) => n.startsWith('extension/server/'));
  if (stray.length > 0) {
    fail(`the universal package holds a server: ${stray.join(', ')}`);
  }
} else if (server.size !== fs.statSync(bin).size) {
  fail(`the bundled server is ${server.size} bytes, ${bin} is ${fs.statSync(bin).size}`);
}
if (!universal && !/^-rwx/.test(server.mode)) {
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
