// main.js: the replay page: read the embedded data, build a view per run, and drive the
// timeline, the camera and the panel.
//
// The page is one file opened from disk: everything it needs (three.js, this code, the data)
// is inside it, and it asks the network for nothing. Time runs on the page's clock scaled by the
// chosen speed; each frame poses every run for the current time by interpolating between the
// two report rows around it (linear for positions, normalised linear for quaternions), so that
// slow motion stays smooth between rows.
//
// For tests and measurements the page exposes window.__replay (seek, play, drawn body positions
// read back from the scene graph, projection to screen pixels) and window.__replayStats (frames
// drawn, frames drawn while playing, the last second's frame rate).
import * as THREE from 'three';
import { OrbitControls } from 'three/addons/controls/OrbitControls.js';
import { decodeReplay, roundNice, sceneExtent } from './data.js';
import { RunView, SOLID_ARROWS_MAX } from './scene.js';

// the colours of the runs of a comparison, in order (a single run colours each body instead)
// A colour for each run of a comparison, up to the 32 a page shows: the usual eight, then
// colours chosen one at a time as far (in CIELAB) from all before as a grid of hues allows, of
// middle lightness; any two differ by at least 27 in CIELAB (a hue spread repeated the first
// eight's reds and blues)
const RUN_COLOURS = [0x1f77b4, 0xd62728, 0x2ca02c, 0xff7f0e, 0x9467bd, 0x8c564b, 0xe377c2, 0x17becf,
  0x0000f2, 0xf200f2, 0xccbb1f, 0x1f5936, 0x003dcc, 0xf2bc85, 0xf20079, 0x80004c,
  0x806600, 0x1fcc98, 0xa619a6, 0x88a65b, 0x4d3159, 0xf28590, 0x8fcc00, 0x0d4a59,
  0x802600, 0x0079f2, 0x00cc00, 0x7a00cc, 0xf28455, 0x85bcf2, 0xf200aa, 0x3d2d80];

function runColour(i) {
  return RUN_COLOURS[i % RUN_COLOURS.length];
}
const SPEEDS = [0.01, 0.05, 0.1, 0.25, 0.5, 1, 2, 4];

const stats = { frames: 0, playingFrames: 0, playingSeconds: 0, fps: 0, poseMs: 0, renderMs: 0, ready: false };
window.__replayStats = stats;

function main() {
  const el = document.getElementById('replay-data');
  const replay = decodeReplay(JSON.parse(el.textContent));
  const ext = sceneExtent(replay);
  const multi = replay.runs.length > 1;

  // renderer, scene, lights
  const canvas = document.getElementById('view');
  // multisampling triples the cost of a frame on a software renderer (no GPU): leave it out there
  const gpu = rendererName();
  const software = /swiftshader|llvmpipe|softpipe|software/i.test(gpu);
  const renderer = new THREE.WebGLRenderer({ canvas, antialias: !software });
  // a software renderer also draws at 70 % of the page's resolution, scaled up by the browser:
  // its cost is mostly per pixel and per frame copied to the screen, and a thousand-body replay
  // plays almost twice as smoothly for a slightly softer picture
  const resolution = software ? 0.7 : Math.min(window.devicePixelRatio || 1, 2);
  renderer.setPixelRatio(resolution);
  const scene = new THREE.Scene();
  scene.background = new THREE.Color(0xf4f5f7);
  scene.add(new THREE.HemisphereLight(0xffffff, 0x8a8f99, 1.6));
  const sun = new THREE.DirectionalLight(0xffffff, 1.6);
  sun.position.set(0.4, -0.6, 1);
  scene.add(sun);

  // z is up, as in the scene files
  const camera = new THREE.PerspectiveCamera(45, 1, 0.001, 1000);
  camera.up.set(0, 0, 1);
  const controls = new OrbitControls(camera, canvas);
  controls.enableDamping = false;
  controls.screenSpacePanning = true;

  // the runs, each in its own group so that side by side is an offset of the group
  const views = replay.runs.map((run, i) => new RunView(replay, run, i, multi ? runColour(i) : null, ext));
  views.forEach((v) => scene.add(v.group));
  const spacing = (ext.hi[1] - ext.lo[1]) + 2 * ext.body;

  // the timeline spans the runs' rows, wherever their times start (a CSV may count from a
  // negative time); a run without rows has none to add
  const timed = replay.runs.filter((r) => r.rows);
  const duration = timed.length ? Math.max(...timed.map((r) => r.duration)) : 0;
  const start = timed.length ? Math.min(...timed.map((r) => r.start)) : 0;

  // the default force scale: the largest contact force of all runs drawn as long as a few
  // bodies, rounded to a number a person reads (m per N shown as "N per length")
  let fmax = 0;
  for (const run of replay.runs) {
    for (const s of [run.cf, run.bf]) {
      for (let i = 0; s && i < s.length; i += 3) {
        // a force that is not finite (a run that diverged) is drawn as none and sets no scale
        const f = Math.hypot(s[i], s[i + 1], s[i + 2]);
        if (Number.isFinite(f)) fmax = Math.max(fmax, f);
      }
    }
  }
  // a large scene starts with what stays readable and fast: each contact set's total force at
  // its centre of pressure; the contact points and the per-contact arrows are a click away
  const ncontact = Math.max(...replay.runs.map((r) => r.contacts.length), 0);
  const large = ncontact > SOLID_ARROWS_MAX;
  const state = {
    t: start, playing: false, speed: 1, loop: false, layout: 'overlay', follow: -1,
    frames: false, points: !large, forces: !large, totals: true, planes: true, bodies: true,
    xray: replay.runs.some((r) => r.forces),
    forceUnit: roundNice(fmax > 0 ? fmax / 2 : 1),  // newtons drawn as one body length
    selected: 0, hidden: new Set(), dirty: true,
  };
  const forceScale = () => (4 * ext.body) / state.forceUnit;

  // ---- the page: panel, legend, timeline ----
  const ui = buildUi(replay, state, multi, duration, start);

  // ---- camera ----
  // The panel covers the left of the canvas: the view is centred on the rest of it, by rendering
  // the canvas as the left part of a wider image whose centre is the free part's centre (a view
  // offset), when the canvas is wide enough to spare the panel's width.
  function panelWidth() {
    const panel = document.getElementById('panel');
    const right = panel ? panel.getBoundingClientRect().right : 0;
    return right > 0 && right < canvas.clientWidth / 2 ? right : 0;
  }
  function fitCamera() {
    const lo = ext.lo.slice();
    const hi = ext.hi.slice();
    if (state.layout === 'side') {
      hi[1] += spacing * (views.length - 1);
    }
    const c = new THREE.Vector3((lo[0] + hi[0]) / 2, (lo[1] + hi[1]) / 2, (lo[2] + hi[2]) / 2);
    const r = 0.5 * Math.hypot(hi[0] - lo[0], hi[1] - lo[1], hi[2] - lo[2]);
    // the whole motion's bounding sphere within the free part of the view, vertically and
    // across, with a margin (it was drawn 0.75 times as far, and a fall left the picture)
    const h = Math.max(canvas.clientHeight, 1);
    const free = Math.max(canvas.clientWidth - panelWidth(), 1);
    const tanV = Math.tan(THREE.MathUtils.degToRad(camera.fov / 2));
    const half = Math.min(Math.atan(tanV), Math.atan((tanV * free) / h));
    const dist = (1.05 * r) / Math.sin(half);
    const dir = new THREE.Vector3(0.45, -1, 0.6).normalize();
    camera.position.copy(c).addScaledVector(dir, dist);
    camera.near = dist / 1000;
    camera.far = dist * 100;
    camera.updateProjectionMatrix();
    controls.target.copy(c);
    controls.update();
    followLast = null;
    state.dirty = true;
  }
  let followLast = null;

  function resize() {
    const w = canvas.clientWidth;
    const h = Math.max(canvas.clientHeight, 1);
    const p = panelWidth();
    renderer.setSize(w, h, false);
    camera.aspect = (w + p) / h;
    if (p > 0) {
      camera.setViewOffset(w + p, h, 0, 0, w, h);
    } else {
      camera.clearViewOffset();
    }
    camera.updateProjectionMatrix();
    state.dirty = true;
  }
  window.addEventListener('resize', resize);
  controls.addEventListener('change', () => {
    state.dirty = true;
  });

  // ---- one frame ----
  function pose() {
    const opts = {
      frames: state.frames, points: state.points, forces: state.forces, totals: state.totals,
      planes: state.planes, xray: state.xray, forceScale: forceScale(), showGroundPlanes: true,
      eye: [camera.position.x, camera.position.y, camera.position.z],
    };
    views.forEach((v, i) => {
      v.group.position.set(0, state.layout === 'side' ? i * spacing : 0, 0);
      v.group.visible = !state.hidden.has(i);
      // overlaid runs share one ground: draw it once
      opts.showGroundPlanes = state.layout === 'side' || i === firstShown();
      // shown or hidden before the pose: update() brings only the shown merged meshes' vertices
      // to their matrices, so bodies shown again after a scrub were drawn at the time they hid
      for (const { mesh } of Object.values(v.shapes)) {
        mesh.visible = state.bodies;
      }
      v.update(state.t, opts);
    });
    // follow a body: move camera and target by how far it moved
    if (state.follow >= 0) {
      const v = views[firstShown()];
      const p = v.drawnOrigin(state.follow);
      if (followLast) {
        const d = p.clone().sub(followLast);
        camera.position.add(d);
        controls.target.add(d);
        controls.update();
      }
      followLast = p;
    }
    ui.show(state, views, forceScale());
  }
  function firstShown() {
    for (let i = 0; i < views.length; i++) {
      if (!state.hidden.has(i)) {
        return i;
      }
    }
    return 0;
  }

  let last = null;
  let secondStart = performance.now();
  let secondFrames = 0;
  function frame(now) {
    requestAnimationFrame(frame);
    if (last === null) {
      last = now;
    }
    const dt = Math.min((now - last) / 1000, 0.25);
    last = now;
    if (state.playing) {
      state.t += dt * state.speed;
      if (state.t >= duration) {
        // (a run of one row has no span to loop over: it stays at its one time)
        if (state.loop && duration > start) {
          state.t = start + ((state.t - start) % (duration - start));
        } else {
          state.t = duration;
          state.playing = false;
        }
      }
      state.dirty = true;
    }
    if (!state.dirty) {
      return;
    }
    state.dirty = false;
    // the page's own time per frame, smoothed: posing (JavaScript) and issuing the draw calls
    const t0 = performance.now();
    pose();
    const t1 = performance.now();
    renderer.render(scene, camera);
    const t2 = performance.now();
    stats.poseMs = 0.9 * stats.poseMs + 0.1 * (t1 - t0);
    stats.renderMs = 0.9 * stats.renderMs + 0.1 * (t2 - t1);
    // frame counting for the measurement: every drawn frame, and those drawn while playing
    stats.frames++;
    secondFrames++;
    if (state.playing) {
      stats.playingFrames++;
      stats.playingSeconds += dt;
    }
    if (now - secondStart >= 1000) {
      stats.fps = (1000 * secondFrames) / (now - secondStart);
      secondStart = now;
      secondFrames = 0;
    }
  }

  // ---- controls of the page ----
  ui.on('play', () => {
    if (state.t >= duration) {
      state.t = start;
    }
    state.playing = !state.playing;
    state.dirty = true;
  });
  // the report times of every run, merged: a run that failed early (listed first, say) would
  // stop the steps at its end, and runs of `replay` may report on different grids
  const rows = Float64Array.from(new Set(replay.runs.flatMap((r) => Array.from(r.t)))).sort();
  ui.on('step', (dir) => {
    // to the next (or previous) report row
    state.playing = false;
    let i = 0;
    if (dir > 0) {
      while (i < rows.length && rows[i] <= state.t + 1e-12) i++;
      state.t = rows[Math.min(i, rows.length - 1)];
    } else {
      i = rows.length - 1;
      while (i >= 0 && rows[i] >= state.t - 1e-12) i--;
      state.t = rows[Math.max(i, 0)];
    }
    state.dirty = true;
  });
  ui.on('seek', (t) => {
    state.t = Math.min(Math.max(t, start), duration);
    state.dirty = true;
  });
  ui.on('change', () => {
    followLast = null;
    state.dirty = true;
  });
  ui.on('layout', () => {
    fitCamera();
  });
  ui.on('reset', () => {
    state.follow = -1;
    ui.sync(state);
    fitCamera();
  });
  ui.on('force-scale', (k) => {
    const steps = [1, 2, 5];
    const e = Math.floor(Math.log10(state.forceUnit) + 1e-9);
    const m = Math.round(state.forceUnit / Math.pow(10, e));
    let j = steps.indexOf(m) + k;
    let ee = e;
    if (j < 0) {
      j = 2;
      ee--;
    } else if (j > 2) {
      j = 0;
      ee++;
    }
    state.forceUnit = steps[j] * Math.pow(10, ee);
    state.dirty = true;
  });

  resize();
  fitCamera();
  requestAnimationFrame(frame);

  // ---- hooks for tests and measurements ----
  window.__replay = {
    duration, start,
    runs: replay.runs.map((r) => r.model),
    bodies: replay.bodies.map((b) => b.name),
    // what each body is drawn as: a shape's type ('box', 'sphere', ...) or 'glyph'
    shapes: replay.bodies.map((b) => (b.shape ? b.shape.type : 'glyph')),
    ext,
    seek(t) {
      state.playing = false;
      state.t = t;
      state.dirty = true;
      pose();
      renderer.render(scene, camera);
      return state.t;
    },
    time: () => state.t,
    play(speed) {
      if (speed) state.speed = speed;
      state.playing = true;
      state.dirty = true;
    },
    pause() {
      state.playing = false;
    },
    set(options) {
      Object.assign(state, options);
      ui.sync(state);
      if ('layout' in options) {
        fitCamera();
      }
      state.dirty = true;
    },
    // the origin (p) and orientation (q: w, x, y, z) of body k of run i as drawn, in the
    // page's world coordinates
    bodyPose(i, k) {
      const { p, q } = views[i].drawnPose(k);
      return { p: [p.x, p.y, p.z], q: [q.w, q.x, q.y, q.z] };
    },
    // a world point in CSS pixels of the page (x right, y down)
    project(p) {
      const v = new THREE.Vector3(p[0], p[1], p[2]).project(camera);
      const r = canvas.getBoundingClientRect();
      return [r.left + ((v.x + 1) / 2) * r.width, r.top + ((1 - v.y) / 2) * r.height];
    },
    // the page's numbers at the current time (what the panel shows)
    live: (i) => ({ ...views[i].live, ...views[i].bodyNumbers(state.selected) }),
    activeStops: (i) => views[i].activeStops || [],
    counts: (i) => {
      const v = views[i];
      return {
        normal: v.arrows.normal.count, friction: v.arrows.friction.count,
        total: v.arrows.total.count, touching: v.touching, solid: !v.flatArrows,
      };
    },
    // place the camera at `position` looking at `target` (world coordinates)
    setCamera(position, target) {
      camera.position.set(...position);
      controls.target.set(...target);
      controls.update();
      followLast = null;
      state.dirty = true;
    },
    forceUnit: () => state.forceUnit,
    scene,
    renderer: () => ({
      calls: renderer.info.render.calls, triangles: renderer.info.render.triangles, name: gpu,
      antialias: !software, resolution,
    }),
  };
  stats.ready = true;
}


// the WebGL renderer's name ("ANGLE (..., SwiftShader driver)" for software), "" if unknown
function rendererName() {
  try {
    const gl = document.createElement('canvas').getContext('webgl2');
    if (!gl) {
      return '';
    }
    const info = gl.getExtension('WEBGL_debug_renderer_info');
    const name = String(gl.getParameter(info ? info.UNMASKED_RENDERER_WEBGL : gl.RENDERER));
    const lose = gl.getExtension('WEBGL_lose_context');
    if (lose) {
      lose.loseContext();
    }
    return name;
  } catch (e) {
    return '';
  }
}


// ---------------------------------------------------------------------------------------------
// the panel, the legend and the timeline: plain DOM

function buildUi(replay, state, multi, duration, start) {
  const $ = (id) => document.getElementById(id);
  const handlers = {};
  const emit = (name, arg) => handlers[name] && handlers[name](arg);
  const fmt = (x, unit) => (isFinite(x) ? `${fmtNum(x)} ${unit}` : '–');

  $('title').textContent = replay.scene + (multi ? ' — comparison' : ` — ${replay.runs[0].model}`);
  document.title = `${replay.scene} replay`;

  // legend of runs (a comparison), with a checkbox each
  const legend = $('legend');
  if (multi) {
    replay.runs.forEach((run, i) => {
      const row = document.createElement('label');
      const colour = `#${runColour(i).toString(16).padStart(6, '0')}`;
      row.innerHTML = `<input type="checkbox" checked> <span class="swatch" style="background:${colour}"></span> ${escapeHtml(run.model)}`;
      row.querySelector('input').addEventListener('change', (e) => {
        if (e.target.checked) state.hidden.delete(i); else state.hidden.add(i);
        emit('change');
      });
      legend.appendChild(row);
    });
  } else {
    legend.style.display = 'none';
    $('layout-row').style.display = 'none';
  }

  // body chooser for the numbers and for following
  const bodySel = $('body');
  const followSel = $('follow');
  replay.bodies.forEach((b, k) => {
    bodySel.add(new Option(b.name, k));
    followSel.add(new Option(b.name, k));
  });
  bodySel.addEventListener('change', () => {
    state.selected = +bodySel.value;
    emit('change');
  });
  followSel.addEventListener('change', () => {
    state.follow = +followSel.value;
    emit('change');
  });

  // toggles
  for (const key of ['bodies', 'xray', 'frames', 'points', 'forces', 'totals', 'planes', 'loop']) {
    const box = $(`show-${key}`);
    box.checked = state[key];
    box.addEventListener('change', () => {
      state[key] = box.checked;
      emit('change');
    });
  }
  const hasForces = replay.runs.some((r) => r.forces || r.bf);
  // what has forces to draw: the contacts of each run, the scene's bushings
  const drawable = (r) => r.contacts.length > 0 || (replay.bushings || []).length > 0;
  const note = $('force-note');
  if (!hasForces) {
    const none = !replay.runs.some(drawable);
    note.textContent = none ? 'no contacts or bushings in the scene: no forces to draw'
                            : 'no force columns in the CSV (run with --forces)';
    $('forces-row').title = none ? 'the scene has no contacts or bushings'
                                 : 'the CSV has no force columns: run with --forces to see contact forces';
    $('show-forces').disabled = true;
    $('show-totals').disabled = true;
    $('scale-row').style.display = 'none';
    note.style.display = '';
  } else {
    // a comparison where some CSVs have no force columns: those runs draw no arrows, said here
    const without = replay.runs.filter((r) => drawable(r) && !r.forces && !r.bf);
    if (without.length) {
      note.textContent = `no force columns in the CSV of ${without.map((r) => r.model).join(', ')}` +
                         ' (run with --forces): no arrows for it';
      note.style.display = '';
    }
  }
  $('layout').addEventListener('change', (e) => {
    state.layout = e.target.value;
    emit('layout');
  });
  $('reset').addEventListener('click', () => emit('reset'));
  $('scale-down').addEventListener('click', () => emit('force-scale', 1));
  $('scale-up').addEventListener('click', () => emit('force-scale', -1));

  // timeline
  const slider = $('time');
  slider.min = start;
  slider.max = duration;
  slider.step = 'any';
  slider.addEventListener('input', () => emit('seek', +slider.value));
  $('play').addEventListener('click', () => emit('play'));
  $('prev').addEventListener('click', () => emit('step', -1));
  $('next').addEventListener('click', () => emit('step', 1));
  const speedSel = $('speed');
  for (const s of SPEEDS) {
    speedSel.add(new Option(s === 1 ? '1× (real time)' : `${s}×`, s));
  }
  speedSel.value = '1';
  speedSel.addEventListener('change', () => {
    state.speed = +speedSel.value;
  });
  // keys: space plays, arrows step, home goes to the start
  window.addEventListener('keydown', (e) => {
    if (e.target.tagName === 'SELECT' || (e.target.tagName === 'INPUT' && e.target.type !== 'range' && e.target.type !== 'checkbox')) {
      return;
    }
    if (e.key === ' ') {
      emit('play');
    } else if (e.key === 'ArrowRight') {
      emit('step', 1);
    } else if (e.key === 'ArrowLeft') {
      emit('step', -1);
    } else if (e.key === 'Home') {
      emit('seek', start);
    } else if (e.key === 'r') {
      emit('reset');
    } else {
      return;
    }
    e.preventDefault();
  });

  // the numbers: one column per run
  const table = $('numbers');
  const keys = [
    ['height', 'height', 'm'], ['speed', 'speed', 'm/s'], ['normalForce', 'normal force', 'N'],
    ['ke', 'kinetic energy', 'J'], ['pe', 'potential energy', 'J'], ['dissipated', 'dissipated', 'J'],
    ['e_total', 'total energy', 'J'],
  ];
  const head = document.createElement('tr');
  head.innerHTML = '<th></th>' + replay.runs.map((r, i) => `<th style="color:#${(multi ? runColour(i) : 0x333333).toString(16).padStart(6, '0')}">${multi ? escapeHtml(r.model) : ''}</th>`).join('');
  table.appendChild(head);
  const cells = keys.map(([, label]) => {
    const tr = document.createElement('tr');
    tr.innerHTML = `<td>${label}</td>` + replay.runs.map(() => '<td class="num"></td>').join('');
    table.appendChild(tr);
    return [...tr.querySelectorAll('td.num')];
  });

  return {
    on(name, fn) {
      handlers[name] = fn;
    },
    sync(s) {
      for (const key of ['bodies', 'xray', 'frames', 'points', 'forces', 'totals', 'planes', 'loop']) {
        $(`show-${key}`).checked = s[key];
      }
      $('layout').value = s.layout;
      followSel.value = s.follow;
      bodySel.value = s.selected;
      speedSel.value = String(s.speed);
    },
    show(s, views, scale) {
      slider.value = s.t;
      $('clock').textContent = `t = ${s.t.toFixed(3)} s / ${duration.toFixed(3)} s`;
      $('play').textContent = s.playing ? '❚❚ pause' : '▶ play';
      // the arrow scale: an arrow of this length stands for this force
      $('scale').textContent = `${fmtNum(s.forceUnit)} N = ${fmtLength(s.forceUnit * scale)}`;
      // a run whose CSV ends before this time (it failed, or was stopped) shows no numbers here,
      // and says where it ended, rather than its last values as if it were still going; and so
      // does one whose CSV starts after it (continued from a checkpoint), rather than its first
      const ended = views.map((v) => v.run.t.length > 0 && s.t > v.run.t[v.run.t.length - 1] + 1e-12);
      const unborn = views.map((v) => v.run.t.length > 0 && s.t < v.run.t[0] - 1e-12);
      keys.forEach(([key, , unit], j) => {
        views.forEach((v, i) => {
          const live = { ...v.live, ...v.bodyNumbers(s.selected) };
          cells[j][i].textContent = ended[i] || unborn[i] ? '–' : fmt(live[key], unit);
        });
      });
      const stops = views.flatMap((v) => v.activeStops || []);
      const notes = views.flatMap((v, i) => {
        const who = multi ? `${v.run.model}: ` : '';
        return ended[i] ? [`${who}the run ends at t = ${fmtNum(v.run.t[v.run.t.length - 1])} s (its CSV ends there)`]
          : unborn[i] ? [`${who}the run starts at t = ${fmtNum(v.run.t[0])} s (its CSV starts there)`] : [];
      });
      if (stops.length) notes.push(`active stops: ${[...new Set(stops)].join(', ')}`);
      $('stops').textContent = notes.join('; ');
    },
  };
}


// four significant digits, without trailing zeros; exponent form for very small or large
function fmtNum(x) {
  const a = Math.abs(x);
  if (a !== 0 && (a < 1e-3 || a >= 1e5)) {
    return x.toExponential(3);
  }
  return String(parseFloat(x.toPrecision(4)));
}


function fmtLength(m) {
  return m >= 1 ? `${fmtNum(m)} m` : m >= 0.01 ? `${fmtNum(m * 100)} cm` : `${fmtNum(m * 1000)} mm`;
}


function escapeHtml(s) {
  return String(s).replace(/[&<>"']/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[c]);
}


// show what went wrong on the page rather than leaving it blank
try {
  main();
} catch (e) {
  const box = document.getElementById('error');
  box.style.display = 'block';
  box.textContent = `The replay could not be shown: ${e.message}`;
  throw e;
}
