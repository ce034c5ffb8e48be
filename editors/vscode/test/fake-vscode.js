// A small stand-in for the `vscode` module, enough to run dist/extension.js
// (and the vscode-languageclient bundled in it) under plain node: real
// events, documents, configuration and commands; providers and UI recorded.
// Members the fake lacks are reported in `missing`, and are no-ops.
'use strict';
const path = require('node:path');

class Disposable {
  constructor(fn) { this._fn = fn; }
  static from(...ds) { return new Disposable(() => ds.forEach((d) => d && d.dispose && d.dispose())); }
  dispose() { if (this._fn) { this._fn(); this._fn = undefined; } }
}

class EventEmitter {
  constructor() {
    this.listeners = new Set();
    this.event = (fn, thisArg, disposables) => {
      const l = thisArg ? fn.bind(thisArg) : fn;
      this.listeners.add(l);
      const d = new Disposable(() => this.listeners.delete(l));
      if (Array.isArray(disposables)) { disposables.push(d); }
      return d;
    };
  }
  fire(e) { for (const l of [...this.listeners]) { l(e); } }
  dispose() { this.listeners.clear(); }
}

class Uri {
  constructor(scheme, p) { this.scheme = scheme; this.path = p; this.fsPath = p; this.authority = ''; this.query = ''; this.fragment = ''; }
  static file(p) { return new Uri('file', path.resolve(p)); }
  static parse(s) {
    const m = /^([a-z][a-z0-9+.-]*):(?:\/\/[^/]*)?(.*)$/i.exec(s);
    return m ? new Uri(m[1], decodeURIComponent(m[2])) : new Uri('file', s);
  }
  static joinPath(u, ...parts) { return new Uri(u.scheme, path.join(u.path, ...parts)); }
  with(change) { return Object.assign(new Uri(this.scheme, this.path), change); }
  toString() { return this.scheme === 'file' ? 'file://' + encodeURI(this.path) : `${this.scheme}:${this.path}`; }
  toJSON() { return { scheme: this.scheme, path: this.path }; }
}

class Position {
  constructor(line, character) { this.line = line; this.character = character; }
  isBefore(o) { return this.line < o.line || (this.line === o.line && this.character < o.character); }
  isEqual(o) { return this.line === o.line && this.character === o.character; }
  translate() { return this; }
  with() { return this; }
}
class Range {
  constructor(a, b, c, d) {
    if (typeof a === 'number') { this.start = new Position(a, b); this.end = new Position(c, d); } else { this.start = a; this.end = b; }
  }
  get isEmpty() { return this.start.isEqual(this.end); }
  contains() { return true; }
  with() { return this; }
}
class Selection extends Range {
  constructor(anchor, active) { super(anchor, active); this.anchor = anchor; this.active = active; }
}
class Location { constructor(uri, range) { this.uri = uri; this.range = range; } }
// The editor tabs' inputs: the language client pulls diagnostics for the
// documents shown in tabs (its DiagnosticFeature reads window.tabGroups).
class TabInputText { constructor(uri) { this.uri = uri; } }
class TabInputTextDiff { constructor(original, modified) { this.original = original; this.modified = modified; } }
class TabInputCustom { constructor(uri, viewType) { this.uri = uri; this.viewType = viewType; } }
class Diagnostic { constructor(range, message, severity) { this.range = range; this.message = message; this.severity = severity; } }
class DiagnosticRelatedInformation { constructor(location, message) { this.location = location; this.message = message; } }
class MarkdownString {
  constructor(value = '', supportThemeIcons = false) { this.value = value; this.supportThemeIcons = supportThemeIcons; }
  appendMarkdown(s) { this.value += s; return this; }
  appendText(s) { this.value += s.replace(/[\\`*_{}[\]()#+\-.!]/g, '\\$&'); return this; }
  appendCodeblock(s) { this.value += '\n```\n' + s + '\n```\n'; return this; }
}
class ThemeColor { constructor(id) { this.id = id; } }
class ThemeIcon { constructor(id) { this.id = id; } }
class CancellationTokenSource {
  constructor() {
    const em = new EventEmitter();
    this._em = em;
    this.token = { isCancellationRequested: false, onCancellationRequested: em.event };
  }
  cancel() { this.token.isCancellationRequested = true; this._em.fire(); }
  dispose() {}
}
class Generic { constructor(...args) { this.args = args; Object.assign(this, ...args.filter((a) => a && typeof a === 'object' && !Array.isArray(a) && !(a instanceof Uri))); } }

function createFake(opts = {}) {
  const missing = new Set();
  const messages = [];
  const commands = new Map();
  const config = { ...(opts.config || {}) };
  const diagnostics = new Map();
  const statusItems = [];
  const outputs = [];

  const onDidOpen = new EventEmitter();
  const onDidClose = new EventEmitter();
  const onDidChangeDoc = new EventEmitter();
  const onDidChangeConfig = new EventEmitter();
  const onDidChangeEditor = new EventEmitter();
  const onDidChangeTabs = new EventEmitter();
  const textDocuments = [];
  // One tab group; a document opened by open() gets a tab, as in the editor.
  const tabGroup = { tabs: [] };

  function makeDocument(fsPath, languageId, text) {
    const doc = {
      uri: Uri.file(fsPath), fileName: fsPath, languageId, version: 1, isClosed: false, isDirty: false, isUntitled: false,
      eol: 1, lineCount: text.split('\n').length,
      getText: () => text,
      lineAt: (l) => ({ text: text.split('\n')[typeof l === 'number' ? l : l.line] }),
      offsetAt: () => 0, positionAt: () => new Position(0, 0), save: async () => true,
    };
    return doc;
  }

  // Any member the fake lacks: noted, and a function returning a disposable.
  function lenient(name, obj) {
    return new Proxy(obj, {
      get(target, prop) {
        if (prop in target || typeof prop === 'symbol' || prop === 'then') { return target[prop]; }
        missing.add(`${name}.${String(prop)}`);
        return () => new Disposable();
      },
    });
  }

  const provider = () => new Disposable();
  const workspace = lenient('workspace', {
    textDocuments,
    workspaceFolders: opts.workspaceFolder ? [{ uri: Uri.file(opts.workspaceFolder), name: 'ws', index: 0 }] : undefined,
    getConfiguration(section) {
      const prefix = section ? section + '.' : '';
      return {
        get: (key, def) => (Object.hasOwn(config, prefix + key) ? config[prefix + key] : def),
        has: (key) => Object.hasOwn(config, prefix + key),
        inspect: () => undefined,
        update: async (key, value) => {
          if (value === undefined) { delete config[prefix + key]; } else { config[prefix + key] = value; }
          onDidChangeConfig.fire({ affectsConfiguration: (s) => (prefix + key).startsWith(s) });
        },
      };
    },
    onDidOpenTextDocument: onDidOpen.event,
    onDidCloseTextDocument: onDidClose.event,
    onDidChangeTextDocument: onDidChangeDoc.event,
    onDidSaveTextDocument: new EventEmitter().event,
    onWillSaveTextDocument: new EventEmitter().event,
    onDidChangeConfiguration: onDidChangeConfig.event,
    onDidChangeWorkspaceFolders: new EventEmitter().event,
    onDidCreateFiles: new EventEmitter().event,
    onDidRenameFiles: new EventEmitter().event,
    onDidDeleteFiles: new EventEmitter().event,
    onWillCreateFiles: new EventEmitter().event,
    onWillRenameFiles: new EventEmitter().event,
    onWillDeleteFiles: new EventEmitter().event,
    onDidOpenNotebookDocument: new EventEmitter().event,
    onDidCloseNotebookDocument: new EventEmitter().event,
    onDidChangeNotebookDocument: new EventEmitter().event,
    onDidSaveNotebookDocument: new EventEmitter().event,
    notebookDocuments: [],
    createFileSystemWatcher: () => ({ onDidCreate: provider, onDidChange: provider, onDidDelete: provider, dispose() {} }),
    getWorkspaceFolder: () => undefined,
    asRelativePath: (p) => String(p),
  });

  const window = lenient('window', {
    activeTextEditor: undefined,
    visibleTextEditors: [],
    tabGroups: { all: [tabGroup], onDidChangeTabs: onDidChangeTabs.event },
    onDidChangeActiveTextEditor: onDidChangeEditor.event,
    onDidChangeVisibleTextEditors: new EventEmitter().event,
    createOutputChannel(name) {
      const ch = { name, lines: [], append(s) { this.lines.push(s); }, appendLine(s) { this.lines.push(s); }, replace() {}, clear() {}, show() { this.shown = true; }, hide() {}, dispose() {} };
      outputs.push(ch);
      return ch;
    },
    createStatusBarItem(id) {
      const item = { id, text: '', visible: false, show() { this.visible = true; }, hide() { this.visible = false; }, dispose() {} };
      statusItems.push(item);
      return item;
    },
    showErrorMessage: async (m) => { messages.push({ level: 'error', text: m }); return undefined; },
    showWarningMessage: async (m) => { messages.push({ level: 'warning', text: m }); return undefined; },
    showInformationMessage: async (m) => { messages.push({ level: 'info', text: m }); return undefined; },
    withProgress: (_o, task) => task({ report() {} }, new CancellationTokenSource().token),
    showQuickPick: async (items) => (opts.quickPick ? opts.quickPick(await items) : undefined),
    showInputBox: async () => opts.inputBox,
    showOpenDialog: async () => undefined,
  });

  const languages = lenient('languages', {
    createDiagnosticCollection(name) {
      const coll = {
        name,
        set(uri, ds) { if (Array.isArray(uri)) { uri.forEach(([u, d]) => diagnostics.set(u.toString(), d)); } else { diagnostics.set(uri.toString(), ds || []); } },
        delete(uri) { diagnostics.delete(uri.toString()); },
        clear() { diagnostics.clear(); },
        forEach() {}, get: (u) => diagnostics.get(u.toString()), has: (u) => diagnostics.has(u.toString()), dispose() {},
      };
      return coll;
    },
    match: (selector, doc) => ([].concat(selector).some((s) => (typeof s === 'string' ? s : s.language) === doc.languageId && (!s.scheme || s.scheme === doc.uri.scheme)) ? 10 : 0),
    setTextDocumentLanguage: async (doc, languageId) => {
      const i = textDocuments.indexOf(doc);
      const next = makeDocument(doc.fileName, languageId, doc.getText());
      if (i >= 0) { textDocuments.splice(i, 1, next); }
      onDidClose.fire(doc);
      onDidOpen.fire(next);
      return next;
    },
  });

  const vscode = {
    version: '1.82.0',
    env: { appName: 'fake', appRoot: '/', language: 'en', machineId: 'm', sessionId: 's', uriScheme: 'vscode', uiKind: 1, openExternal: async () => true, clipboard: { writeText: async () => {} } },
    Disposable, EventEmitter, Uri, Position, Range, Selection, Location, Diagnostic, DiagnosticRelatedInformation,
    TabInputText, TabInputTextDiff, TabInputCustom,
    MarkdownString, ThemeColor, ThemeIcon, CancellationTokenSource,
    CancellationError: class extends Error {},
    StatusBarAlignment: { Left: 1, Right: 2 },
    ProgressLocation: { SourceControl: 1, Window: 10, Notification: 15 },
    ConfigurationTarget: { Global: 1, Workspace: 2, WorkspaceFolder: 3 },
    DiagnosticSeverity: { Error: 0, Warning: 1, Information: 2, Hint: 3 },
    DiagnosticTag: { Unnecessary: 1, Deprecated: 2 },
    UIKind: { Desktop: 1, Web: 2 },
    ExtensionMode: { Production: 1, Development: 2, Test: 3 },
    TextDocumentSaveReason: { Manual: 1 },
    EndOfLine: { LF: 1, CRLF: 2 },
    workspace, window, languages,
    commands: lenient('commands', {
      registerCommand(id, fn) {
        if (commands.has(id)) { throw new Error(`command ${id} already exists`); }
        commands.set(id, fn);
        return new Disposable(() => commands.delete(id));
      },
      executeCommand: async (id, ...args) => (commands.has(id) ? commands.get(id)(...args) : undefined),
      getCommands: async () => [...commands.keys()],
    }),
    extensions: lenient('extensions', { getExtension: () => undefined, all: [] }),
    l10n: { t: (s, ...args) => (typeof s === 'string' ? s.replace(/\{(\d+)\}/g, (_m, i) => String(args[i])) : s.message) },
  };

  const full = new Proxy(vscode, {
    get(target, prop) {
      if (prop in target || typeof prop === 'symbol' || prop === 'then' || prop === '__esModule') { return target[prop]; }
      // Enum-like and class-like members the language client only refers to.
      missing.add(`vscode.${String(prop)}`);
      return new Proxy(Generic, { get: (t, p) => (p in t ? t[p] : (typeof p === 'string' ? p : undefined)) });
    },
  });

  return {
    vscode: full, missing, messages, commands, config, diagnostics, statusItems, outputs, textDocuments,
    open(fsPath, languageId, text) {
      const doc = makeDocument(fsPath, languageId, text);
      textDocuments.push(doc);
      const tab = { input: new TabInputText(doc.uri), label: path.basename(fsPath) };
      tabGroup.tabs.push(tab);
      onDidChangeTabs.fire({ opened: [tab], closed: [], changed: [] });
      onDidOpen.fire(doc);
      return doc;
    },
    focus(doc, line = 0, character = 0) {
      const doc2 = textDocuments.find((d) => d.fileName === doc.fileName) || doc;
      const pos = new Position(line, character);
      window.activeTextEditor = { document: doc2, selection: new Selection(pos, pos), visibleRanges: [] };
      onDidChangeEditor.fire(window.activeTextEditor);
    },
  };
}

/** Makes require('vscode') return fake.vscode from now on. */
function installFake(fake) {
  const Module = require('node:module');
  const original = Module._load;
  Module._load = function load(request, parent, isMain) {
    if (request === 'vscode') { return fake.vscode; }
    return original.call(this, request, parent, isMain);
  };
  return () => { Module._load = original; };
}

module.exports = { createFake, installFake };
