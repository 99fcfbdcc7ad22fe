// data.js: the replay's data as the contactsim writer embeds it (docs/replay.md), decoded into
// typed arrays, with the lookups the page makes every frame: the report row at a time, the
// interpolated pose of a body, the extent of the motion.
//
// The writer stores every time series row-major (one report row after the other) as plain JSON
// numbers rounded to about six significant digits; null stands for a value the CSV left
// undefined (the centre of pressure of a contact set off the ground). Float32 keeps them: six
// digits is what float32 holds, and it halves what the browser keeps in memory for large scenes.

// a JSON array of numbers (or nulls) as a Float32Array, NaN for null
function floats(a) {
  const out = new Float32Array(a ? a.length : 0);
  for (let i = 0; i < out.length; i++) {
    const v = a[i];
    out[i] = v === null ? NaN : v;
  }
  return out;
}


// Decode the embedded object in place: every series becomes a typed array, and each run gets
// its duration. Returns the same object.
export function decodeReplay(d) {
  for (const run of d.runs) {
    run.t = Float64Array.from(run.t);
    run.p = floats(run.p);
    run.q = floats(run.q);
    run.v = floats(run.v);
    run.energy = floats(run.energy);
    run.cf = run.forces ? floats(run.cf) : null;
    run.cp = run.forces ? floats(run.cp) : null;
    run.sf = run.forces ? floats(run.sf) : null;
    run.cop = run.forces ? floats(run.cop) : null;
    run.stop = floats(run.stop);
    run.bf = run.bushing_forces ? floats(run.bf) : null;
    run.rows = run.t.length;
    run.duration = run.rows ? run.t[run.rows - 1] : 0;
    run.start = run.rows ? run.t[0] : 0;
  }
  // where each body's shape is centred: its centre of mass
  for (const b of d.bodies) {
    b.centre = b.com;
  }
  // a body without a shape whose point contacts span a volume (the corners of a block) is
  // drawn as their bounding box, in every run of a comparison when any run has them as points
  // (a model of spheres listed first gave the others a glyph)
  d.bodies.forEach((b, k) => {
    if (b.shape) {
      return;
    }
    const lo = [Infinity, Infinity, Infinity];
    const hi = [-Infinity, -Infinity, -Infinity];
    let n = 0;
    const points = d.runs.find((r) => r.contacts.some((c) => c.body === k && c.type !== 'sphere'));
    for (const c of points ? points.contacts : []) {
      if (c.body !== k || c.type === 'sphere') {
        continue;
      }
      n++;
      for (let j = 0; j < 3; j++) {
        lo[j] = Math.min(lo[j], c.station[j]);
        hi[j] = Math.max(hi[j], c.station[j]);
      }
    }
    const half = [0, 1, 2].map((j) => 0.5 * (hi[j] - lo[j]));
    if (n >= 4 && half.every((h) => h > 0)) {
      b.shape = { type: 'box', size: half };
      b.shape_from = 'contacts';
      b.centre = [0, 1, 2].map((j) => 0.5 * (hi[j] + lo[j]));
    }
  });
  return d;
}


// The report row at or before time t and the fraction of the way to the next one:
// {i, a} with t = t[i] + a (t[i+1] - t[i]); a = 0 at and past the last row.
export function rowAt(run, t) {
  const ts = run.t;
  const n = ts.length;
  if (n === 0 || t <= ts[0]) {
    return { i: 0, a: 0 };
  }
  if (t >= ts[n - 1]) {
    return { i: n - 1, a: 0 };
  }
  // binary search for the last row with ts[i] <= t
  let lo = 0;
  let hi = n - 1;
  while (hi - lo > 1) {
    const mid = (lo + hi) >> 1;
    if (ts[mid] <= t) {
      lo = mid;
    } else {
      hi = mid;
    }
  }
  return { i: lo, a: (t - ts[lo]) / (ts[lo + 1] - ts[lo]) };
}


// linear interpolation of `width` consecutive values of series s for body (or contact) k at
// row r, into out[0 .. width-1]
export function lerpInto(out, s, count, width, r, k) {
  const i0 = (r.i * count + k) * width;
  if (r.a === 0) {
    for (let j = 0; j < width; j++) {
      out[j] = s[i0 + j];
    }
    return out;
  }
  const i1 = i0 + count * width;
  for (let j = 0; j < width; j++) {
    out[j] = s[i0 + j] + r.a * (s[i1 + j] - s[i0 + j]);
  }
  return out;
}


// The orientation of body k at row r: normalised linear interpolation of the two quaternions
// (w, x, y, z), taking the shorter way round; out gets w, x, y, z.
export function quatInto(out, run, nbody, r, k) {
  const q = run.q;
  const i0 = (r.i * nbody + k) * 4;
  // at a row, the row's own quaternion, normalised as between rows (a CSV edited by hand may
  // hold one of another length, which drew the body stretched)
  const i1 = r.a === 0 ? i0 : i0 + nbody * 4;
  const dot = q[i0] * q[i1] + q[i0 + 1] * q[i1 + 1] + q[i0 + 2] * q[i1 + 2] + q[i0 + 3] * q[i1 + 3];
  const s = dot < 0 ? -1 : 1;
  let n = 0;
  for (let j = 0; j < 4; j++) {
    out[j] = q[i0 + j] + r.a * (s * q[i1 + j] - q[i0 + j]);
    n += out[j] * out[j];
  }
  n = Math.sqrt(n) || 1;
  for (let j = 0; j < 4; j++) {
    out[j] /= n;
  }
  return out;
}


// The box holding every body origin over every run, and a length typical of the bodies (half
// the median shape size, 0.05 m when no body has a shape): what the camera, the ground tiles,
// the glyphs and the arrows are sized from.
export function sceneExtent(d) {
  const lo = [Infinity, Infinity, Infinity];
  const hi = [-Infinity, -Infinity, -Infinity];
  const nb = d.bodies.length;
  for (const run of d.runs) {
    const p = run.p;
    for (let i = 0; i + 2 < p.length; i += 3) {
      for (let j = 0; j < 3; j++) {
        const v = p[i + j];
        if (v < lo[j]) lo[j] = v;
        if (v > hi[j]) hi[j] = v;
      }
    }
  }
  if (nb === 0 || !isFinite(lo[0])) {
    lo.fill(-0.5);
    hi.fill(0.5);
  }
  // the size of each shape: its largest half extent
  const sizes = [];
  for (const b of d.bodies) {
    if (b.shape) {
      const s = b.shape.size;
      sizes.push(b.shape.type === 'sphere' ? s[0] : Math.max(s[0], s[1], s[2]));
    }
  }
  // stations of contacts also tell how large a body is
  for (const run of d.runs) {
    for (const c of run.contacts) {
      sizes.push(Math.hypot(c.station[0], c.station[1], c.station[2]) + (c.radius || 0));
    }
  }
  sizes.sort((x, y) => x - y);
  let body = sizes.length ? sizes[sizes.length >> 1] : 0.05;
  if (!(body > 0)) {
    body = 0.05;
  }
  // the motion plus a margin of a few bodies on every side
  for (let j = 0; j < 3; j++) {
    lo[j] -= 2 * body;
    hi[j] += 2 * body;
  }
  return { lo, hi, body };
}


// A round number (1, 2 or 5 times a power of ten) near x, for scales a person reads.
export function roundNice(x) {
  if (!(x > 0) || !isFinite(x)) {
    return 1;
  }
  const e = Math.floor(Math.log10(x));
  const f = x / Math.pow(10, e);
  const m = f < 1.5 ? 1 : f < 3.5 ? 2 : f < 7.5 ? 5 : 10;
  return m * Math.pow(10, e);
}
