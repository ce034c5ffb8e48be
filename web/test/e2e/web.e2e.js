// The explain page (pcp-derive-lsp web) in a real headless Chromium, run by
// scripts/web-e2e.sh (make web-e2e, part of make test). Environment:
//   PCP_DERIVE_LSP_BIN  the binary
//   CHROMIUM            Debian's chromium, driven by puppeteer-core
//   ARCHIVE, CONFIG     an archive of the test pmcd and a config over it
//   E2E_OUT             where screenshots go
// Every request the page makes off its own server is refused and counted:
// the page must work with no network. Every wait has a deadline.
'use strict';

const { test, before, after } = require('node:test');
const assert = require('node:assert');
const cp = require('node:child_process');
const path = require('node:path');
const puppeteer = require('puppeteer-core');

const BIN = process.env.PCP_DERIVE_LSP_BIN;
const OUT = process.env.E2E_OUT;
const ARCHIVE = path.relative(OUT, process.env.ARCHIVE);
const CONFIG = path.relative(OUT, process.env.CONFIG);
const servers = [];
let browser;
let offsite = [];

/** Starts `web` with args; resolves to the URL it prints. */
function startWeb(args) {
  // Run from E2E_OUT with relative paths: the screenshots show no
  // machine's directories.
  const child = cp.spawn(BIN, ['web', ...args], { cwd: OUT, stdio: ['ignore', 'pipe', 'pipe'] });
  servers.push(child);
  let out = '';
  let err = '';
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`web ${args.join(' ')}: no URL within 20 s\n${out}${err}`)), 20000);
    child.stdout.on('data', (d) => {
      out += d;
      const m = out.match(/serving (http:\/\/127\.0\.0\.1:\d+)\//);
      if (m) {
        clearTimeout(timer);
        resolve(m[1]);
      }
    });
    child.stderr.on('data', (d) => { err += d; });
    child.on('exit', (code) => reject(new Error(`web ${args.join(' ')} exited ${code}\n${out}${err}`)));
  });
}

/** A page whose requests off base are refused and recorded. */
async function openPage(base) {
  const page = await browser.newPage();
  await page.setViewport({ width: 1280, height: 900 });
  await page.setRequestInterception(true);
  page.on('request', (req) => {
    if (req.url().startsWith(base + '/')) req.continue();
    else {
      offsite.push(req.url());
      req.abort();
    }
  });
  page.on('pageerror', (e) => offsite.push('page error: ' + e.message));
  return page;
}

async function waitLoads(page, n, what) {
  await page.waitForFunction((k) => Number(document.body.dataset.loads || 0) >= k, { timeout: 20000 }, n)
    .catch((e) => { throw new Error(`${what}: ${e.message}`); });
}

/** What the test reads of the page: each node's row and plot. */
function readTree(page) {
  return page.evaluate(() => ({
    verdict: document.getElementById('verdict').dataset.verdict,
    stamp: document.getElementById('stamp').textContent,
    sample: Number(document.getElementById('stamp').dataset.sample),
    max: Number(document.getElementById('slider').max),
    nodes: [...document.querySelectorAll('.node')].map((n) => ({
      text: n.querySelector('code.text').textContent,
      origin: n.classList.contains('origin'),
      reason: n.querySelector('.reason').textContent,
      values: Number(n.dataset.values),
      points: Number(n.querySelector('.plot').dataset.points),
      emptyStretches: Number(n.querySelector('.plot').dataset.emptyStretches || 0),
      canvases: n.querySelectorAll('.plot canvas').length,
    })),
  }));
}

async function api(base, query) {
  const res = await fetch(`${base}/api/explain?${query}`);
  assert.strictEqual(res.status, 200, `${query}: status ${res.status}`);
  return res.json();
}

async function setSlider(page, value, loads) {
  await page.evaluate((v) => {
    const s = document.getElementById('slider');
    s.value = v;
    s.dispatchEvent(new Event('input'));
  }, value);
  await waitLoads(page, loads, `the slider at ${value}`);
}

before(async () => {
  browser = await puppeteer.launch({
    executablePath: process.env.CHROMIUM,
    headless: true,
    args: ['--no-sandbox', '--disable-gpu', '--disable-dev-shm-usage'],
  });
});

after(async () => {
  if (browser) await browser.close();
  for (const s of servers) s.kill();
});

test('an archive: a plot per node with a point per record, the empty node marked, the slider', async () => {
  const base = await startWeb(['--archive', ARCHIVE, CONFIG]);
  const page = await openPage(base);
  await page.goto(`${base}/?metric=my.empty`, { waitUntil: 'load' });
  await waitLoads(page, 1, 'my.empty');
  const want = await api(base, 'metric=my.empty&series=0');
  const tree = await readTree(page);
  assert.strictEqual(tree.nodes.length, 4, 'four nodes');
  for (const n of tree.nodes) {
    assert.strictEqual(n.canvases, 1, `${n.text}: one plot`);
    assert.strictEqual(n.points, want.window.samples, `${n.text}: a point per record`);
  }
  assert.ok(want.window.samples >= 20, `${want.window.samples} records`);
  assert.strictEqual(tree.verdict, 'no values');
  const origins = tree.nodes.filter((n) => n.origin);
  assert.deepStrictEqual(origins.map((n) => n.text), ['matchinst(/nomatch/, sample.bin)']);
  assert.match(origins[0].reason, /no instance of `sample.bin` matches `\/nomatch\/`/);
  assert.ok(origins[0].emptyStretches >= 1, 'its plot marks the empty stretch');
  await page.screenshot({ path: path.join(OUT, 'web-archive.png'), fullPage: true });

  // The slider: the first record has no rate, the last has one.
  await page.goto(`${base}/?metric=my.rate`, { waitUntil: 'load' });
  await waitLoads(page, 1, 'my.rate');
  const last = await readTree(page);
  assert.strictEqual(last.sample, last.max);
  assert.strictEqual(last.verdict, 'values');
  assert.strictEqual(last.nodes[0].values, 1);
  await setSlider(page, 0, 2);
  const first = await readTree(page);
  assert.strictEqual(first.sample, 0);
  assert.notStrictEqual(first.stamp, last.stamp, 'the slider changed the sample shown');
  assert.strictEqual(first.verdict, 'no values');
  assert.match(first.nodes[0].reason, /one sample/);
  assert.ok(first.nodes[0].origin, 'the rate node is marked');
  await page.screenshot({ path: path.join(OUT, 'web-slider.png'), fullPage: true });
  await setSlider(page, last.max, 3);
  assert.strictEqual((await readTree(page)).verdict, 'values');

  // Findings as you type an expression.
  await page.type('#expr', 'sample.bin + nosuch.metric');
  await page.waitForFunction(() => /unknown-metric/.test(document.getElementById('findings').textContent), { timeout: 10000 });
  await page.close();
  assert.deepStrictEqual(offsite, [], 'no request off the server');
});

test('live: the tree and plots grow a point per sample', async () => {
  const base = await startWeb(['--host', '127.0.0.1', '--interval', '200msec', CONFIG]);
  const page = await openPage(base);
  await page.goto(`${base}/?metric=my.none`, { waitUntil: 'load' });
  await waitLoads(page, 4, 'live polls');
  const a = await readTree(page);
  assert.strictEqual(a.nodes.length, 3);
  assert.strictEqual(a.verdict, 'no values');
  assert.deepStrictEqual(a.nodes.filter((n) => n.origin).map((n) => n.text), ['sample.bad.novalues']);
  for (const n of a.nodes) assert.strictEqual(n.canvases, 1, `${n.text}: one plot`);
  await waitLoads(page, 8, 'more live polls');
  const b = await readTree(page);
  for (const n of b.nodes) {
    assert.ok(n.points > a.nodes[0].points, `${n.text}: ${n.points} points after ${a.nodes[0].points}`);
    assert.strictEqual(n.points, b.max + 1, `${n.text}: a point per sample`);
  }
  await page.screenshot({ path: path.join(OUT, 'web-live.png'), fullPage: true });
  // The slider stopped on a sample keeps showing it while the window moves.
  const loads = await page.evaluate(() => Number(document.body.dataset.loads));
  await setSlider(page, 1, loads + 1);
  const pinned = await readTree(page);
  await waitLoads(page, loads + 4, 'polls after the slider stopped');
  const later = await readTree(page);
  assert.strictEqual(later.stamp, pinned.stamp, 'the sample shown stays put');
  assert.ok(later.max > pinned.max, `the window grew: ${pinned.max} then ${later.max}`);
  await page.close();
  assert.deepStrictEqual(offsite, [], 'no request off the server');
});
