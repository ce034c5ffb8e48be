// pmrep, pcp-dstat and pcp-htop files in real VS Code (issue #38): a pmrep
// config under pmrep/ and a pcp-htop meter under htop/meters/ each open in
// the PCP Tool Config language, their unknown metric shows in the Problems
// panel at its column inside the expression's value, hover and completion
// work inside the expression and completion offers the tool's spec words
// after "KEY.". Registered by vscode.e2e.js in its session (after its own
// checks), with its helpers.
'use strict';
/* global document -- the functions given to page.evaluate run in the page */
const assert = require('node:assert');
const fs = require('node:fs');
const path = require('node:path');

/**
 * The tool files, each with where its checks look: the misspelt metric of
 * line 5 (problem: its message and 1-based column, inside the value), a
 * position inside sample.long.one on line 3 (hover), the spec word that
 * completes after "twice." plus a line using it (spec), and the key whose
 * value is an expression (exprKey).
 */
const FILES = [{
  kind: 'pmrep',
  rel: 'pmrep/sample.conf',
  text: [
    '[sample]',
    'twice = sample.derived.pmrep',
    'twice.formula = sample.long.one * 2',
    'typo = sample.derived.pmreptypo',
    'typo.formula = 2 * sample.long.tne',
    '',
  ].join('\n'),
  problem: { metric: 'sample.long.tne', col: 20 },
  hover: 24,
  spec: { typed: 'twice.u', word: 'unit', line: 'twice.label = x' },
  exprKey: 'formula',
}, {
  kind: 'pcp-htop meter',
  rel: 'htop/meters/e2emeter',
  text: [
    '[sample]',
    'caption = Sample',
    'twice.metric = sample.long.one * 2',
    'twice.label = twice',
    'typo.metric = 2 * sample.long.tem',
    '',
  ].join('\n'),
  problem: { metric: 'sample.long.tem', col: 19 },
  hover: 20,
  spec: { typed: 'twice.s', word: 'suffix', line: 'twice.suffix = x' },
  exprKey: 'metric',
}];

/** Registers the checks; h holds vscode.e2e.js's helpers and its page. */
module.exports = function toolconfChecks(h) {
  for (const f of FILES) {
    const file = path.join(h.workspace, f.rel);
    fs.mkdirSync(path.dirname(file), { recursive: true });
    fs.writeFileSync(file, f.text);
  }
  for (const f of FILES) fileChecks(h, f);
};

/** Registers the four checks of one tool file f. */
function fileChecks(h, f) {
  const { check, waitFor, command, goTo, escape } = h;
  const name = path.basename(f.rel);
  const suggestions = async (what, word) => waitFor(`"${word}" in the suggest widget ${what}`, (w) => {
    const r = [...document.querySelectorAll('.suggest-widget.visible .monaco-list-row .label-name')].map((e) => e.textContent);
    return r.includes(w) ? r : false;
  }, { arg: word });

  check(`a ${f.kind} file opens in the PCP Tool Config language`, async () => {
    const page = h.page();
    await escape();
    await page.keyboard.down('Control');
    await page.keyboard.press('p');
    await page.keyboard.up('Control');
    await waitFor('Quick Open', () => !!document.querySelector('.quick-input-widget:not([style*="display: none"]) input'));
    await page.keyboard.type(f.rel);
    // The focused row must be this file, not a recently opened one.
    await waitFor(`${f.rel} in Quick Open`, ([n, dir]) => {
      const row = document.querySelector('.quick-input-widget .monaco-list-row.focused');
      return row && row.textContent.includes(n) && row.textContent.includes(dir);
    }, { arg: [name, path.basename(path.dirname(f.rel))], timeout: 30000 });
    await page.keyboard.press('Enter');
    await waitFor(`the editor on ${f.rel}`, (k) => [...document.querySelectorAll('.editor-instance .view-line')]
      .some((l) => l.textContent.includes(k)), { arg: `typo.${f.exprKey}` });
    await waitFor('the language mode "PCP Tool Config (pmrep, pcp-dstat, pcp-htop)"', () => {
      const el = document.getElementById('status.editor.mode');
      return el && el.textContent.trim() === 'PCP Tool Config (pmrep, pcp-dstat, pcp-htop)';
    }, { timeout: 20000 });
  });

  check(`the ${f.kind} file's unknown metric is in the Problems panel at line 5, column ${f.problem.col}`, async () => {
    await command('View: Focus Problems');
    const row = await waitFor(`the unknown-metric problem of ${name}`, (m) => {
      const all = [...document.querySelectorAll('.markers-panel .monaco-list-row')].map((r) => r.textContent);
      return all.find((t) => t.includes(`unknown metric ${m}`)) || false;
    }, { arg: f.problem.metric, timeout: 30000 });
    assert.match(row.replace(/\u00a0/g, ' '), new RegExp(`\\[Ln 5, Col ${f.problem.col}\\]`), `the problem's position: ${row}`);
    assert.match(row, /unknown-metric/);
  });

  check(`hover inside a ${f.kind} expression shows the metric from the configured pmcd`, async () => {
    await goTo(3, f.hover); // inside sample.long.one
    await command('Show or Focus Hover');
    const text = await waitFor('the hover', () => {
      const el = [...document.querySelectorAll('.monaco-hover')].find((e) => e.offsetParent !== null && e.textContent.includes('sample.long.one'));
      return el ? el.innerText : false;
    });
    assert.match(text, /pmcd at (127\.0\.0\.1|localhost):44321/, `the hover names the configured source:\n${text}`);
  });

  check(`completion in a ${f.kind} file: metric names in an expression, spec words after "twice."`, async () => {
    const page = h.page();
    await goTo(6, 1);
    await page.keyboard.type(f.spec.typed);
    const words = await suggestions(`after "${f.spec.typed}"`, f.spec.word);
    assert.ok(!words.includes('sample'), `after "twice." only spec words: ${words.join(' | ')}`);
    await escape();
    await page.keyboard.press('End');
    await page.keyboard.down('Shift');
    await page.keyboard.press('Home');
    await page.keyboard.up('Shift');
    await page.keyboard.type(f.spec.line);
    await page.keyboard.press('Enter');
    await page.keyboard.type(`more.${f.exprKey} = sample.`);
    await suggestions('after "sample."', 'bin');
    await page.keyboard.type('lon');
    await suggestions('after typing "lon"', 'long');
    await escape();
  });
}
