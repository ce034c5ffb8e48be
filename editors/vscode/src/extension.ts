// The VS Code side of pcp-derive-lsp: starts the server when a PCP derived
// metric config is open, keeps its settings in step, and adds commands and
// a status bar item.
import { type ChildProcess, spawn } from 'node:child_process';
import * as vscode from 'vscode';
import {
  CloseAction,
  DidChangeConfigurationNotification,
  ErrorAction,
  type ErrorHandler,
  LanguageClient,
  type LanguageClientOptions,
  RevealOutputChannelOn,
  type ServerOptions,
  State,
} from 'vscode-languageclient/node';
import {
  EXPLAIN_COMMAND,
  type ExplainResult,
  type ExtensionSettings,
  type PreviewResult,
  SECTION,
  type SourceKind,
  describeSource,
  explainCommandParams,
  explainPage,
  fileMatcher,
  formatPreview,
  isExplainResult,
  isPreviewResult,
  needsRestart,
  previewErrorMessage,
  previewParams,
  readSettings,
  sourceUpdate,
  toServerSettings,
  webArgs,
  webFrame,
  webPageURL,
  webURL,
} from './config';
import { type ServerLocation, ServerNotFoundError, findServer } from './serverPath';

export const LANGUAGE_ID = 'pcp-derived';
/** pmrep, pcp-dstat and pcp-htop files: the server tells them apart by path and content. */
export const TOOL_LANGUAGE_ID = 'pcp-toolconf';
const LANGUAGE_IDS: readonly string[] = [LANGUAGE_ID, TOOL_LANGUAGE_ID];

/** Whether the server reads documents of a language. */
function isServed(languageId: string | undefined): boolean {
  return languageId !== undefined && LANGUAGE_IDS.includes(languageId);
}
const CLIENT_ID = SECTION; // so that vscode-languageclient reads pcpDerived.trace.server
const PREVIEW_METHOD = 'pcp/preview';

type Phase = 'idle' | 'starting' | 'running' | 'stopped' | 'failed' | 'missing';

/** The pcp/status notification (lsp.Status in the server). */
interface ServerStatus {
  source: string;
  state: 'ok' | 'unreachable' | 'none';
  dialect: string;
  pcpVersion?: string;
  pcpVersionReason?: string;
  message?: string;
}

class Extension implements vscode.Disposable {
  private readonly output: vscode.OutputChannel;
  private readonly status: vscode.StatusBarItem;
  private readonly disposables: vscode.Disposable[] = [];
  private client: LanguageClient | undefined;
  private location: ServerLocation | undefined;
  private settings: ExtensionSettings;
  private phase: Phase = 'idle';
  private phaseDetail = '';
  /** The server's own view of its metadata source (pcp/status). */
  private serverStatus: ServerStatus | undefined;
  private matches: (fsPath: string) => boolean;
  private configTimer: NodeJS.Timeout | undefined;
  private explainPanel: vscode.WebviewPanel | undefined;
  /** The explain page's server (pcp-derive-lsp web) for one config, and its panel. */
  private web: { proc: ChildProcess; config: string; url: Promise<string> } | undefined;
  private webPanel: vscode.WebviewPanel | undefined;
  // Serialises start, stop and restart.
  private lifecycle: Promise<void> = Promise.resolve();

  constructor(private readonly context: vscode.ExtensionContext) {
    this.output = vscode.window.createOutputChannel('PCP Derived');
    this.status = vscode.window.createStatusBarItem('pcpDerived.status', vscode.StatusBarAlignment.Right, 100);
    this.status.name = 'PCP Derived Metrics';
    this.status.command = 'pcpDerived.pickSource';
    this.settings = this.read();
    this.matches = fileMatcher(this.settings.filePatterns);
  }

  activate(): void {
    const reg = (id: string, fn: () => unknown) => {
      this.disposables.push(vscode.commands.registerCommand(id, fn));
    };
    reg('pcpDerived.restartServer', () => this.restart(true));
    reg('pcpDerived.pickSource', () => this.pickSource());
    reg('pcpDerived.previewValues', () => this.previewValues());
    reg('pcpDerived.explain', () => this.explainMetric());
    reg('pcpDerived.showOutput', () => {
      this.output.show(true);
    });

    this.disposables.push(
      vscode.workspace.onDidOpenTextDocument((doc) => {
        this.onOpen(doc);
      }),
      vscode.window.onDidChangeActiveTextEditor(() => {
        this.render();
      }),
      vscode.workspace.onDidChangeConfiguration((e) => {
        if (e.affectsConfiguration(SECTION)) {
          // Picking a source writes four settings: act once.
          clearTimeout(this.configTimer);
          this.configTimer = setTimeout(() => {
            this.onConfigChanged();
          }, 100);
        }
      }),
    );
    for (const doc of vscode.workspace.textDocuments) {
      this.onOpen(doc);
    }
    this.render();
  }

  private read(): ExtensionSettings {
    const cfg = vscode.workspace.getConfiguration(SECTION);
    return readSettings((key) => cfg.get(key));
  }

  private workspaceFolder(): string | undefined {
    const folder = vscode.workspace.workspaceFolders?.find((f) => f.uri.scheme === 'file');
    return folder?.uri.fsPath;
  }

  private serverSettings() {
    return toServerSettings(this.settings, { workspaceFolder: this.workspaceFolder() });
  }

  /** Switches matching files to our language, and starts the server for the first config opened. */
  private onOpen(doc: vscode.TextDocument): void {
    if (!isServed(doc.languageId) && doc.uri.scheme === 'file' && this.matches(doc.uri.fsPath)) {
      // Reopens the document with the new language: this handler runs again.
      void vscode.languages.setTextDocumentLanguage(doc, LANGUAGE_ID);
      return;
    }
    if (isServed(doc.languageId) && this.phase === 'idle') {
      void this.start();
    }
  }

  private onConfigChanged(): void {
    const before = this.settings;
    this.settings = this.read();
    this.matches = fileMatcher(this.settings.filePatterns);
    if (needsRestart(before, this.settings)) {
      // New patterns may switch open documents to our language: do it once
      // the new server is starting, so the old one never sees them.
      const rescan = () => {
        for (const doc of vscode.workspace.textDocuments) {
          this.onOpen(doc);
        }
      };
      if (this.phase === 'idle') {
        rescan();
      } else {
        void this.restart(false).then(rescan);
      }
    } else if (this.client?.state === State.Running) {
      void this.client
        .sendNotification(DidChangeConfigurationNotification.type, { settings: { pcpDerive: this.serverSettings() } })
        .catch((err: unknown) => {
          this.log(`didChangeConfiguration failed: ${String(err)}`);
        });
    }
    this.render();
  }

  private log(line: string): void {
    this.output.appendLine(`[${new Date().toISOString()}] ${line}`);
  }

  private start(): Promise<void> {
    if (this.phase === 'idle') {
      // At once, so that documents opened meanwhile do not queue more starts.
      this.setPhase('starting');
    }
    this.lifecycle = this.lifecycle.then(() => this.doStart());
    return this.lifecycle;
  }

  private async doStart(): Promise<void> {
    if (this.client) {
      return;
    }
    try {
      this.location = findServer({
        configured: this.settings.serverPath,
        extensionPath: this.context.extensionPath,
        workspaceFolder: this.workspaceFolder(),
      });
    } catch (err) {
      this.location = undefined;
      const msg = err instanceof Error ? err.message : String(err);
      this.setPhase('missing', msg);
      this.log(msg);
      if (err instanceof ServerNotFoundError) {
        this.log(`looked for: ${err.tried.join(', ')}`);
      }
      void vscode.window.showErrorMessage(msg, 'Open Settings', 'Show Output').then((pick) => {
        if (pick === 'Open Settings') {
          void vscode.commands.executeCommand('workbench.action.openSettings', `${SECTION}.server.path`);
        } else if (pick === 'Show Output') {
          this.output.show(true);
        }
      });
      return;
    }
    this.log(`starting ${this.location.path} (${this.location.origin})`);

    const serverOptions: ServerOptions = { command: this.location.path, args: ['serve'] };
    const clientOptions: LanguageClientOptions = {
      documentSelector: LANGUAGE_IDS.flatMap((language) => [
        { scheme: 'file', language },
        { scheme: 'untitled', language },
      ]),
      outputChannel: this.output,
      revealOutputChannelOn: RevealOutputChannelOn.Never,
      initializationOptions: () => this.serverSettings(),
      errorHandler: this.errorHandler(),
      middleware: {
        // "Explain this metric" from a code action: show the answer.
        executeCommand: async (command, args, next) => {
          const result: unknown = await next(command, args);
          if (command === EXPLAIN_COMMAND) {
            this.showExplanation(result);
          }
          return result;
        },
      },
    };
    const client = new LanguageClient(CLIENT_ID, 'PCP Derived Metrics', serverOptions, clientOptions);
    this.client = client;
    this.serverStatus = undefined;
    client.onNotification('pcp/status', (st: ServerStatus) => {
      if (this.client === client) {
        this.serverStatus = st;
        this.render();
      }
    });
    client.onDidChangeState((e) => {
      if (this.client !== client) {
        return;
      }
      switch (e.newState) {
        case State.Starting:
          this.setPhase('starting');
          break;
        case State.Running:
          this.setPhase('running');
          break;
        case State.Stopped:
          if (this.phase !== 'failed') {
            this.setPhase('stopped');
          }
          break;
      }
    });
    this.setPhase('starting');
    try {
      await client.start();
    } catch (err) {
      const msg = `pcp-derive-lsp did not start: ${err instanceof Error ? err.message : String(err)}`;
      this.log(msg);
      this.setPhase('failed', msg);
      void vscode.window.showErrorMessage(msg, 'Show Output').then((pick) => {
        if (pick) {
          this.output.show(true);
        }
      });
    }
  }

  /** Restarts a crashed server a few times, then gives up and says so. */
  private errorHandler(): ErrorHandler {
    const restarts: number[] = [];
    return {
      error: () => ({ action: ErrorAction.Continue }),
      closed: () => {
        const now = Date.now();
        restarts.push(now);
        while (restarts.length > 0 && now - restarts[0] > 3 * 60 * 1000) {
          restarts.shift();
        }
        if (restarts.length <= 4) {
          this.log('the server stopped: restarting it');
          return { action: CloseAction.Restart };
        }
        const msg = 'pcp-derive-lsp stopped 5 times in 3 minutes: not restarting it (see the PCP Derived output; "PCP Derived: Restart Language Server" tries again).';
        this.setPhase('failed', msg);
        return { action: CloseAction.DoNotRestart, message: msg };
      },
    };
  }

  private stop(): Promise<void> {
    this.lifecycle = this.lifecycle.then(async () => {
      const client = this.client;
      this.client = undefined;
      if (client) {
        try {
          await client.stop(5000);
        } catch (err) {
          this.log(`stopping the server: ${String(err)}`);
        }
        await client.dispose();
      }
    });
    return this.lifecycle;
  }

  private async restart(userAsked: boolean): Promise<void> {
    await this.stop();
    this.setPhase('idle');
    this.settings = this.read();
    this.matches = fileMatcher(this.settings.filePatterns);
    const open = vscode.workspace.textDocuments.some((d) => isServed(d.languageId));
    if (open || userAsked) {
      await this.start();
    }
  }

  private setPhase(phase: Phase, detail = ''): void {
    this.phase = phase;
    this.phaseDetail = detail;
    this.render();
  }

  private render(): void {
    const src = describeSource(this.settings);
    const icon: Record<Phase, string> = {
      idle: '$(circle-outline)',
      starting: '$(sync~spin)',
      running: '$(pulse)',
      stopped: '$(debug-stop)',
      failed: '$(error)',
      missing: '$(warning)',
    };
    const state: Record<Phase, string> = {
      idle: 'not started',
      starting: 'starting',
      running: 'running',
      stopped: 'stopped',
      failed: 'failed',
      missing: 'server not found',
    };
    const down = this.phase === 'running' && this.serverStatus?.state === 'unreachable';
    this.status.text = down ? `$(debug-disconnect) PCP: ${src.label} unreachable` : `${icon[this.phase]} PCP: ${src.label}`;
    const tip = new vscode.MarkdownString(undefined, true);
    tip.appendMarkdown(`**pcp-derive-lsp** — ${state[this.phase]}\n\n`);
    tip.appendText(`Metadata: ${src.detail}\n\nPCP version: ${this.settings.pcpVersion}\n\n`);
    if (this.location) {
      tip.appendText(`Server: ${this.location.path} (${this.location.origin})\n\n`);
    }
    if (this.phaseDetail) {
      tip.appendText(`${this.phaseDetail}\n\n`);
    }
    if (this.serverStatus && this.phase === 'running') {
      const st = this.serverStatus;
      tip.appendText(`Server uses: ${st.source} (${st.state}${st.message ? `: ${st.message}` : ''}), PCP ${st.pcpVersion ?? st.dialect}${st.pcpVersionReason ? ` (${st.pcpVersionReason})` : ''}\n\n`);
    }
    tip.appendMarkdown('Click to pick the metric metadata source.');
    this.status.tooltip = tip;
    this.status.backgroundColor =
      this.phase === 'failed' || this.phase === 'missing'
        ? new vscode.ThemeColor('statusBarItem.errorBackground')
        : down
          ? new vscode.ThemeColor('statusBarItem.warningBackground')
          : undefined;
    const editor = vscode.window.activeTextEditor;
    if (editor && isServed(editor.document.languageId)) {
      this.status.show();
    } else {
      this.status.hide();
    }
  }

  private async pickSource(): Promise<void> {
    type Item = vscode.QuickPickItem & { kind2: SourceKind | 'auto' | 'embedded' };
    const current = describeSource(this.settings);
    const items: Item[] = [
      { kind2: 'auto', label: '$(sync) Automatic', detail: describeSource({ ...this.settings, source: sourceUpdateAll('') }).detail },
      { kind2: 'host', label: '$(server) pmcd on a host…', detail: 'HOST[:PORT], for example localhost or pcp.example.com:44321' },
      { kind2: 'socket', label: '$(plug) pmcd on a unix socket…', detail: 'for example /run/pcp/pmcd.socket' },
      { kind2: 'pmproxy', label: '$(cloud) pmcd through pmproxy…', detail: "pmproxy's URL, for example http://gateway:44322, then the pmcd host it reaches" },
      { kind2: 'archive', label: '$(archive) PCP archive…', detail: 'metadata recorded in an archive (pmlogger)' },
      { kind2: 'metadata', label: '$(file) Metadata snapshot file…', detail: 'a file made by pcp-derive-lsp snapshot' },
      { kind2: 'embedded', label: '$(package) Embedded snapshot', detail: 'the snapshot built into pcp-derive-lsp (a typical Linux host)' },
    ];
    const pick = await vscode.window.showQuickPick(items, {
      title: 'PCP Derived: metric metadata source',
      placeHolder: `Currently: ${current.detail}`,
    });
    if (!pick) {
      return;
    }
    let kind: SourceKind | 'auto' = 'auto';
    let value = '';
    switch (pick.kind2) {
      case 'auto':
        break;
      case 'embedded':
        kind = 'metadata';
        value = 'embedded';
        break;
      case 'pmproxy': {
        const url = await vscode.window.showInputBox({
          title: 'pmproxy URL',
          prompt: pick.detail,
          value: this.settings.source.pmproxy || 'http://localhost:44322',
          validateInput: (v) => (v.trim() === '' ? 'Enter a value, or press Escape' : undefined),
        });
        if (url === undefined) {
          return;
        }
        const hostspec = await vscode.window.showInputBox({
          title: 'pmcd host pmproxy reaches',
          prompt: "HOST[:PORT]; empty for pmproxy's own host",
          value: this.settings.source.hostspec,
        });
        if (hostspec === undefined) {
          return;
        }
        kind = 'pmproxy';
        value = url.trim();
        await vscode.workspace.getConfiguration(SECTION).update('source.hostspec', hostspec.trim() || undefined, this.settingsTarget());
        break;
      }
      case 'host':
      case 'socket': {
        const input = await vscode.window.showInputBox({
          title: pick.kind2 === 'host' ? 'pmcd host' : 'pmcd unix socket',
          prompt: pick.detail,
          value: this.settings.source[pick.kind2] || (pick.kind2 === 'host' ? 'localhost' : '/run/pcp/pmcd.socket'),
          validateInput: (v) => (v.trim() === '' ? 'Enter a value, or press Escape' : undefined),
        });
        if (input === undefined) {
          return;
        }
        kind = pick.kind2;
        value = input.trim();
        break;
      }
      case 'archive':
      case 'metadata': {
        const uris = await vscode.window.showOpenDialog({
          title: pick.kind2 === 'archive' ? 'Pick any file of the PCP archive' : 'Pick a metadata snapshot',
          canSelectMany: false,
          openLabel: 'Use',
          defaultUri: vscode.workspace.workspaceFolders?.[0]?.uri,
          filters:
            pick.kind2 === 'archive'
              ? { 'PCP archives': ['meta', 'index', '0', 'xz'], 'All files': ['*'] }
              : { Snapshots: ['json', 'snapshot'], 'All files': ['*'] },
        });
        if (!uris || uris.length === 0) {
          return;
        }
        kind = pick.kind2;
        value = uris[0].fsPath;
        break;
      }
    }
    const target = this.settingsTarget();
    const cfg = vscode.workspace.getConfiguration(SECTION);
    const update = sourceUpdate(kind, value);
    for (const key of Object.keys(update) as SourceKind[]) {
      await cfg.update(`source.${key}`, update[key], target);
    }
    this.log(`metadata source set to ${kind}${value ? ` ${value}` : ''} (${target === vscode.ConfigurationTarget.Workspace ? 'workspace' : 'user'} settings)`);
  }

  /** Where the source picker writes: the workspace's settings when there is a folder open, else the user's. */
  private settingsTarget(): vscode.ConfigurationTarget {
    return vscode.workspace.workspaceFolders && vscode.workspace.workspaceFolders.length > 0
      ? vscode.ConfigurationTarget.Workspace
      : vscode.ConfigurationTarget.Global;
  }

  private async previewValues(): Promise<void> {
    const editor = vscode.window.activeTextEditor;
    if (!editor || !isServed(editor.document.languageId)) {
      void vscode.window.showErrorMessage('Preview: open a PCP derived metric config and put the cursor on a definition.');
      return;
    }
    if (this.client?.state !== State.Running) {
      void vscode.window.showErrorMessage(
        this.phase === 'missing' ? this.phaseDetail : 'Preview: the pcp-derive-lsp server is not running (see the PCP Derived output).',
      );
      return;
    }
    const client = this.client;
    const pos = editor.selection.active;
    const params = previewParams(client.code2ProtocolConverter.asUri(editor.document.uri), pos.line, pos.character);
    let result: unknown;
    try {
      result = await vscode.window.withProgress(
        { location: vscode.ProgressLocation.Window, title: 'PCP: fetching values…' },
        (_progress, token) => client.sendRequest(PREVIEW_METHOD, params, token),
      );
    } catch (err) {
      const msg = previewErrorMessage(err);
      this.log(msg);
      void vscode.window.showErrorMessage(msg);
      return;
    }
    if (!isPreviewResult(result)) {
      const msg = `Preview: unexpected answer from the server: ${JSON.stringify(result)}`;
      this.log(msg);
      void vscode.window.showErrorMessage(msg);
      return;
    }
    this.showPreview(result);
  }

  private showPreview(r: PreviewResult): void {
    for (const line of formatPreview(r)) {
      this.output.appendLine(line);
    }
    const show = (pick: string | undefined) => {
      if (pick) {
        this.output.show(true);
      }
    };
    if (r.error) {
      void vscode.window.showWarningMessage(r.text || r.error, 'Show Output').then(show);
    } else {
      void vscode.window.showInformationMessage(r.text, 'Show All Values').then(show);
    }
  }

  private async explainMetric(): Promise<void> {
    const editor = vscode.window.activeTextEditor;
    if (!editor || !isServed(editor.document.languageId)) {
      void vscode.window.showErrorMessage('Explain: open a PCP derived metric config and put the cursor on a definition.');
      return;
    }
    if (this.client?.state !== State.Running) {
      void vscode.window.showErrorMessage(
        this.phase === 'missing' ? this.phaseDetail : 'Explain: the pcp-derive-lsp server is not running (see the PCP Derived output).',
      );
      return;
    }
    const client = this.client;
    const pos = editor.selection.active;
    const params = explainCommandParams(client.code2ProtocolConverter.asUri(editor.document.uri), pos.line, pos.character);
    try {
      const result: unknown = await vscode.window.withProgress(
        { location: vscode.ProgressLocation.Window, title: 'PCP: explaining…' },
        (_progress, token) => client.sendRequest('workspace/executeCommand', params, token),
      );
      this.showExplanation(result);
      if (isExplainResult(result) && !result.error && editor.document.uri.scheme === 'file') {
        this.offerWebPage(result.name, editor.document.uri.fsPath);
      }
    } catch (err) {
      const msg = `Explain failed: ${(err as { message?: string } | undefined)?.message ?? String(err)}`;
      this.log(msg);
      void vscode.window.showErrorMessage(msg);
    }
  }

  /** Shows an explanation beside the editor, in one reused panel. */
  private showExplanation(result: unknown): void {
    if (!isExplainResult(result)) {
      const msg = `Explain: unexpected answer from the server: ${JSON.stringify(result)}`;
      this.log(msg);
      void vscode.window.showErrorMessage(msg);
      return;
    }
    void this.renderExplanation(result);
  }

  private async renderExplanation(r: ExplainResult): Promise<void> {
    const title = `Explain ${r.name}`;
    let html: string | undefined;
    try {
      html = await vscode.commands.executeCommand<string>('markdown.api.render', r.markdown);
    } catch {
      html = undefined; // the built-in markdown extension is off: show the text
    }
    if (typeof html !== 'string') {
      const doc = await vscode.workspace.openTextDocument({ language: 'markdown', content: r.markdown });
      await vscode.window.showTextDocument(doc, { viewColumn: vscode.ViewColumn.Beside, preserveFocus: true, preview: true });
      return;
    }
    if (!this.explainPanel) {
      this.explainPanel = vscode.window.createWebviewPanel('pcpDerived.explain', title, { viewColumn: vscode.ViewColumn.Beside, preserveFocus: true }, { enableScripts: false });
      this.explainPanel.onDidDispose(() => {
        this.explainPanel = undefined;
      });
    }
    this.explainPanel.title = title;
    this.explainPanel.webview.html = explainPage(title, html);
    this.explainPanel.reveal(vscode.ViewColumn.Beside, true);
  }

  /** Offers the explain page (every node over time) for the definition explained. */
  private offerWebPage(name: string, configPath: string): void {
    void vscode.window.showInformationMessage(`Explain ${name}: see every node's values over time?`, 'Open the Page').then((pick) => {
      if (pick) {
        void this.openWebPage(name, configPath);
      }
    });
  }

  /** Serves the explain page for a config (one server at a time) and shows a definition's page in a webview. */
  private async openWebPage(name: string, configPath: string): Promise<void> {
    if (!this.location) {
      return;
    }
    if (this.web?.config !== configPath) {
      this.stopWeb();
      const args = webArgs(this.serverSettings(), configPath);
      this.log(`explain page: ${this.location.path} ${args.join(' ')}`);
      const proc = spawn(this.location.path, args, { stdio: ['ignore', 'pipe', 'pipe'] });
      const url = new Promise<string>((resolve, reject) => {
        let out = '';
        const timer = setTimeout(() => {
          reject(new Error('no address within 20 s'));
        }, 20000);
        proc.stdout?.on('data', (d: Buffer) => {
          out += d.toString();
          const u = webURL(out);
          if (u) {
            clearTimeout(timer);
            resolve(u);
          }
        });
        proc.stderr?.on('data', (d: Buffer) => {
          this.log(`explain page: ${d.toString().trimEnd()}`);
        });
        proc.on('exit', (code) => {
          clearTimeout(timer);
          reject(new Error(`pcp-derive-lsp web exited with status ${code} (see the PCP Derived output)`));
          if (this.web?.proc === proc) {
            this.web = undefined;
          }
        });
      });
      this.web = { proc, config: configPath, url };
    }
    let base: string;
    try {
      base = await this.web.url;
    } catch (err) {
      this.stopWeb();
      void vscode.window.showErrorMessage(`Explain page: ${(err as Error).message}`);
      return;
    }
    const external = await vscode.env.asExternalUri(vscode.Uri.parse(webPageURL(base, name)));
    const title = `${name} over time`;
    if (!this.webPanel) {
      this.webPanel = vscode.window.createWebviewPanel('pcpDerived.explainPage', title, { viewColumn: vscode.ViewColumn.Beside, preserveFocus: true }, { enableScripts: true });
      this.webPanel.onDidDispose(() => {
        this.webPanel = undefined;
        this.stopWeb();
      });
    }
    this.webPanel.title = title;
    this.webPanel.webview.html = webFrame(title, external.toString(true));
    this.webPanel.reveal(vscode.ViewColumn.Beside, true);
  }

  private stopWeb(): void {
    this.web?.proc.kill();
    this.web = undefined;
  }

  async dispose(): Promise<void> {
    this.webPanel?.dispose();
    this.stopWeb();
    this.explainPanel?.dispose();
    clearTimeout(this.configTimer);
    await this.stop();
    for (const d of this.disposables) {
      d.dispose();
    }
    this.status.dispose();
    this.output.dispose();
  }
}

function sourceUpdateAll(value: string): Record<SourceKind, string> & { hostspec: string } {
  return { host: value, socket: value, archive: value, metadata: value, pmproxy: value, hostspec: value };
}

let extension: Extension | undefined;

export function activate(context: vscode.ExtensionContext): void {
  extension = new Extension(context);
  extension.activate();
}

export async function deactivate(): Promise<void> {
  const e = extension;
  extension = undefined;
  await e?.dispose();
}
