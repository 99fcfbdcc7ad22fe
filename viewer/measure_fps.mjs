// measure_fps.mjs: how fast a replay page plays in headless Chromium (software WebGL): opens the
// page from disk, plays it in a loop at real time for a while, and reports the frames the page
// itself counted (window.__replayStats) per second of wall clock. docs/performance.md, "Replay".
//
// usage: node viewer/measure_fps.mjs PAGE.html [SECONDS] [WIDTHxHEIGHT] [OPTIONS_JSON]
//   OPTIONS_JSON is given to window.__replay.set first, e.g. '{"points":true,"forces":true}'
import { createRequire } from 'node:module';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';

const require = createRequire(import.meta.url);
const puppeteer = require('puppeteer-core');
const page = path.resolve(process.argv[2]);
const seconds = +(process.argv[3] || 10);
const [width, height] = (process.argv[4] || '1280x720').split('x').map(Number);
const options = JSON.parse(process.argv[5] || '{}');
const userDir = fs.mkdtempSync(path.join(os.tmpdir(), 'replay-fps-'));
const browser = await puppeteer.launch({
  executablePath: '/usr/bin/chromium',
  headless: true,
  args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run',
    '--disable-background-networking', '--disable-component-update', '--disable-sync',
    `--user-data-dir=${userDir}`],
});
try {
  const p = await browser.newPage();
  await p.setViewport({ width, height });
  const t0 = Date.now();
  await p.goto(`file://${page}`, { waitUntil: 'load', timeout: 300000 });
  await p.waitForFunction(() => window.__replayStats && window.__replayStats.ready, { timeout: 300000 });
  const loadSeconds = (Date.now() - t0) / 1000;
  const info = await p.evaluate((opts) => {
    window.__replay.set({ ...opts, loop: true });
    window.__replay.play(1);
    return { bodies: window.__replay.bodies.length, duration: window.__replay.duration };
  }, options);
  // let it settle, then count
  await new Promise((r) => setTimeout(r, 2000));
  const a = await p.evaluate(() => ({ f: window.__replayStats.playingFrames, t: performance.now() }));
  await new Promise((r) => setTimeout(r, seconds * 1000));
  const b = await p.evaluate(() => ({ f: window.__replayStats.playingFrames, t: performance.now(),
    poseMs: +window.__replayStats.poseMs.toFixed(2), renderMs: +window.__replayStats.renderMs.toFixed(2),
    r: window.__replay.renderer(), c: window.__replay.counts(0) }));
  const fps = (1000 * (b.f - a.f)) / (b.t - a.t);
  console.log(JSON.stringify({
    page: path.basename(page), options, megabytes: +(fs.statSync(page).size / 1e6).toFixed(2),
    viewport: `${width}x${height}`, loadSeconds, ...info, seconds: (b.t - a.t) / 1000,
    frames: b.f - a.f, fps: +fps.toFixed(1), poseMs: b.poseMs, renderMs: b.renderMs, drawCalls: b.r.calls, triangles: b.r.triangles,
    arrows: b.c, loadavg: os.loadavg().map((x) => +x.toFixed(2)),
  }));
} finally {
  await browser.close();
  fs.rmSync(userDir, { recursive: true, force: true });
}
