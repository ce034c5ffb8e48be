// bench/web.sh's browser half: loads the explain page for one definition in
// headless chromium (puppeteer-core) and prints, as JSON, the time from
// navigation to the tree and every plot drawn (the server recording the
// window included: the trace is cold), the time for the same definition
// again (the trace kept), the page's own time from its request to the
// plots drawn, and the points plotted.
'use strict';
const puppeteer = require('puppeteer-core');

(async () => {
  const [base, metric] = process.argv.slice(2);
  const browser = await puppeteer.launch({ executablePath: process.env.CHROMIUM, headless: true, args: ['--no-sandbox', '--disable-gpu', '--disable-dev-shm-usage'] });
  try {
    const page = await browser.newPage();
    await page.setViewport({ width: 1280, height: 900 });
    const measure = async () => {
      await page.goto(`${base}/?metric=${encodeURIComponent(metric)}`, { waitUntil: 'domcontentloaded' });
      await page.waitForFunction(() => Number(document.body.dataset.loads || 0) >= 1, { timeout: 60000 });
      return page.evaluate(() => {
        const v = window.explainPage.view;
        let points = 0;
        for (const n of v.nodes) points += n.series.lines.length * v.times.length;
        return { navigationMs: performance.now(), marks: window.explainPage.marks, pageMs: window.explainPage.renderMs, samples: v.times.length, records: v.window.records, nodes: v.nodes.length, points, plots: document.querySelectorAll('.plot canvas').length };
      });
    };
    const cold = await measure();
    const warm = await measure();
    console.log(JSON.stringify({ cold, warm }));
  } finally {
    await browser.close();
  }
})().catch((e) => {
  console.error(e);
  process.exit(1);
});
