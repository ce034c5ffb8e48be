// pmrep, pcp-dstat and pcp-htop files in real VS Code (issue #38): a pmrep
// config under pmrep/ opens in the PCP Tool Config language, its unknown
// metric shows in the Problems panel at its column inside the formula,
// hover and completion work inside the formula and completion offers the
// spec words after "KEY.". Registered by vscode.e2e.js in its session
// (after its own checks), with its helpers.
'use strict';
/* global document -- the functions given to page.evaluate run in the page */
const assert = require('node:assert');
const fs = require('node:fs');
const path = require('node:path');

// Line 5's misspelt metric starts at column 20, inside the formula.
const PMREP = [
  '[sample]',
  'twice = sample.derived.pmrep',
  'twice.formula = sample.long.one * 2',
  'typo = sample.derived.pmreptypo',
  'typo.formula = 2 * sample.long.tne',
  '',
].join('\n');

/** Registers the checks; h holds vscode.e2e.js's helpers and its page. */
module.exports = function toolconfChecks(h) {
  const { check, waitFor, command, goTo, escape } = h;
  const file = path.join(h.workspace, 'pmrep', 'sample.conf');
  fs.mkdirSync(path.dirname(file), { recursive: true });
  fs.writeFileSync(file, PMREP);

  check('a pmrep file opens in the PCP Tool Config language', async () => {
    const page = h.page();
    await escape();
    await page.keyboard.down('Control');
    await page.keyboard.press('p');
    await page.keyboard.up('Control');
    await waitFor('Quick Open', () => !!document.querySelector('.quick-input-widget:not([style*="display: none"]) input'));
    await page.keyboard.type('pmrep/sample.conf');
    await waitFor('sample.conf in Quick Open', () => {
      const row = document.querySelector('.quick-input-widget .monaco-list-row.focused');
      return row && row.textContent.includes('sample.conf');
    }, { timeout: 30000 });
    await page.keyboard.press('Enter');
    await waitFor('the editor on pmrep/sample.conf', () => [...document.querySelectorAll('.editor-instance .view-line')]
      .some((l) => l.textContent.includes('typo.formula')));
    await waitFor('the language mode "PCP Tool Config (pmrep, pcp-dstat, pcp-htop)"', () => {
      const el = document.getElementById('status.editor.mode');
      return el && el.textContent.trim() === 'PCP Tool Config (pmrep, pcp-dstat, pcp-htop)';
    }, { timeout: 20000 });
  });

  check('the pmrep file\'s unknown metric is in the Problems panel at line 5, column 20', async () => {
    await command('View: Focus Problems');
    const row = await waitFor('the unknown-metric problem of sample.conf', () => {
      const all = [...document.querySelectorAll('.markers-panel .monaco-list-row')].map((r) => r.textContent);
      return all.find((t) => t.includes('unknown metric sample.long.tne')) || false;
    }, { timeout: 30000 });
    assert.match(row.replace(/\u00a0/g, ' '), /\[Ln 5, Col 20\]/, `the problem's position: ${row}`);
    assert.match(row, /unknown-metric/);
  });

  check('hover inside a pmrep formula shows the metric from the configured pmcd', async () => {
    await goTo(3, 24); // inside sample.long.one
    await command('Show or Focus Hover');
    const text = await waitFor('the hover', () => {
      const el = [...document.querySelectorAll('.monaco-hover')].find((e) => e.offsetParent !== null && e.textContent.includes('sample.long.one'));
      return el ? el.innerText : false;
    });
    assert.match(text, /pmcd at (127\.0\.0\.1|localhost):44321/, `the hover names the configured source:\n${text}`);
  });

  check('completion in a pmrep file: metric names in a formula, spec words after "twice."', async () => {
    const page = h.page();
    await goTo(6, 1);
    await page.keyboard.type('twice.u');
    const words = await waitFor('"unit" in the suggest widget after "twice.u"', () => {
      const r = [...document.querySelectorAll('.suggest-widget.visible .monaco-list-row .label-name')].map((e) => e.textContent);
      return r.includes('unit') ? r : false;
    });
    assert.ok(!words.includes('sample'), `after "twice." only spec words: ${words.join(' | ')}`);
    await escape();
    await page.keyboard.press('End');
    await page.keyboard.down('Shift');
    await page.keyboard.press('Home');
    await page.keyboard.up('Shift');
    await page.keyboard.type('twice.label = x');
    await page.keyboard.press('Enter');
    await page.keyboard.type('more = m.more');
    await page.keyboard.press('Enter');
    await page.keyboard.type('more.formula = sample.');
    await waitFor('"bin" in the suggest widget', () => {
      const r = [...document.querySelectorAll('.suggest-widget.visible .monaco-list-row .label-name')].map((e) => e.textContent);
      return r.includes('bin') ? r : false;
    });
    await page.keyboard.type('lon');
    await waitFor('"long" in the suggest widget after typing "lon"', () => {
      const r = [...document.querySelectorAll('.suggest-widget.visible .monaco-list-row .label-name')].map((e) => e.textContent);
      return r.includes('long') ? r : false;
    });
    await escape();
  });
};
