// Finds the pcp-derive-lsp binary. No `vscode` import: the unit tests run
// this module with plain node (test/unit/serverPath.test.js).
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';

export const SERVER_NAME = 'pcp-derive-lsp';

/** Where a binary was found. */
export type ServerOrigin = 'setting' | 'bundled' | 'path';

export interface ServerLocation {
  path: string;
  origin: ServerOrigin;
}

/** The file system calls findServer makes, replaceable in tests. */
export interface FileSystem {
  /** Whether path is a regular file. */
  isFile(p: string): boolean;
  /** Whether path may be executed by this process. */
  isExecutable(p: string): boolean;
  /** Makes path executable (a .vsix may lose the mode bits). */
  makeExecutable(p: string): void;
}

export interface FindOptions {
  /** The pcpDerived.server.path setting ("" when unset). */
  configured: string;
  /** The extension's install directory (bundled binaries live below it). */
  extensionPath: string;
  /** Folder that relative and ${workspaceFolder} paths are taken from. */
  workspaceFolder?: string;
  platform?: NodeJS.Platform;
  arch?: string;
  env?: NodeJS.ProcessEnv;
  homedir?: string;
  fs?: FileSystem;
}

/** Raised when no usable binary exists; the message says what was tried. */
export class ServerNotFoundError extends Error {
  constructor(message: string, readonly tried: string[]) {
    super(message);
    this.name = 'ServerNotFoundError';
  }
}

export const nodeFileSystem: FileSystem = {
  isFile(p) {
    try {
      return fs.statSync(p).isFile();
    } catch {
      return false;
    }
  },
  isExecutable(p) {
    try {
      fs.accessSync(p, fs.constants.X_OK);
      return true;
    } catch {
      return false;
    }
  },
  makeExecutable(p) {
    const mode = fs.statSync(p).mode;
    fs.chmodSync(p, mode | 0o755);
  },
};

/** The VS Code target name of a platform, e.g. linux-x64, darwin-arm64. */
export function targetName(platform: NodeJS.Platform, arch: string): string {
  return `${platform}-${arch}`;
}

/** The binary's file name on a platform. */
export function executableName(platform: NodeJS.Platform): string {
  return platform === 'win32' ? `${SERVER_NAME}.exe` : SERVER_NAME;
}

/** Where a .vsix carries the binary for a platform, relative to the extension. */
export function bundledRelativePath(platform: NodeJS.Platform, arch: string): string {
  return path.posix.join('server', targetName(platform, arch), executableName(platform));
}

/**
 * Expands a leading "~" and ${workspaceFolder}, ${userHome} and ${env:NAME}
 * in a configured path, and resolves a relative result against the
 * workspace folder.
 */
export function expandPath(p: string, opts: { workspaceFolder?: string; homedir?: string; env?: NodeJS.ProcessEnv }): string {
  const home = opts.homedir ?? os.homedir();
  const env = opts.env ?? process.env;
  let out = p.trim();
  out = out.replace(/\$\{(workspaceFolder|userHome|env:([A-Za-z_][A-Za-z0-9_]*))\}/g, (whole: string, name: string, envName?: string) => {
    if (envName !== undefined) {
      return env[envName] ?? '';
    }
    if (name === 'userHome') {
      return home;
    }
    return opts.workspaceFolder ?? whole;
  });
  if (out === '~') {
    out = home;
  } else if (out.startsWith('~/') || out.startsWith('~\\')) {
    out = path.join(home, out.slice(2));
  }
  if (out !== '' && !path.isAbsolute(out) && opts.workspaceFolder) {
    out = path.resolve(opts.workspaceFolder, out);
  }
  return out;
}

/** Each directory of a PATH value, empty entries left out. */
export function pathDirs(env: NodeJS.ProcessEnv, platform: NodeJS.Platform): string[] {
  const value = env.PATH ?? env.Path ?? '';
  const sep = platform === 'win32' ? ';' : ':';
  return value.split(sep).filter((d) => d !== '');
}

/**
 * Locates the server: the pcpDerived.server.path setting, then the binary
 * bundled for this platform, then PATH. A setting that names no executable
 * is an error rather than silently falling back, so a typo is noticed.
 */
export function findServer(opts: FindOptions): ServerLocation {
  const platform = opts.platform ?? process.platform;
  const arch = opts.arch ?? process.arch;
  const env = opts.env ?? process.env;
  const fsys = opts.fs ?? nodeFileSystem;
  const tried: string[] = [];

  if (opts.configured.trim() !== '') {
    const p = expandPath(opts.configured, { workspaceFolder: opts.workspaceFolder, homedir: opts.homedir, env });
    tried.push(p);
    if (!fsys.isFile(p)) {
      throw new ServerNotFoundError(`pcpDerived.server.path is set to "${opts.configured}", but ${p} does not exist or is not a file.`, tried);
    }
    if (platform !== 'win32' && !fsys.isExecutable(p)) {
      throw new ServerNotFoundError(`pcpDerived.server.path is set to "${opts.configured}", but ${p} is not executable (chmod +x it).`, tried);
    }
    return { path: p, origin: 'setting' };
  }

  const bundled = path.join(opts.extensionPath, ...bundledRelativePath(platform, arch).split('/'));
  tried.push(bundled);
  if (fsys.isFile(bundled)) {
    if (platform !== 'win32' && !fsys.isExecutable(bundled)) {
      try {
        fsys.makeExecutable(bundled);
      } catch {
        // Reported below if it is still not executable.
      }
    }
    if (platform === 'win32' || fsys.isExecutable(bundled)) {
      return { path: bundled, origin: 'bundled' };
    }
  }

  const name = executableName(platform);
  for (const dir of pathDirs(env, platform)) {
    const candidate = path.join(dir, name);
    tried.push(candidate);
    if (fsys.isFile(candidate) && (platform === 'win32' || fsys.isExecutable(candidate))) {
      return { path: candidate, origin: 'path' };
    }
  }

  throw new ServerNotFoundError(
    `Cannot find the ${SERVER_NAME} language server: this extension bundles no binary for ${targetName(platform, arch)} ` +
      `and ${name} is not on PATH. Build it (CGO_ENABLED=0 go build -o bin/${SERVER_NAME} ./cmd/${SERVER_NAME}) ` +
      'and set pcpDerived.server.path to it, or put it on PATH.',
    tried,
  );
}
