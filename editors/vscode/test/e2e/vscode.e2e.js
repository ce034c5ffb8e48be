// The extension end to end in real VS Code: code-server (VS Code in the
// browser) with the .vsix installed, driven through Debian's chromium by
// puppeteer-core, against the test pmcd with the sample PMDA. Everything is
// checked in the DOM, as a person would see it. Run by scripts/vscode-e2e.sh
// (make vscode-e2e), which sets:
//   CODE_SERVER  the code-server launcher (run with this Node, 24)
//   CHROMIUM     Debian's chromium
//   VSIX         the .vsix to install
//   PCP_DERIVE_LSP_BIN  the server the settings point at
//   E2E_OUT      where screenshots (and failure dumps) go
//   NODE_PATH    where puppeteer-core is
// Every wait has a deadline; a failed check saves a screenshot and the
// workbench's text and HTML as E2E_OUT/failure-<check>.*.
'use strict';
/* global document -- the functions given to page.evaluate run in the page */
const { test, before, after } = require('node:test');
const assert = require('node:assert');
const cp = require('node:child_process');
const fs = require('node:fs');
const net = require('node:net');
const os = require('node:os');
const path = require('node:path');
const puppeteer = require('puppeteer-core');

const env = (name) => {
  const v = process.env[name];
  if (!v) {
    throw new Error(`${name} is not set: run this test through scripts/vscode-e2e.sh (make vscode-e2e)`);
  }
  return v;
};
const CODE_SERVER = env('CODE_SERVER');
const CHROMIUM = env('CHROMIUM');
const VSIX = env('VSIX');
const SERVER_BIN = env('PCP_DERIVE_LSP_BIN');
const OUT = env('E2E_OUT');

// The metadata source the settings name: spelt with the port so that the
// server's answer ("pmcd at 127.0.0.1:44321") cannot come from its own
// default (the local pmcd's unix socket).
const PMCD = '127.0.0.1:44321';

// The workspace: one error (a misspelt metric) on line 3, column 27, a
// line the formatter changes (line 4), an empty line 5 the completion
// check types in, and a metric using sample.derived.twice (line 6), for
// its highlights and call hierarchy. The misspelt metric ends its line:
// followed by a space, its range (and so the quick fix) takes the space too
// (a parser bug reported separately).
const CONFIG = [
  '# Derived metrics over the sample PMDA',
  'sample.derived.twice = sample.long.one * 2',
  'sample.derived.typo = 2 * sample.long.onee',
  'sample.derived.sum =   sample.long.ten+sample.long.hundred',
  '',
  'sample.derived.quad = sample.derived.twice * 2',
  '',
].join('\n');

const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'pcp-derive-vscode-e2e-'));
const userData = path.join(tmp, 'user-data');
const extensions = path.join(tmp, 'extensions');
const workspace = path.join(tmp, 'workspace');
const configFile = path.join(workspace, 'sample.derived');
const settingsFile = path.join(userData, 'User', 'settings.json');

// code-server, like VS Code with a remote, has two settings files: the
// user's and the machine's where the extension host runs ("Remote" in the
// Settings editor). A path on that machine belongs in the machine's: from
// the user's, VS Code passes it to the extension at start but not after a
// settings change, and the extension would then restart the bundled server.
const machineSettingsFile = path.join(userData, 'Machine', 'settings.json');
const machineSettings = {
  'pcpDerived.server.path': SERVER_BIN,
};
const settings = {
  'pcpDerived.source.host': PMCD,
  'pcpDerived.preview.interval': 2,
  'workbench.startupEditor': 'none',
  'workbench.tips.enabled': false,
  'workbench.enableExperiments': false,
  'security.workspace.trust.enabled': false,
  'telemetry.telemetryLevel': 'off',
  'extensions.autoCheckUpdates': false,
  'extensions.autoUpdate': false,
  'extensions.ignoreRecommendations': true,
  'update.mode': 'none',
  'editor.minimap.enabled': false,
  'editor.inlayHints.enabled': 'on',
  'editor.hover.delay': 100,
  'editor.quickSuggestionsDelay': 10,
  'files.autoSave': 'off',
  'chat.disableAIFeatures': true,
  'window.commandCenter': false,
  'workbench.secondarySideBar.defaultVisibility': 'hidden',
  'remote.autoForwardPorts': false,
};

let codeServer;
let codeServerLog = '';
let browser;
let page;

function log(msg) {
  process.stderr.write(`vscode-e2e: ${msg}\n`);
}

function freePort() {
  return new Promise((resolve, reject) => {
    const srv = net.createServer();
    srv.on('error', reject);
    srv.listen(0, '127.0.0.1', () => {
      const { port } = srv.address();
      srv.close(() => resolve(port));
    });
  });
}

function runCodeServer(args, opts = {}) {
  // The launcher is a node script: run it with the Node that ran us (24).
  return cp.spawn(process.execPath, [CODE_SERVER, '--user-data-dir', userData, '--extensions-dir', extensions, ...args], {
    stdio: ['ignore', 'pipe', 'pipe'],
    env: { ...process.env, PATH: `${path.dirname(process.execPath)}:${process.env.PATH}` },
    ...opts,
  });
}

/** Polls fn in the page until it returns something truthy; fails with what and the last value at the deadline. */
async function waitFor(what, fn, { timeout = 15000, arg } = {}) {
  const deadline = Date.now() + timeout;
  let last;
  for (;;) {
    try {
      last = await page.evaluate(fn, arg);
      if (last) {
        return last;
      }
    } catch (err) {
      last = `error: ${err.message}`;
    }
    if (Date.now() > deadline) {
      throw new Error(`timed out after ${timeout} ms waiting for ${what}; last seen: ${JSON.stringify(last)}`);
    }
    await new Promise((r) => setTimeout(r, 100));
  }
}

/** Text with VS Code's rendering spaces made plain. */
const plain = (s) => s.replace(/[\u00a0\u200b]/g, (c) => (c === '\u00a0' ? ' ' : ''));

/** A check: on failure, keeps a screenshot and the workbench's text and HTML. */
function check(name, fn) {
  test(name, async () => {
    try {
      await fn();
    } catch (err) {
      const base = path.join(OUT, `failure-${name.replace(/[^a-z0-9]+/gi, '-').toLowerCase()}`);
      try {
        await page.screenshot({ path: `${base}.png` });
        fs.writeFileSync(`${base}.txt`, await page.evaluate(() => document.body.innerText));
        fs.writeFileSync(`${base}.html`, await page.evaluate(() => document.body.outerHTML));
        err.message += `\n(screenshot, text and HTML of the page: ${base}.{png,txt,html})`;
      } catch (dumpErr) {
        err.message += `\n(no screenshot: ${dumpErr.message})`;
      }
      throw err;
    }
  });
}

async function screenshot(name) {
  await page.screenshot({ path: path.join(OUT, `vscode-${name}.png`) });
}

async function escape() {
  await page.keyboard.press('Escape');
  await page.keyboard.press('Escape');
}

/** Runs a command from the command palette by its title. */
async function command(title) {
  await escape();
  await page.keyboard.press('F1');
  await waitFor('the command palette', () => !!document.querySelector('.quick-input-widget:not([style*="display: none"]) input'));
  await page.keyboard.type(title);
  await waitFor(`"${title}" in the command palette`, (t) => {
    const row = document.querySelector('.quick-input-widget .monaco-list-row.focused');
    return row && row.getAttribute('aria-label')?.startsWith(t);
  }, { arg: title });
  await page.keyboard.press('Enter');
}

/** Puts the cursor at 1-based line:col with Go to Line. */
async function goTo(line, col) {
  await escape();
  await page.keyboard.down('Control');
  await page.keyboard.press('g');
  await page.keyboard.up('Control');
  await waitFor('the Go to Line box', () => !!document.querySelector('.quick-input-widget:not([style*="display: none"]) input'));
  await page.keyboard.type(`${line}:${col}`);
  await page.keyboard.press('Enter');
  await waitFor(`the cursor at Ln ${line}, Col ${col}`, (want) => {
    const el = document.getElementById('status.editor.selection');
    return el && el.textContent.includes(want) ? el.textContent : false;
  }, { arg: `Ln ${line}, Col ${col}` });
}

async function save() {
  await page.keyboard.down('Control');
  await page.keyboard.press('s');
  await page.keyboard.up('Control');
}

/** Waits for the file on disk to satisfy pred; returns its text. */
async function waitForFile(what, pred, timeout = 15000) {
  const deadline = Date.now() + timeout;
  let text;
  for (;;) {
    text = fs.readFileSync(configFile, 'utf8');
    if (pred(text)) {
      return text;
    }
    if (Date.now() > deadline) {
      throw new Error(`timed out after ${timeout} ms waiting for ${what} in ${configFile}; it holds:\n${text}`);
    }
    await new Promise((r) => setTimeout(r, 100));
  }
}

/** The PCP Derived output channel so far. */
function outputLog() {
  const logs = path.join(userData, 'logs');
  const found = fs.readdirSync(logs, { recursive: true }).filter((f) => String(f).endsWith('PCP Derived.log'));
  return found.map((f) => fs.readFileSync(path.join(logs, String(f)), 'utf8')).join('\n');
}

before(async () => {
  fs.mkdirSync(OUT, { recursive: true });
  fs.mkdirSync(workspace, { recursive: true });
  fs.mkdirSync(path.dirname(settingsFile), { recursive: true });
  fs.writeFileSync(configFile, CONFIG);
  fs.writeFileSync(settingsFile, JSON.stringify(settings, null, 2));
  fs.mkdirSync(path.dirname(machineSettingsFile), { recursive: true });
  fs.writeFileSync(machineSettingsFile, JSON.stringify(machineSettings, null, 2));

  // 1. Install the .vsix as a user would.
  const install = cp.spawnSync(process.execPath, [CODE_SERVER, '--user-data-dir', userData, '--extensions-dir', extensions, '--install-extension', VSIX], {
    encoding: 'utf8',
    timeout: 120000,
    env: { ...process.env, PATH: `${path.dirname(process.execPath)}:${process.env.PATH}` },
  });
  assert.strictEqual(install.status, 0, `code-server --install-extension ${VSIX} failed:\n${install.stdout}${install.stderr}`);
  assert.match(install.stdout, /successfully installed/, install.stdout + install.stderr);
  const installed = fs.readdirSync(extensions).filter((d) => d.startsWith('pcp-derive-lsp.pcp-derived-'));
  assert.strictEqual(installed.length, 1, `${extensions} holds ${fs.readdirSync(extensions).join(', ')}`);
  assert.ok(fs.existsSync(path.join(extensions, installed[0], 'server', 'linux-x64', 'pcp-derive-lsp')), 'the installed extension carries its server');
  log(`installed ${path.basename(VSIX)} into ${extensions}`);

  // 2. code-server on a free loopback port, no auth.
  const port = await freePort();
  codeServer = runCodeServer([
    '--auth', 'none', '--bind-addr', `127.0.0.1:${port}`, '--disable-telemetry', '--disable-update-check',
    '--disable-workspace-trust', '--disable-getting-started-override', '--ignore-last-opened', workspace,
  ]);
  const ready = new Promise((resolve, reject) => {
    const onData = (d) => {
      codeServerLog += d;
      if (/HTTP server listening on/.test(codeServerLog)) {
        resolve();
      }
    };
    codeServer.stdout.on('data', onData);
    codeServer.stderr.on('data', onData);
    codeServer.on('exit', (code) => reject(new Error(`code-server exited (${code}):\n${codeServerLog}`)));
  });
  let timer;
  await Promise.race([ready, new Promise((_, reject) => {
    timer = setTimeout(() => reject(new Error(`code-server did not listen within 60 s:\n${codeServerLog}`)), 60000);
  })]).finally(() => clearTimeout(timer));
  log(`code-server listening on 127.0.0.1:${port}`);

  // 3. Chromium, headless. --no-sandbox: we may run as root.
  browser = await puppeteer.launch({
    executablePath: CHROMIUM,
    headless: true,
    args: ['--no-sandbox', '--disable-gpu', '--disable-dev-shm-usage', '--window-size=1280,800'],
    defaultViewport: { width: 1280, height: 800 },
  });
  page = await browser.newPage();
  await page.goto(`http://127.0.0.1:${port}/?folder=${encodeURIComponent(workspace)}`, { waitUntil: 'domcontentloaded', timeout: 60000 });
  await waitFor('the workbench', () => !!document.querySelector('.monaco-workbench .part.statusbar'), { timeout: 60000 });
  await waitFor('the explorer to list sample.derived', () => [...document.querySelectorAll('.explorer-folders-view .monaco-list-row')]
    .some((r) => r.textContent.includes('sample.derived')), { timeout: 30000 });

  // 4. Open the config with Quick Open.
  await page.keyboard.down('Control');
  await page.keyboard.press('p');
  await page.keyboard.up('Control');
  await waitFor('Quick Open', () => !!document.querySelector('.quick-input-widget:not([style*="display: none"]) input'));
  await page.keyboard.type('sample.derived');
  await waitFor('sample.derived in Quick Open', () => {
    const row = document.querySelector('.quick-input-widget .monaco-list-row.focused');
    return row && row.textContent.includes('sample.derived');
  });
  await page.keyboard.press('Enter');
  await waitFor('the editor on sample.derived', () => [...document.querySelectorAll('.editor-instance .view-line')]
    .some((l) => l.textContent.includes('sample.derived.typo')));
});

after(async () => {
  if (browser) {
    await browser.close().catch(() => {});
  }
  if (codeServer && codeServer.exitCode === null) {
    codeServer.kill('SIGTERM');
  }
  fs.writeFileSync(path.join(OUT, 'code-server.log'), codeServerLog);
  // VS Code's logs, the PCP Derived output channel among them.
  fs.cpSync(path.join(userData, 'logs'), path.join(OUT, 'logs'), { recursive: true });
  fs.rmSync(tmp, { recursive: true, force: true });
});

check('the language mode is PCP Derived Metrics', async () => {
  await waitFor('the language mode "PCP Derived Metrics" in the status bar', () => {
    const el = document.getElementById('status.editor.mode');
    return el && el.textContent.trim() === 'PCP Derived Metrics';
  }, { timeout: 20000 });
});

check('the settings reach the server: it uses the configured pmcd', async () => {
  // The extension's status bar item says what the server reports (pcp/status).
  const tip = await waitFor('the server to report pmcd at 127.0.0.1:44321', () => {
    const el = [...document.querySelectorAll('.statusbar-item')].find((e) => /PCP:/.test(e.textContent));
    return el && /127\.0\.0\.1:44321/.test(el.textContent) ? el.textContent : false;
  }, { timeout: 30000 });
  assert.match(tip, /PCP: .*127\.0\.0\.1:44321/);
});

check('the Problems panel shows the unknown metric on line 3, column 27', async () => {
  await command('View: Focus Problems');
  const row = await waitFor('the unknown-metric problem', () => {
    const rows = [...document.querySelectorAll('.markers-panel .monaco-list-row')].map((r) => r.textContent);
    return rows.find((t) => t.includes('unknown metric sample.long.onee')) || false;
  }, { timeout: 30000 });
  assert.match(plain(row), /\[Ln 3, Col 27\]/, `the problem's position: ${row}`);
  assert.match(row, /did you mean sample\.long\.one/);
  assert.match(row, /unknown-metric/);
  await screenshot('problems');
});

check('hover on a metric shows its metadata from the configured pmcd', async () => {
  await goTo(2, 30); // inside sample.long.one
  await command('Show or Focus Hover');
  const text = await waitFor('the hover', () => {
    const h = [...document.querySelectorAll('.monaco-hover')].find((e) => e.offsetParent !== null && e.textContent.includes('sample.long.one'));
    return h ? h.innerText : false;
  });
  assert.match(text, /sample\.long\.one/);
  assert.match(text, /pmcd at 127\.0\.0\.1:44321/, `the hover names the configured source:\n${text}`);
  await screenshot('hover');
});

check('completion after typing "sample." offers the sample PMDA\'s names', async () => {
  await goTo(5, 1);
  await page.keyboard.type('sample.derived.new = sample.');
  const first = await waitFor('the suggest widget with the sample PMDA\'s names', () => {
    const rows = [...document.querySelectorAll('.suggest-widget.visible .monaco-list-row .label-name')].map((r) => r.textContent);
    return rows.includes('bin') ? rows : false;
  });
  assert.ok(first.includes('colour'), `completion offers sample.colour: ${first.join(' | ')}`);
  await screenshot('completion');
  await page.keyboard.type('lon');
  await waitFor('"long" in the suggest widget after typing "lon"', () => {
    const rows = [...document.querySelectorAll('.suggest-widget.visible .monaco-list-row .label-name')].map((r) => r.textContent);
    return rows.includes('long') ? rows : false;
  });
  // Take the line out again.
  await escape();
  await page.keyboard.press('End');
  await page.keyboard.down('Shift');
  await page.keyboard.press('Home');
  await page.keyboard.up('Shift');
  await page.keyboard.press('Backspace');
  await waitFor('line 5 to be empty again', () => ![...document.querySelectorAll('.editor-instance .view-line')]
    .some((l) => l.textContent.includes('sample.derived.new')));
});

check('document highlight marks the definition as written and the use as read', async () => {
  // On sample.derived.twice in line 6: the server's highlights are its
  // definition on line 2 (Write: wordHighlightStrong) and this use (Read:
  // wordHighlight). VS Code's own word matching, without the server,
  // marks occurrences as text (wordHighlightText), never as written.
  await goTo(6, 34);
  const kinds = await waitFor('a written and a read highlight', () => {
    const marks = [...document.querySelectorAll('.editor-instance .view-overlays [class*="wordHighlight"]')].map((e) => e.className);
    const strong = marks.filter((c) => /\bwordHighlightStrong\b/.test(c)).length;
    const read = marks.filter((c) => /\bwordHighlight\b/.test(c)).length;
    return strong >= 1 && read >= 1 ? { strong, read, marks } : false;
  }, { timeout: 20000 });
  assert.ok(!kinds.marks.some((c) => /wordHighlightText/.test(c)), `textual highlights, not the server's: ${kinds.marks.join(' | ')}`);
});

/** Where the references view (call hierarchy) lists its rows: the side bars. */
const CALL_ROWS = '.sidebar .monaco-list-row, .auxiliarybar .monaco-list-row';

check('call hierarchy shows who uses a metric and what it uses', async () => {
  // From sample.derived.twice's definition (line 2): incoming from
  // sample.derived.quad (the references view starts with incoming
  // calls), then outgoing to sample.long.one (the same place, the other
  // direction: the command takes the view's last input).
  await goTo(2, 18);
  await command('Calls: Show Call Hierarchy');
  const incoming = await waitFor('sample.derived.quad among the incoming calls', (sel) => {
    const rows = [...document.querySelectorAll(sel)].map((r) => r.textContent);
    return rows.some((t) => t.includes('sample.derived.quad')) ? rows : false;
  }, { timeout: 30000, arg: CALL_ROWS });
  assert.ok(incoming.some((t) => t.includes('sample.derived.twice')), `the hierarchy's root: ${incoming.join(' | ')}`);
  await command('Calls: Show Outgoing Calls');
  await waitFor('sample.long.one among the outgoing calls', (sel) => {
    const rows = [...document.querySelectorAll(sel)].map((r) => r.textContent);
    return rows.some((t) => t.includes('sample.long.one')) && !rows.some((t) => t.includes('sample.derived.quad')) ? rows : false;
  }, { timeout: 30000, arg: CALL_ROWS });
  await screenshot('call-hierarchy');
});

check('inlay hints show the inferred metadata and live values', async () => {
  const hints = await waitFor('the type hint and the live value hint', () => {
    const texts = [...document.querySelectorAll('.editor-instance .view-lines span[class*="dyn-rule"]')].map((h) => h.textContent.replace(/\u00a0/g, ' ').trim());
    return texts.includes('u32 instant none') && texts.includes('= 2') ? texts : false;
  }, { timeout: 20000 });
  assert.ok(hints.includes('u32 instant none'), hints.join(' | '));
  await screenshot('inlay-hints');
});

check('the preview code lens shows the live value', async () => {
  // sample.derived.twice = sample.long.one * 2, and sample.long.one is 1.
  const lenses = await waitFor('a code lens "= 2"', () => {
    const ls = [...document.querySelectorAll('.editor-instance .codelens-decoration')].map((e) => e.textContent.trim());
    return ls.includes('= 2') ? ls : false;
  }, { timeout: 20000 });
  assert.ok(lenses.length >= 2, `code lenses: ${lenses.join(' | ')}`);
});

check('the quick fix replaces the misspelt metric', async () => {
  // The menu is asked for up to three times: on a loaded machine the
  // workbench once let the command go by with no menu (the diagnostic
  // shown, the cursor on it) and waited 15 s for nothing; asked again,
  // it opens in about a second.
  const menuRows = () => {
    const rows = [...document.querySelectorAll('.action-widget .monaco-list-row')].map((r) => r.textContent);
    return rows.length > 0 ? rows : false;
  };
  let items;
  for (let attempt = 1; !items; attempt++) {
    await goTo(3, 30);
    await command('Quick Fix...');
    try {
      items = await waitFor('the quick fix menu', menuRows, { timeout: attempt < 3 ? 6000 : 15000 });
    } catch (err) {
      if (attempt >= 3) {
        throw err;
      }
    }
  }
  assert.ok(items.some((t) => /Change to sample\.long\.one$/.test(t)), `no "Change to sample.long.one" among: ${items.join(' | ')}`);
  const rows = await page.$$('.action-widget .monaco-list-row');
  for (const row of rows) {
    if (/Change to sample\.long\.one$/.test(await row.evaluate((r) => r.textContent))) {
      await row.click();
      break;
    }
  }
  await waitFor('the fixed line 3 in the editor', () => [...document.querySelectorAll('.editor-instance .view-line')]
    .some((l) => l.textContent.replace(/\u00a0/g, ' ').startsWith('sample.derived.typo = 2 * sample.long.one') && !l.textContent.includes('onee')));
  await save();
  await waitForFile('the quick fix', (t) => t.split('\n')[2] === 'sample.derived.typo = 2 * sample.long.one');
  await waitFor('the problem to go', () => ![...document.querySelectorAll('.markers-panel .monaco-list-row')]
    .some((r) => r.textContent.includes('sample.long.onee')));
});

check('Format Document normalises the spacing', async () => {
  await command('Format Document');
  await waitFor('the formatted line 4 in the editor', () => [...document.querySelectorAll('.editor-instance .view-line')]
    .some((l) => l.textContent.replace(/\u00a0/g, ' ').startsWith('sample.derived.sum = sample.long.ten + sample.long.hundred')));
  await save();
  await waitForFile('the formatted line 4', (t) => t.split('\n')[3] === 'sample.derived.sum = sample.long.ten + sample.long.hundred');
});

check('a settings change reaches the running server', async () => {
  // The extension's own command writes pcpDerived.source.host into the
  // workspace settings; the server must then use the new host.
  await command('PCP Derived: Pick Metric Metadata Source');
  await waitFor('the source picker', () => [...document.querySelectorAll('.quick-input-widget .monaco-list-row')]
    .some((r) => /pmcd on a host/.test(r.textContent)));
  await page.keyboard.type('pmcd on a host');
  await waitFor('"pmcd on a host" focused', () => {
    const row = document.querySelector('.quick-input-widget .monaco-list-row.focused');
    return row && /pmcd on a host/.test(row.textContent);
  });
  await page.keyboard.press('Enter');
  await waitFor('the host input box', () => {
    const t = document.querySelector('.quick-input-widget .quick-input-title');
    return t && /pmcd host/.test(t.textContent);
  });
  await page.keyboard.down('Control');
  await page.keyboard.press('a');
  await page.keyboard.up('Control');
  await page.keyboard.type('localhost:44321');
  await page.keyboard.press('Enter');
  const written = path.join(workspace, '.vscode', 'settings.json');
  await waitFor('the status bar item to show the new host', () => {
    const el = [...document.querySelectorAll('.statusbar-item')].find((e) => /PCP:/.test(e.textContent));
    return el && /localhost:44321/.test(el.textContent);
  }, { timeout: 20000 });
  assert.match(fs.readFileSync(written, 'utf8'), /"pcpDerived\.source\.host": "localhost:44321"/);
  // The hover names the new source: the server got the setting.
  await goTo(2, 30);
  await command('Show or Focus Hover');
  await waitFor('the hover to name pmcd at localhost:44321', () => {
    const h = [...document.querySelectorAll('.monaco-hover')].find((e) => e.offsetParent !== null && e.textContent.includes('sample.long.one'));
    return h && /pmcd at localhost:44321/.test(h.innerText) ? h.innerText : false;
  }, { timeout: 20000 });
  // Every start of the server, the first and the one after the change, used the configured binary.
  const starts = outputLog().split('\n').filter((l) => /\] starting \//.test(l));
  assert.ok(starts.length >= 1 && starts.every((l) => l.includes(`starting ${SERVER_BIN} (setting)`)), `server starts:\n${starts.join('\n')}`);
});

// pmrep, pcp-dstat and pcp-htop files (issue #38), in the same session.
require('./toolconf.e2e.js')({ check, waitFor, command, goTo, escape, workspace, page: () => page });
