// test_replay.mjs: the replay page in a real browser (Debian's chromium, headless, software
// WebGL), opened from disk with every request that is not a local file refused.
//
// The pages are made by the contactsim under test (`run --replay`, `replay`, `compare --replay`);
// what the page draws is checked against the CSV the run wrote, which is the independent
// answer here: body origins and orientations read back from the page's scene graph at report
// times and between them, body pixels in screenshots at the start and the end (the body's
// projected position differs from the same view with the bodies hidden, and the start position
// shows the floor again at the end), force arrows present exactly when the CSV has force
// columns, stops highlighted exactly when the CSV's coordinate is beyond the stop's bound, the
// timeline's play, step and speed, and no console errors. Ends with "N passed, N failed".
//
// usage: node tests/test_replay.mjs CONTACTSIM VIEWER_DIR WORK_DIR [--screenshot FILE]
//   CONTACTSIM  the executable; VIEWER_DIR  viewer/ (its node_modules has puppeteer-core);
//   WORK_DIR    scratch directory (made, and emptied first); run from the source root.
import { execFileSync } from 'node:child_process';
import { createRequire } from 'node:module';
import fs from 'node:fs';
import path from 'node:path';
import { pathToFileURL } from 'node:url';

const [contactsim, viewerDir, workArg] = process.argv.slice(2);
if (!contactsim || !viewerDir || !workArg) {
  console.error('usage: node tests/test_replay.mjs CONTACTSIM VIEWER_DIR WORK_DIR [--screenshot FILE]');
  process.exit(2);
}
const shotArg = process.argv.indexOf('--screenshot');
const screenshotOut = shotArg > 0 ? process.argv[shotArg + 1] : null;
// puppeteer-core is an ES module: found from viewer/ and imported (require() of an ES module
// needs Node.js 20.19 or later)
const require = createRequire(path.resolve(viewerDir, 'package.json'));
const puppeteer = (await import(pathToFileURL(require.resolve('puppeteer-core')).href)).default;
const work = path.resolve(workArg);
fs.rmSync(work, { recursive: true, force: true });
fs.mkdirSync(work, { recursive: true });

let passed = 0;
let failed = 0;
function check(ok, what, detail = '') {
  if (ok) {
    passed++;
    console.log(`ok - ${what}`);
  } else {
    failed++;
    console.log(`FAILED - ${what}${detail ? `: ${detail}` : ''}`);
  }
}

// ---- the runs ----
function cs(...args) {
  return execFileSync(contactsim, args, { stdio: ['ignore', 'pipe', 'pipe'] });
}
const bss = 'scenes/bench/block_spin_slide.json';
cs('run', bss, '--duration', '3', '-o', `${work}/bss.csv`, '--replay', `${work}/bss.html`, '-q');
cs('run', bss, '--duration', '3', '--forces', '-o', `${work}/bss_forces.csv`, '-q');
cs('run', 'scenes/pendulum_stop.json', '--duration', '4', '-o', `${work}/stop.csv`, '-q');
cs('replay', 'scenes/pendulum_stop.json', `${work}/stop.csv`, '-o', `${work}/stop.html`);
cs('compare', bss, '--duration', '2', '--out-dir', `${work}/cmp`, '--replay', '-q');
cs('run', 'scenes/bench/pile_100.json', '--duration', '0.3', '-o', `${work}/pile.csv`, '--replay', `${work}/pile.html`, '-q');
// a box falling 5 m (a tall motion) and a ball gliding 10 km from the origin
cs('run', 'scenes/free_fall.json', '-o', `${work}/ff.csv`, '--replay', `${work}/ff.html`, '-q');
fs.writeFileSync(`${work}/far.json`, JSON.stringify({
  name: 'far', gravity: [0, 0, 0],
  bodies: [{ name: 'ball', mass: 1, inertia: { sphere: 0.1 },
    joint: { type: 'free', initial: { position: [10000, -10000, 10000], velocity: [0.2, 0, 0] } } }],
  simulation: { duration: 1, report_interval: 0.01 },
}));
cs('run', `${work}/far.json`, '-o', `${work}/far.csv`, '--replay', `${work}/far.html`, '-q');
// a comparison whose first model fails at 0.3 s of 0.5 (exit 1: a model failed)
try {
  cs('compare', 'tests/data/compare_fail.json', '--out-dir', `${work}/cfail`, '--replay', '-q');
} catch (e) {
  if (e.status !== 1) throw e;
}
// a run with one force that is not finite (a run that diverged there)
{
  const lines = fs.readFileSync(`${work}/bss_forces.csv`, 'utf8').split('\n');
  const col = lines[0].split(',').indexOf('corners.0.fz');
  const row = lines[5].split(',');
  row[col] = 'nan';
  lines[5] = row.join(',');
  fs.writeFileSync(`${work}/nanforce.csv`, lines.join('\n'));
  cs('replay', bss, `${work}/nanforce.csv`, '-o', `${work}/nanforce.html`);
}
// the pendulum's run cut to its first row: a run of one time
{
  const lines = fs.readFileSync(`${work}/stop.csv`, 'utf8').split('\n');
  fs.writeFileSync(`${work}/onerow.csv`, `${lines[0]}\n${lines[1]}\n`);
  cs('replay', 'scenes/pendulum_stop.json', `${work}/onerow.csv`, '-o', `${work}/onerow.html`);
}
// the pendulum's run with its times counted from -5 s (a CSV shifted by hand)
{
  const lines = fs.readFileSync(`${work}/stop.csv`, 'utf8').trim().split('\n');
  const shifted = lines.slice(1).map((l) => {
    const f = l.split(',');
    f[0] = String(Number(f[0]) - 5);
    return f.join(',');
  });
  fs.writeFileSync(`${work}/early.csv`, `${[lines[0], ...shifted].join('\n')}\n`);
  cs('replay', 'scenes/pendulum_stop.json', `${work}/early.csv`, '-o', `${work}/early.html`);
  // and one with the arm's quaternion doubled on row 50 (edited by hand): drawn normalised, as
  // between rows (at the row itself it was drawn stretched)
  const names = lines[0].split(',');
  const qw = names.indexOf('arm.qw');
  const row = lines[50].split(',');
  for (let j = 0; j < 4; j++) row[qw + j] = String(2 * Number(row[qw + j]));
  fs.writeFileSync(`${work}/long_q.csv`, `${[...lines.slice(0, 50), row.join(','), ...lines.slice(51)].join('\n')}\n`);
  cs('replay', 'scenes/pendulum_stop.json', `${work}/long_q.csv`, '-o', `${work}/long_q.html`);
  // a run continued from a checkpoint at 0.5 s beside one from the start
  cs('run', 'scenes/pendulum_stop.json', '--duration', '0.5', '-o', `${work}/first.csv`,
    '--save-state', `${work}/half.state`, '-q');
  cs('run', 'scenes/pendulum_stop.json', '--duration', '1', '--initial-state', `${work}/half.state`,
    '-o', `${work}/second.csv`, '-q');
  cs('replay', 'scenes/pendulum_stop.json', `${work}/first.csv`, `${work}/second.csv`, '-o',
    `${work}/later.html`);
  // the most runs a page shows, 32, of one scene side by side (copies of one CSV)
  const twelve = [];
  for (let j = 0; j < 32; j++) {
    fs.copyFileSync(`${work}/first.csv`, `${work}/run${j}.csv`);
    twelve.push(`${work}/run${j}.csv`);
  }
  cs('replay', 'scenes/pendulum_stop.json', ...twelve, '-o', `${work}/twelve.html`);
  // a block without a shape of its own, on corner spheres in one model and points in the other
  fs.writeFileSync(`${work}/corners.json`, JSON.stringify({
    name: 'corners', gravity: [0, 0, -9.81],
    bodies: [{ name: 'block', mass: 1, inertia: { diag: [0.004, 0.004, 0.004] },
      joint: { type: 'free', initial: { position: [0, 0, 0.06] } } }],
    planes: [{ name: 'floor' }],
    contacts: [{ name: 'c', body: 'block', plane: 'floor', radius: 0.01,
      points: [[-0.05, -0.05, -0.05], [0.05, -0.05, -0.05], [-0.05, 0.05, -0.05], [0.05, 0.05, -0.05],
        [-0.05, -0.05, 0.05], [0.05, -0.05, 0.05], [-0.05, 0.05, 0.05], [0.05, 0.05, 0.05]] }],
    contact_models: { hunt_crossley: { plane_strain_modulus: 1e7 }, compliant_point: { penalty_stiffness: 1e5 } },
    simulation: { duration: 0.05 },
  }));
  for (const order of [['hunt_crossley', 'compliant_point'], ['compliant_point', 'hunt_crossley']]) {
    cs('compare', `${work}/corners.json`, '--models', order.join(','), '--out-dir', `${work}/corners_${order[0]}`, '-q');
    cs('replay', `${work}/corners.json`, ...order.map((m) => `${work}/corners_${order[0]}/${m}.csv`),
      '-o', `${work}/corners_${order[0]}.html`);
  }
}

// the page's CSV and the forces CSV of the same run agree on every shared column
function readCsv(file) {
  const lines = fs.readFileSync(file, 'utf8').trim().split('\n');
  const names = lines[0].split(',');
  const rows = lines.slice(1).map((l) => l.split(',').map(Number));
  const col = (n) => {
    const j = names.indexOf(n);
    if (j < 0) throw new Error(`${file}: no column ${n}`);
    return rows.map((r) => r[j]);
  };
  return { names, rows, col };
}
const plain = readCsv(`${work}/bss.csv`);
const withForces = readCsv(`${work}/bss_forces.csv`);
check(!plain.names.some((n) => n.endsWith('.fx')) && plain.rows.length === withForces.rows.length &&
  plain.names.every((n) => withForces.names.includes(n)),
  'run --replay leaves the CSV asked for (no force columns) and loses no row');

// the value of column `name` at time t, linearly interpolated between report rows
function at(csv, name, t) {
  const ts = csv.col('t');
  const v = csv.col(name);
  let i = 0;
  while (i + 1 < ts.length && ts[i + 1] <= t) i++;
  if (i + 1 >= ts.length || ts[i] === t) return v[i];
  const a = (t - ts[i]) / (ts[i + 1] - ts[i]);
  return v[i] + a * (v[i + 1] - v[i]);
}

// ---- the browser ----
const userDir = fs.mkdtempSync(path.join(work, 'chromium-'));
const browser = await puppeteer.launch({
  executablePath: '/usr/bin/chromium',
  headless: true,
  args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run',
    '--disable-background-networking', '--disable-component-update', '--disable-sync',
    `--user-data-dir=${userDir}`],
});

// open a page from disk with the network refused; collects console errors and refused requests
async function open(file) {
  const page = await browser.newPage();
  await page.setViewport({ width: 1280, height: 720 });
  const problems = [];
  await page.setRequestInterception(true);
  page.on('request', (req) => {
    const url = req.url();
    if (url.startsWith('file:') || url.startsWith('data:') || url.startsWith('blob:')) {
      req.continue();
    } else {
      problems.push(`request to ${url}`);
      req.abort('internetdisconnected');
    }
  });
  page.on('console', (m) => {
    if (m.type() === 'error') problems.push(`console error: ${m.text()}`);
  });
  page.on('pageerror', (e) => problems.push(`page error: ${e.message}`));
  await page.goto(`file://${file}`, { waitUntil: 'load' });
  await page.waitForFunction(() => window.__replayStats && window.__replayStats.ready, { timeout: 30000 });
  return { page, problems };
}

// the pixel colours at points of a PNG, read by the page itself from the screenshot's bytes
async function pixels(page, png, points) {
  return page.evaluate(async (b64, pts) => {
    const img = new Image();
    img.src = `data:image/png;base64,${b64}`;
    await img.decode();
    const c = document.createElement('canvas');
    c.width = img.width;
    c.height = img.height;
    const g = c.getContext('2d');
    g.drawImage(img, 0, 0);
    return pts.map(([x, y]) => Array.from(g.getImageData(Math.round(x), Math.round(y), 1, 1).data.slice(0, 3)));
  }, Buffer.from(png).toString('base64'), points);
}
const differs = (a, b) => Math.max(...a.map((v, i) => Math.abs(v - b[i]))) > 40;

try {
  // ---- a single run: positions, orientations, screenshots, forces, timeline ----
  {
    const { page, problems } = await open(`${work}/bss.html`);
    const info = await page.evaluate(() => ({ bodies: window.__replay.bodies, duration: window.__replay.duration }));
    check(info.bodies.length === 1 && info.bodies[0] === 'block' && Math.abs(info.duration - 3) < 1e-9,
      'the page knows the scene (one body, 3 s)', JSON.stringify(info));
    const ts = plain.col('t');
    // at report times and between them
    const times = [0, ts[37], ts[150], 1.234567, 2.5 + 0.003, ts[ts.length - 1]];
    let worst = 0;
    let worstQ = 0;
    for (const t of times) {
      const got = await page.evaluate((tt) => {
        window.__replay.seek(tt);
        return window.__replay.bodyPose(0, 0);
      }, t);
      const want = ['px', 'py', 'pz'].map((k) => at(plain, `block.${k}`, t));
      worst = Math.max(worst, ...want.map((w, j) => Math.abs(w - got.p[j])));
      const q = ['qw', 'qx', 'qy', 'qz'].map((k) => at(plain, `block.${k}`, t));
      const qn = Math.hypot(...q);
      const dot = Math.abs(q.reduce((s, v, j) => s + (v / qn) * got.q[j], 0));
      worstQ = Math.max(worstQ, 2 * Math.acos(Math.min(1, dot)));
    }
    check(worst < 2e-5, 'drawn body origins match the CSV at and between report times', `worst ${worst} m`);
    check(worstQ < 2e-3, 'drawn body orientations match the CSV', `worst ${worstQ} rad`);

    // forces: the page made by run --replay has them: an arrow per corner that carries load
    // (more than 1 N; the unloaded ones carry less than 1e-5 N), one total per contact set
    let arrowsAgree = 0;
    const forceTimes = [0.3, 1.0, 2.5];
    for (const t of forceTimes) {
      const counts = await page.evaluate((tt) => {
        window.__replay.seek(tt);
        return window.__replay.counts(0);
      }, ts.reduce((b, x) => (Math.abs(x - t) < Math.abs(b - t) ? x : b)));
      const tt = ts.reduce((b, x) => (Math.abs(x - t) < Math.abs(b - t) ? x : b));
      const loaded = [0, 1, 2, 3, 4, 5, 6, 7].filter((c) => at(withForces, `corners.${c}.fz`, tt) > 1).length;
      arrowsAgree += counts.normal === loaded && loaded > 0 && counts.total === 1 && counts.touching === loaded;
    }
    check(arrowsAgree === forceTimes.length,
      'a normal-force arrow and a contact point per loaded corner, and the total at the centre of pressure');
    const live = await page.evaluate(() => window.__replay.live(0));
    const fz = [0, 1, 2, 3, 4, 5, 6, 7].reduce((s, c) => s + at(withForces, `corners.${c}.fz`, 2.5), 0);
    check(Math.abs(live.normalForce - fz) < 1e-3 * Math.abs(fz) && Math.abs(live.height - at(plain, 'block.pz', 2.5)) < 1e-5 &&
      Math.abs(live.e_total - at(plain, 'e_total', 2.5)) < 1e-3,
      'the panel\'s normal force, height and energy are the CSV\'s', `${live.normalForce} vs ${fz}`);

    // screenshots: the block's pixel differs from the same view without bodies, at both ends
    const shots = {};
    for (const t of [0, 3]) {
      await page.evaluate((tt) => window.__replay.seek(tt), t);
      const p = await page.evaluate(() => window.__replay.project(window.__replay.bodyPose(0, 0).p));
      const png = await page.screenshot({ path: `${work}/bss_${t}.png` });
      await page.evaluate((tt) => {
        window.__replay.set({ bodies: false, points: false, forces: false, totals: false });
        window.__replay.seek(tt);
      }, t);
      const bare = await page.screenshot();
      await page.evaluate((tt) => {
        window.__replay.set({ bodies: true, points: true, forces: true, totals: true });
        window.__replay.seek(tt);
      }, t);
      const [a] = await pixels(page, png, [p]);
      const [b] = await pixels(page, bare, [p]);
      shots[t] = { p, png, bare };
      check(differs(a, b), `screenshot at t = ${t} s shows the block where the CSV puts it`, `${a} vs ${b} at ${p.map(Math.round)}`);
    }
    // at the end the block has left its start: the start position shows the floor again
    const [endAtStart] = await pixels(page, shots[3].png, [shots[0].p]);
    const [bareAtStart] = await pixels(page, shots[3].bare, [shots[0].p]);
    check(!differs(endAtStart, bareAtStart), 'at the end the start position shows no block',
      `${endAtStart} vs ${bareAtStart}`);
    if (screenshotOut) {
      await page.evaluate(() => window.__replay.seek(0.6));
      await page.screenshot({ path: screenshotOut });
    }

    // timeline: step goes to the next report row; play advances time at the chosen speed
    const stepped = await page.evaluate(() => {
      window.__replay.seek(1.0);
      document.getElementById('next').click();
      return window.__replay.time();
    });
    check(Math.abs(stepped - ts[ts.findIndex((x) => x > 1.0 + 1e-12)]) < 1e-12, 'step moves to the next report', `${stepped}`);
    // the wall clock is the page's own, read when play starts and when it stops
    await page.evaluate(() => {
      window.__replay.seek(0);
      document.getElementById('speed').value = '0.5';
      document.getElementById('speed').dispatchEvent(new Event('change'));
      window.__replayStats.playingFrames = 0;
      document.getElementById('play').click();
      window.__playStart = performance.now();
    });
    await new Promise((r) => setTimeout(r, 1500));
    const played = await page.evaluate(() => {
      window.__replay.pause();
      return { t: window.__replay.time(), frames: window.__replayStats.playingFrames,
        wall: (performance.now() - window.__playStart) / 1000 };
    });
    // (a loaded machine draws few frames; a frame's time stamp may precede the clock read that
    // started the window by up to one frame, so half speed is allowed 0.1 s of slack: real time
    // would show twice as much replay as this bound)
    check(played.t > 0 && played.t <= 0.5 * played.wall + 0.1 && played.frames >= 2,
      'play at half speed advances half as fast as the clock, drawing frames',
      `${played.t} s of replay in ${played.wall} s, ${played.frames} frames`);
    check(problems.length === 0, 'no console errors and no network requests (single run)', problems.join('; '));
    await page.close();
  }

  // ---- after the fact, without force columns: a stop that lights up when engaged ----
  {
    const { page, problems } = await open(`${work}/stop.html`);
    const stopCsv = readCsv(`${work}/stop.csv`);
    const scene = JSON.parse(fs.readFileSync('scenes/pendulum_stop.json', 'utf8'));
    const stop = scene.forces.find((f) => f.type === 'linear_stop');
    const ts = stopCsv.col('t');
    const q = stopCsv.col('arm.q0');
    // the bound in force at t (the scene moves the lower bound at 3 s)
    const lower = (t) => {
      let v = stop.lower_bound;
      for (const c of scene.changes || []) if (c.time <= t && 'lower_bound' in c) v = c.lower_bound;
      return v;
    };
    let agree = 0;
    let engaged = 0;
    const sample = ts.filter((t, i) => i % 7 === 0);
    for (const t of sample) {
      const i = ts.indexOf(t);
      const want = q[i] < lower(t) || q[i] > stop.upper_bound;
      engaged += want;
      const got = await page.evaluate((tt) => {
        window.__replay.seek(tt);
        return window.__replay.activeStops(0).length > 0;
      }, t);
      agree += got === want;
    }
    check(agree === sample.length && engaged > 0 && engaged < sample.length,
      'the stop is highlighted exactly when the CSV\'s angle is beyond its bound', `${agree}/${sample.length} agree, ${engaged} engaged`);
    const counts = await page.evaluate(() => window.__replay.counts(0));
    const disabled = await page.evaluate(() => document.getElementById('show-forces').disabled);
    check(counts.normal === 0 && disabled, 'without force columns no arrows are drawn and the toggle says why');
    // the pendulum has no contacts: the note says so, not that --forces is missing
    const note = await page.evaluate(() => document.getElementById('force-note').textContent);
    check(/no contacts/.test(note) && !/--forces/.test(note), 'a scene without contacts is said to have none', note);
    check(problems.length === 0, 'no console errors and no network requests (replay subcommand)', problems.join('; '));
    await page.close();
  }

  // ---- a comparison: every model, one timeline, overlaid and side by side ----
  {
    const { page, problems } = await open(`${work}/cmp/replay.html`);
    const runs = await page.evaluate(() => window.__replay.runs);
    check(runs.length === 2 && runs.includes('exponential_spring') && runs.includes('compliant_point'),
      'the comparison shows both models', runs.join(', '));
    const legend = await page.evaluate(() => document.querySelectorAll('#legend label').length);
    check(legend === 2, 'a legend entry per model');
    let worst = 0;
    for (const [i, model] of runs.entries()) {
      const csv = readCsv(`${work}/cmp/${model}.csv`);
      for (const t of [0.5, 1.75]) {
        const got = await page.evaluate((tt, ii) => {
          window.__replay.seek(tt);
          return window.__replay.bodyPose(ii, 0).p;
        }, t, i);
        worst = Math.max(worst, ...['px', 'py', 'pz'].map((k, j) => Math.abs(at(csv, `block.${k}`, t) - got[j])));
      }
    }
    check(worst < 2e-5, 'each model\'s block is drawn where its own CSV puts it (overlaid)', `worst ${worst} m`);
    const side = await page.evaluate(() => {
      window.__replay.set({ layout: 'side' });
      window.__replay.seek(1);
      return [window.__replay.bodyPose(0, 0).p, window.__replay.bodyPose(1, 0).p];
    });
    const csv1 = readCsv(`${work}/cmp/${runs[1]}.csv`);
    const dy = side[1][1] - at(csv1, 'block.py', 1);
    check(dy > 0.2 && Math.abs(side[1][0] - at(csv1, 'block.px', 1)) < 2e-5,
      'side by side moves the second model along y only', `offset ${dy} m`);
    const png = await page.screenshot({ path: `${work}/compare.png` });
    const pts = await page.evaluate(() => [0, 1].map((i) => window.__replay.project(window.__replay.bodyPose(i, 0).p)));
    await page.evaluate(() => {
      window.__replay.set({ bodies: false, points: false, forces: false, totals: false });
      window.__replay.seek(1);
    });
    const bare = await page.screenshot();
    const a = await pixels(page, png, pts);
    const b = await pixels(page, bare, pts);
    check(differs(a[0], b[0]) && differs(a[1], b[1]), 'both models\' blocks are in the side-by-side screenshot');
    check(problems.length === 0, 'no console errors and no network requests (comparison)', problems.join('; '));
    await page.close();
  }

  // ---- many bodies: merged meshes instead of instances, flat arrows, totals first ----
  {
    const { page, problems } = await open(`${work}/pile.html`);
    const csv = readCsv(`${work}/pile.csv`);
    const names = await page.evaluate(() => window.__replay.bodies);
    let worst = 0;
    for (const t of [0, 0.155, 0.3]) {
      for (const k of [0, 37, 99]) {
        const got = await page.evaluate((tt, kk) => {
          window.__replay.seek(tt);
          return window.__replay.bodyPose(0, kk).p;
        }, t, k);
        worst = Math.max(worst, ...['px', 'py', 'pz'].map((c, j) => Math.abs(at(csv, `${names[k]}.${c}`, t) - got[j])));
      }
    }
    check(names.length === 100 && worst < 2e-5, 'a hundred bodies drawn where the CSV puts them (merged meshes)', `worst ${worst} m`);
    const counts = await page.evaluate(() => {
      window.__replay.seek(0.3);
      return window.__replay.counts(0);
    });
    // resting blocks: every block has a total at its centre of pressure, and at least one
    // loaded corner each (400 contacts: still solid arrows, merged)
    check(counts.total === 100 && counts.normal >= 100 && counts.normal <= 400 && counts.solid,
      'a total force per block and normal arrows on the loaded corners (merged arrows)', JSON.stringify(counts));
    const png = await page.screenshot({ path: `${work}/pile.png` });
    const pts = await page.evaluate(() => [0, 55, 99].map((k) => window.__replay.project(window.__replay.bodyPose(0, k).p)));
    await page.evaluate(() => {
      window.__replay.set({ bodies: false, forces: false, totals: false, points: false });
      window.__replay.seek(0.3);
    });
    const bare = await page.screenshot();
    const a = await pixels(page, png, pts);
    const b = await pixels(page, bare, pts);
    check(a.every((c, i) => differs(c, b[i])), 'blocks are in the screenshot where the CSV puts them', JSON.stringify([a, b]));
    // bodies hidden, the time moved, bodies shown again: the merged mesh's vertices follow (they
    // stayed at the time the bodies hid, drawn there until something else moved)
    const shown = await page.evaluate(() => {
      const R = window.__replay;
      R.set({ bodies: true });
      R.seek(0);
      R.set({ bodies: false });
      R.seek(0);
      R.seek(0.3);
      R.set({ bodies: true });
      R.seek(0.3);
      const g = R.scene.getObjectByName('bodies:box');
      let z = 0;
      for (let v = 0; v < g.nv; v++) {
        z += g.geometry.attributes.position.array[3 * v + 2] / g.nv;
      }
      return { drawn: z, matrix: g.instanceMatrix.array[14], at0: R.bodyPose(0, 0).p[2] };
    });
    check(Math.abs(shown.drawn - shown.matrix) < 1e-5 && Math.abs(shown.matrix - at(csv, `${names[0]}.pz`, 0.3)) < 2e-5,
      'bodies shown again after a scrub are drawn at the time shown (merged meshes)', JSON.stringify(shown));
    check(problems.length === 0, 'no console errors and no network requests (many bodies)', problems.join('; '));
    await page.close();
  }

  // ---- framing: reset view keeps the whole motion in sight, clear of the panel ----
  {
    const { page, problems } = await open(`${work}/ff.html`);
    const csv = readCsv(`${work}/ff.csv`);
    const info = await page.evaluate(() => {
      const r = document.getElementById('panel').getBoundingClientRect();
      const v = document.getElementById('view').getBoundingClientRect();
      return { panel: r.right, width: v.width, height: v.height };
    });
    let outside = 0;
    const ts = csv.col('t').filter((t, i) => i % 5 === 0);
    for (const t of ts) {
      const xy = await page.evaluate((tt) => {
        window.__replay.seek(tt);
        return window.__replay.project(window.__replay.bodyPose(0, 0).p);
      }, t);
      outside += !(xy[0] > info.panel && xy[0] < info.width && xy[1] > 0 && xy[1] < info.height);
    }
    check(outside === 0, 'a 5 m fall stays in sight, clear of the panel, at every report',
      `${outside} of ${ts.length} times outside (panel to x = ${info.panel})`);
    // the page names the CSV asked for, not the scratch copy it was read from
    const named = await page.evaluate(() => JSON.parse(document.getElementById('replay-data').textContent).runs[0].csv);
    check(named === `${work}/ff.csv`, 'run --replay names the CSV it wrote', named);
    check(problems.length === 0, 'no console errors and no network requests (framing)', problems.join('; '));
    await page.close();
  }

  // ---- far from the origin: positions to float32 precision, not 6 digits (0.1 m at 10 km) ----
  {
    const { page, problems } = await open(`${work}/far.html`);
    const csv = readCsv(`${work}/far.csv`);
    let worst = 0;
    for (const t of [0, 0.13, 0.5, 0.77, 1]) {
      const x = await page.evaluate((tt) => {
        window.__replay.seek(tt);
        return window.__replay.bodyPose(0, 0).p[0];
      }, t);
      worst = Math.max(worst, Math.abs(x - at(csv, 'ball.px', t)));
    }
    // float32 through the drawn pose's matrix (a few of its 1 mm spacings there), where the
    // 6-digit positions drew the ball in 0.1 m steps
    check(worst < 1e-2, 'a ball 10 km from the origin is drawn within float32 precision of the CSV', `worst ${worst} m`);
    check(problems.length === 0, 'no console errors and no network requests (far)', problems.join('; '));
    await page.close();
  }

  // ---- a failed first model: the steps go on to the end of the longest run ----
  {
    const { page, problems } = await open(`${work}/cfail/replay.html`);
    const t = await page.evaluate(() => {
      const ends = [];
      window.__replay.seek(0.295);
      for (let i = 0; i < 4; i++) {
        document.getElementById('next').click();
        ends.push(window.__replay.time());
      }
      return ends;
    });
    check(t[3] > t[2] && t[2] > t[1] && t[1] > t[0], 'step goes past the end of a run that failed early', t.join(', '));
    // past its end the failed run shows no numbers and says where it ended
    await page.evaluate(() => window.__replay.seek(0.45));
    await page.waitForFunction(() => /the run ends at t = 0\.3 s/.test(document.getElementById('stops').textContent), { timeout: 30000, polling: 50 })
      .catch(() => {});
    const note = await page.evaluate(() => document.getElementById('stops').textContent);
    check(/smooth_sphere_half_space: the run ends at t = 0\.3 s/.test(note), 'a run that ended early says where', note);
    check(problems.length === 0, 'no console errors and no network requests (failed model)', problems.join('; '));
    await page.close();
  }

  // ---- a run of one row, played with loop on: it stays at its one time, with its numbers ----
  {
    const { page, problems } = await open(`${work}/onerow.html`);
    await page.evaluate(() => {
      window.__replay.set({ loop: true });
      window.__replay.play(1);
    });
    await new Promise((r) => setTimeout(r, 500));
    const got = await page.evaluate(() => ({ t: window.__replay.time(), start: window.__replay.start,
      end: window.__replay.duration, stops: document.getElementById('stops').textContent }));
    check(got.t === got.start && got.end === got.start && !/the run ends/.test(got.stops),
      'a run of one row played in a loop stays at its time', JSON.stringify(got));
    check(problems.length === 0, 'no console errors and no network requests (one row)', problems.join('; '));
    await page.close();
  }

  // ---- times before 0: the timeline spans the rows, and play goes through them ----
  {
    const { page, problems } = await open(`${work}/early.html`);
    const early = readCsv(`${work}/early.csv`);
    const ts = early.col('t');
    const span = await page.evaluate(() => ({ start: window.__replay.start, end: window.__replay.duration }));
    check(span.start === ts[0] && span.end === ts[ts.length - 1], 'the timeline of a run before t = 0 spans its rows',
      `${span.start} to ${span.end} s, rows ${ts[0]} to ${ts[ts.length - 1]} s`);
    // played for a moment: the arm is drawn where the CSV has it at the time reached. At 1x,
    // paused as soon as the time has moved (polled on a timer, not on the animation frames,
    // which a loaded machine may hold back): played at 8x for a fixed 400 ms, a loaded machine
    // let the run reach its end (-1 s) before the pause
    await page.bringToFront();
    await page.evaluate(() => {
      window.__replay.seek(window.__replay.start);
      window.__replay.play(1);
    });
    await page.waitForFunction(() => window.__replay.time() > window.__replay.start + 0.05,
      { timeout: 60000, polling: 20 }).catch(() => {});
    const drawn = await page.evaluate(() => {
      window.__replay.pause();
      const t = window.__replay.time();
      return { t, q: window.__replay.seek(t) === t && window.__replay.bodyPose(0, 0).q };
    });
    const want = ['qw', 'qx', 'qy', 'qz'].map((c) => at(early, `arm.${c}`, drawn.t));
    const norm = Math.hypot(...want);
    const dot = Math.abs(want.reduce((acc, w, i) => acc + (w / norm) * drawn.q[i], 0));
    const angle = 2 * Math.acos(Math.min(1, dot));
    // (the pose read back from the drawn float32 matrix was up to 3.4e-4 rad from the CSV's at
    // 400 times across this run, 1.03e-4 at one a run reached: within 1e-3 rad, where rows are
    // a median 0.022 rad apart, so that a pose from the wrong rows still fails)
    check(drawn.t > ts[0] && drawn.t < ts[ts.length - 1] && angle < 1e-3,
      'play moves through a run before t = 0, drawing its rows', `t = ${drawn.t} s, ${angle} rad from the CSV`);
    check(problems.length === 0, 'no console errors and no network requests (run before t = 0)', problems.join('; '));
    await page.close();
  }

  // ---- a quaternion of another length at a row is drawn normalised ----
  {
    const { page, problems } = await open(`${work}/long_q.html`);
    const csv = readCsv(`${work}/long_q.csv`);
    const t = csv.col('t')[49];
    const q = await page.evaluate((tt) => {
      window.__replay.seek(tt);
      return window.__replay.bodyPose(0, 0).q;
    }, t);
    const want = ['qw', 'qx', 'qy', 'qz'].map((c) => csv.col(`arm.${c}`)[49]);
    const norm = Math.hypot(...want);
    const off = Math.max(...want.map((w, i) => Math.abs(w / norm - q[i])));
    check(Math.abs(Math.hypot(...q) - 1) < 1e-6 && off < 1e-6,
      'a quaternion of length 2 at a row is drawn normalised', `${q} against ${want}`);
    check(problems.length === 0, 'no console errors and no network requests (long quaternion)', problems.join('; '));
    await page.close();
  }

  // ---- a block drawn from its corners in every model, whichever comes first ----
  {
    // corners.json: the corners are spheres in one model and points in the other; with the
    // spheres' model listed first, both runs drew the block as a glyph
    const shapes = [];
    for (const order of [['hunt_crossley', 'compliant_point'], ['compliant_point', 'hunt_crossley']]) {
      const { page, problems } = await open(`${work}/corners_${order[0]}.html`);
      shapes.push(await page.evaluate(() => window.__replay.shapes));
      check(problems.length === 0, `no console errors and no network requests (corners, ${order[0]} first)`, problems.join('; '));
      await page.close();
    }
    check(shapes.every((s) => s[0] === 'box'), 'a block is drawn from its corners whichever model comes first',
      JSON.stringify(shapes));
  }

  // ---- a run that starts later says so before its first row, and shows no numbers ----
  {
    const { page, problems } = await open(`${work}/later.html`);
    const note = await page.evaluate(() => {
      window.__replay.seek(0.2);
      return document.getElementById('stops').textContent;
    });
    check(/the run starts at t = 0\.5 s/.test(note), 'a run continued from 0.5 s says where it starts', note);
    const after = await page.evaluate(() => {
      window.__replay.seek(0.7);
      return document.getElementById('stops').textContent;
    });
    check(!/starts at/.test(after), 'and no more once it has started', after);
    check(problems.length === 0, 'no console errors and no network requests (later run)', problems.join('; '));
    await page.close();
  }

  // ---- 32 runs get colours apart (the ninth had the first's; a hue spread then came within
  // 8 of the first eight's in RGB) ----
  {
    const { page, problems } = await open(`${work}/twelve.html`);
    const colours = await page.evaluate(() =>
      [...document.querySelectorAll('#legend .swatch')].map((e) => e.style.background));
    const rgb = colours.map((c) => (c.match(/\d+/g) || []).map(Number));
    let closest = Infinity;
    for (let a = 0; a < rgb.length; a++) {
      for (let b = a + 1; b < rgb.length; b++) {
        closest = Math.min(closest, Math.hypot(...rgb[a].map((x, k) => x - rgb[b][k])));
      }
    }
    check(colours.length === 32 && rgb.every((c) => c.length === 3) && closest >= 40,
      '32 runs, colours at least 40 apart in RGB', `${closest}: ${colours.join(' ')}`);
    check(problems.length === 0, 'no console errors and no network requests (32 runs)', problems.join('; '));
    await page.close();
  }

  // ---- a force that is not finite sets no scale ----
  {
    const { page, problems } = await open(`${work}/nanforce.html`);
    const withNan = await page.evaluate(() => window.__replay.forceUnit());
    // the same run's page without the NaN (run --replay reads every column, forces included)
    const ref = await open(`${work}/bss.html`);
    const unit = await ref.page.evaluate(() => window.__replay.forceUnit());
    await ref.page.close();
    check(withNan === unit && unit > 1, 'one force that is not finite leaves the force scale as it was', `${withNan} N against ${unit} N`);
    check(problems.length === 0, 'no console errors and no network requests (nan force)', problems.join('; '));
    await page.close();
  }

  // ---- sizes: the page is self-contained and small ----
  {
    const html = fs.readFileSync(`${work}/bss.html`, 'utf8');
    check(!/(src|href)\s*=\s*["']?(https?:)?\/\//i.test(html), 'the page references no external script or style');
  }
} catch (e) {
  check(false, 'the browser tests ran to the end', e.stack);
} finally {
  await browser.close();
  fs.rmSync(userDir, { recursive: true, force: true });
}

console.log(`${passed} passed, ${failed} failed`);
process.exit(failed ? 1 : 0);
