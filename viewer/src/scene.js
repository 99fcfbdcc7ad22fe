// scene.js: the three.js objects of one run (bodies, frames, contacts, force arrows, planes,
// stops and bushings) and the update that poses them for a time.
//
// Everything that comes in numbers (bodies of one shape, contact points, arrows) is one
// InstancedMesh, so that a thousand bodies with eight thousand contacts are a handful of draw
// calls; instance matrices are written straight into the mesh's Float32Array from the decoded
// series, without a three.js object per body. Instances that are not shown this frame (a force
// too small to draw) are left out by packing the shown ones first and setting mesh.count,
// rather than drawn with zero scale, so that the renderer does not even transform them.
import * as THREE from 'three';
import { lerpInto, quatInto, rowAt } from './data.js';

// colours: component of a force, centre of pressure, stops, frames
export const COLOURS = {
  normal: 0xe4572e,     // normal part of a contact force
  friction: 0x2e86de,   // friction (tangential) part
  total: 0xf1c40f,      // total force of a contact set, drawn at its centre of pressure
  point: 0x222222,      // contact station on its body
  touching: 0xd62728,   // reported contact point while the contact carries force
  sphere: 0x9b59b6,     // contact sphere
  active: 0xff2d55,     // a stop or bushing that is pushing
  bushing: 0x8e44ad,
};

// geometries shared by every run: unit shapes scaled per instance
const GEOMETRY = {
  box: new THREE.BoxGeometry(2, 2, 2),
  sphere: new THREE.SphereGeometry(1, 24, 16),
  // three's cylinder runs along y: turn it to run along z, the scene format's cylinder axis
  cylinder: new THREE.CylinderGeometry(1, 1, 2, 24).rotateX(Math.PI / 2),
  glyph: new THREE.OctahedronGeometry(1, 0),
  dot: new THREE.IcosahedronGeometry(1, 0),
  ball: new THREE.IcosahedronGeometry(1, 2),
  // arrows along +y from the origin: shaft of unit length, head of unit length
  shaft: new THREE.CylinderGeometry(1, 1, 1, 6, 1, true).translate(0, 0.5, 0),
  head: new THREE.ConeGeometry(1, 1, 8).translate(0, 0.5, 0),
};

// Above this many contact elements in a run, force arrows are flat (a quad and a triangle,
// unlit, turned about their axis to face the camera) instead of solid cylinders and cones: a
// thousand-body pile has 4,000 contacts, and 8,000 solid arrows are over half a million
// triangles a frame, far more than a software renderer draws at 30 fps. (Lines would be fewer
// vertices, but WebGL on Vulkan emulates each line with a quad and a discard: they cost more.)
export const SOLID_ARROWS_MAX = 400;

// a flat arrow part in the x-y plane along +y from 0 to 1, of half width 1: shaft a quad,
// head a triangle
function flat(shape) {
  const v = [];
  for (const [x, y] of shape) {
    v.push(x, y, 0);
  }
  const g = new THREE.BufferGeometry();
  g.setAttribute('position', new THREE.Float32BufferAttribute(v, 3));
  return g;
}
GEOMETRY.flatShaft = flat([[-1, 0], [1, 0], [1, 1], [-1, 0], [1, 1], [-1, 1]]);
GEOMETRY.flatHead = flat([[-1, 0], [1, 0], [0, 1]]);

// a round dot for point sprites: contact stations and points are GL points, one vertex each
function dotTexture() {
  const n = 32;
  const data = new Uint8Array(n * n * 4);
  for (let y = 0; y < n; y++) {
    for (let x = 0; x < n; x++) {
      const r = Math.hypot(x + 0.5 - n / 2, y + 0.5 - n / 2) / (n / 2);
      const i = (y * n + x) * 4;
      data[i] = data[i + 1] = data[i + 2] = 255;
      data[i + 3] = r < 0.8 ? 255 : r < 1 ? Math.round(255 * (1 - r) / 0.2) : 0;
    }
  }
  const tex = new THREE.DataTexture(data, n, n);
  tex.needsUpdate = true;
  return tex;
}
const DOT = dotTexture();


// GL points with room for n, drawn in `colour`, `px` pixels across
function pointCloud(n, colour, px) {
  const geo = new THREE.BufferGeometry();
  geo.setAttribute('position', new THREE.BufferAttribute(new Float32Array(Math.max(n, 1) * 3), 3).setUsage(THREE.DynamicDrawUsage));
  geo.setDrawRange(0, n);
  const cloud = new THREE.Points(geo, new THREE.PointsMaterial({
    color: colour, size: px, sizeAttenuation: false, map: DOT, alphaTest: 0.5, depthTest: true,
  }));
  cloud.frustumCulled = false;
  return cloud;
}


// Write into m (a Float32Array) at offset o the matrix of pose (p, quaternion w x y z) applied
// to a local offset c and a scale s: world = p + R c, columns R scaled by s.
function poseMatrix(m, o, p, q, c, sx, sy, sz) {
  const w = q[0];
  const x = q[1];
  const y = q[2];
  const z = q[3];
  // rotation matrix of the unit quaternion, row-major r[row][col]
  const r00 = 1 - 2 * (y * y + z * z);
  const r01 = 2 * (x * y - w * z);
  const r02 = 2 * (x * z + w * y);
  const r10 = 2 * (x * y + w * z);
  const r11 = 1 - 2 * (x * x + z * z);
  const r12 = 2 * (y * z - w * x);
  const r20 = 2 * (x * z - w * y);
  const r21 = 2 * (y * z + w * x);
  const r22 = 1 - 2 * (x * x + y * y);
  // three's matrices are column-major
  m[o] = r00 * sx;
  m[o + 1] = r10 * sx;
  m[o + 2] = r20 * sx;
  m[o + 3] = 0;
  m[o + 4] = r01 * sy;
  m[o + 5] = r11 * sy;
  m[o + 6] = r21 * sy;
  m[o + 7] = 0;
  m[o + 8] = r02 * sz;
  m[o + 9] = r12 * sz;
  m[o + 10] = r22 * sz;
  m[o + 11] = 0;
  m[o + 12] = p[0] + r00 * c[0] + r01 * c[1] + r02 * c[2];
  m[o + 13] = p[1] + r10 * c[0] + r11 * c[1] + r12 * c[2];
  m[o + 14] = p[2] + r20 * c[0] + r21 * c[1] + r22 * c[2];
  m[o + 15] = 1;
}


// rotate vector v by quaternion q (w x y z) into out
function rotate(out, q, v) {
  const w = q[0];
  const x = q[1];
  const y = q[2];
  const z = q[3];
  // t = 2 (q_vec x v); v' = v + w t + q_vec x t
  const tx = 2 * (y * v[2] - z * v[1]);
  const ty = 2 * (z * v[0] - x * v[2]);
  const tz = 2 * (x * v[1] - y * v[0]);
  out[0] = v[0] + w * tx + (y * tz - z * ty);
  out[1] = v[1] + w * ty + (z * tx - x * tz);
  out[2] = v[2] + w * tz + (x * ty - y * tx);
  return out;
}


// Write an arrow from base b along vector f, length |f| * scale, as a shaft and a head instance.
// With eye (a point), the arrow's local x axis is turned about the arrow to lie across the line
// of sight, so that a flat arrow faces the eye. Returns 0 when the arrow is too short to draw
// (nothing written).
function arrowMatrices(shaft, head, o, b, f, scale, radius, minLength, eye) {
  const n = Math.hypot(f[0], f[1], f[2]);
  const len = n * scale;
  if (!(len > minLength)) {
    return 0;
  }
  const d0 = f[0] / n;
  const d1 = f[1] / n;
  const d2 = f[2] / n;
  // a unit vector u perpendicular to d, and w = u x d, so that (u, d, w) is right-handed
  let u0;
  let u1;
  let u2;
  const e0 = eye ? eye[0] - b[0] : 0;
  const e1 = eye ? eye[1] - b[1] : 0;
  const e2 = eye ? eye[2] - b[2] : 0;
  if (eye && Math.abs(d1 * e2 - d2 * e1) + Math.abs(d2 * e0 - d0 * e2) + Math.abs(d0 * e1 - d1 * e0) > 1e-12) {
    // u = d x (eye - b): across the arrow and across the line of sight
    u0 = d1 * e2 - d2 * e1;
    u1 = d2 * e0 - d0 * e2;
    u2 = d0 * e1 - d1 * e0;
  } else if (Math.abs(d0) < 0.9) {
    // u = x x d, normalised
    u0 = 0;
    u1 = -d2;
    u2 = d1;
  } else {
    // u = y x d
    u0 = d2;
    u1 = 0;
    u2 = -d0;
  }
  const un = Math.hypot(u0, u1, u2);
  u0 /= un;
  u1 /= un;
  u2 /= un;
  const w0 = u1 * d2 - u2 * d1;
  const w1 = u2 * d0 - u0 * d2;
  const w2 = u0 * d1 - u1 * d0;
  // the head is at most a third of the arrow and at most 6 shaft radii long
  const hl = Math.min(len / 3, 6 * radius);
  const sl = len - hl;
  const write = (m, r, l, px, py, pz) => {
    m[o] = u0 * r;
    m[o + 1] = u1 * r;
    m[o + 2] = u2 * r;
    m[o + 3] = 0;
    m[o + 4] = d0 * l;
    m[o + 5] = d1 * l;
    m[o + 6] = d2 * l;
    m[o + 7] = 0;
    m[o + 8] = w0 * r;
    m[o + 9] = w1 * r;
    m[o + 10] = w2 * r;
    m[o + 11] = 0;
    m[o + 12] = px;
    m[o + 13] = py;
    m[o + 14] = pz;
    m[o + 15] = 1;
  };
  write(shaft, radius, sl, b[0], b[1], b[2]);
  write(head, 2.2 * radius, hl, b[0] + d0 * sl, b[1] + d1 * sl, b[2] + d2 * sl);
  return 1;
}


// Instances baked into one plain mesh: the vertices of every instance transformed on the CPU,
// once per frame in which a matrix changed, just before the mesh is drawn. It stands in for an
// InstancedMesh (the same instanceMatrix.array, count, getMatrixAt, setColorAt) where there are
// many instances: software renderers pay for each instance of an instanced draw, and a thousand
// boxes drawn as one mesh of 24,000 vertices go twice as fast in SwiftShader as a thousand
// instances, while transforming the vertices costs the page about a millisecond. The owner
// calls sync() once the frame's matrices are written (before drawing, so the frame drawn is the
// frame posed).
class MergedInstances extends THREE.Mesh {
  constructor(base, material, capacity) {
    const cap = Math.max(capacity, 1);
    const nv = base.attributes.position.count;
    const geo = new THREE.BufferGeometry();
    const hasNormal = !!base.attributes.normal;
    geo.setAttribute('position', new THREE.BufferAttribute(new Float32Array(cap * nv * 3), 3).setUsage(THREE.DynamicDrawUsage));
    if (hasNormal) {
      geo.setAttribute('normal', new THREE.BufferAttribute(new Float32Array(cap * nv * 3), 3).setUsage(THREE.DynamicDrawUsage));
    }
    geo.setAttribute('color', new THREE.BufferAttribute(new Float32Array(cap * nv * 3).fill(1), 3));
    const idx = base.index ? base.index.array : null;
    if (idx) {
      const all = new Uint32Array(cap * idx.length);
      for (let i = 0; i < cap; i++) {
        for (let j = 0; j < idx.length; j++) {
          all[i * idx.length + j] = idx[j] + i * nv;
        }
      }
      geo.setIndex(new THREE.BufferAttribute(all, 1));
    }
    material.vertexColors = true;
    super(geo, material);
    this.base = base;
    this.nv = nv;
    this.ni = idx ? idx.length : nv;
    this.hasNormal = hasNormal;
    this.frustumCulled = false;
    this.dirty = true;
    this.colourDirty = false;
    const self = this;
    this.instanceMatrix = {
      array: new Float32Array(cap * 16),
      set needsUpdate(v) {
        self.dirty = self.dirty || v;
      },
    };
    this.instanceColor = {
      set needsUpdate(v) {
        self.colourDirty = self.colourDirty || v;
      },
    };
    this.count = capacity;
  }

  get count() {
    return this._count;
  }

  set count(n) {
    this._count = n;
    this.geometry.setDrawRange(0, n * this.ni);
  }

  getMatrixAt(i, m) {
    m.fromArray(this.instanceMatrix.array, 16 * i);
  }

  setColorAt(i, c) {
    const col = this.geometry.attributes.color.array;
    for (let v = 0; v < this.nv; v++) {
      const o = (i * this.nv + v) * 3;
      col[o] = c.r;
      col[o + 1] = c.g;
      col[o + 2] = c.b;
    }
    this.colourDirty = true;
  }

  getColorAt(i, c) {
    const col = this.geometry.attributes.color.array;
    const o = i * this.nv * 3;
    c.setRGB(col[o], col[o + 1], col[o + 2]);
  }

  // transform the base vertices (and normals) of the shown instances by their matrices
  sync() {
    if (this.colourDirty) {
      this.geometry.attributes.color.needsUpdate = true;
      this.colourDirty = false;
    }
    if (!this.dirty) {
      return;
    }
    this.dirty = false;
    const m = this.instanceMatrix.array;
    const bp = this.base.attributes.position.array;
    const bn = this.hasNormal ? this.base.attributes.normal.array : null;
    const pos = this.geometry.attributes.position.array;
    const nor = this.hasNormal ? this.geometry.attributes.normal.array : null;
    const nv = this.nv;
    for (let i = 0; i < this._count; i++) {
      const o = 16 * i;
      const a0 = m[o], a1 = m[o + 1], a2 = m[o + 2];
      const b0 = m[o + 4], b1 = m[o + 5], b2 = m[o + 6];
      const c0 = m[o + 8], c1 = m[o + 9], c2 = m[o + 10];
      const t0 = m[o + 12], t1 = m[o + 13], t2 = m[o + 14];
      // normals go through the inverse transpose: for rotation times a diagonal scale that is
      // the matrix itself with each column divided by its squared length
      const sa = 1 / (a0 * a0 + a1 * a1 + a2 * a2 || 1);
      const sb = 1 / (b0 * b0 + b1 * b1 + b2 * b2 || 1);
      const sc = 1 / (c0 * c0 + c1 * c1 + c2 * c2 || 1);
      for (let v = 0; v < nv; v++) {
        const j = 3 * v;
        const x = bp[j], y = bp[j + 1], z = bp[j + 2];
        const w = 3 * (i * nv + v);
        pos[w] = a0 * x + b0 * y + c0 * z + t0;
        pos[w + 1] = a1 * x + b1 * y + c1 * z + t1;
        pos[w + 2] = a2 * x + b2 * y + c2 * z + t2;
        if (nor) {
          const nx = bn[j] * sa, ny = bn[j + 1] * sb, nz = bn[j + 2] * sc;
          const qx = a0 * nx + b0 * ny + c0 * nz;
          const qy = a1 * nx + b1 * ny + c1 * nz;
          const qz = a2 * nx + b2 * ny + c2 * nz;
          const l = 1 / (Math.hypot(qx, qy, qz) || 1);
          nor[w] = qx * l;
          nor[w + 1] = qy * l;
          nor[w + 2] = qz * l;
        }
      }
    }
    this.geometry.attributes.position.needsUpdate = true;
    if (nor) {
      this.geometry.attributes.normal.needsUpdate = true;
    }
  }
}


// above this many instances a mesh is merged (MergedInstances) rather than instanced
export const MERGE_MIN = 64;

function instanced(geometry, material, count) {
  if (count > MERGE_MIN) {
    return new MergedInstances(geometry, material, count);
  }
  const mesh = new THREE.InstancedMesh(geometry, material, Math.max(count, 1));
  mesh.count = count;
  mesh.instanceMatrix.setUsage(THREE.DynamicDrawUsage);
  // instances move anywhere: the whole-mesh bounding sphere would be stale, so never cull
  mesh.frustumCulled = false;
  return mesh;
}




// The objects of one run. `colour` tints its bodies (null: a colour per body), ext is
// sceneExtent's result. Call update(t, opts) to pose everything for time t.
export class RunView {
  constructor(replay, run, index, colour, ext) {
    this.replay = replay;
    this.run = run;
    this.index = index;
    this.ext = ext;
    this.group = new THREE.Group();
    this.group.name = `run:${run.model}`;
    const bodies = replay.bodies;
    const nb = bodies.length;
    this.nb = nb;
    const size = ext.body;

    // bodies: one InstancedMesh per shape kind; a body without shape is a glyph
    this.shapes = {};
    this.bodyMesh = new Array(nb);      // which mesh draws body k
    this.bodySlot = new Int32Array(nb); // and its instance there
    this.bodyScale = [];                // scale of the unit geometry, per body
    this.bodyColour = [];
    const kinds = {};
    bodies.forEach((b, k) => {
      const kind = b.shape ? b.shape.type : 'glyph';
      (kinds[kind] = kinds[kind] || []).push(k);
    });
    for (const [kind, list] of Object.entries(kinds)) {
      // Lambert rather than physically based shading: a tenth of the fragment work, which is
      // what a software renderer spends its time on
      const mat = new THREE.MeshLambertMaterial({ color: 0xffffff, transparent: true, opacity: 1 });
      const mesh = instanced(GEOMETRY[kind], mat, list.length);
      mesh.name = `bodies:${kind}`;
      list.forEach((k, slot) => {
        this.bodyMesh[k] = mesh;
        this.bodySlot[k] = slot;
        const c = new THREE.Color(colour !== null ? colour : bodyColour(k));
        this.bodyColour[k] = c;
        mesh.setColorAt(slot, c);
      });
      this.shapes[kind] = { mesh, list };
      this.group.add(mesh);
    }
    bodies.forEach((b, k) => {
      const s = b.shape;
      if (!s) {
        this.bodyScale[k] = [0.35 * size, 0.35 * size, 0.35 * size];
      } else if (s.type === 'box') {
        this.bodyScale[k] = [s.size[0], s.size[1], s.size[2]];
      } else if (s.type === 'sphere') {
        this.bodyScale[k] = [s.size[0], s.size[0], s.size[0]];
      } else {
        this.bodyScale[k] = [s.size[0], s.size[0], s.size[1]];
      }
    });

    // body frames: three line segments per body, red x, green y, blue z
    const fpos = new Float32Array(nb * 18);
    const fcol = new Float32Array(nb * 18);
    for (let k = 0; k < nb; k++) {
      for (let a = 0; a < 3; a++) {
        for (let v = 0; v < 2; v++) {
          const i = k * 18 + a * 6 + v * 3;
          fcol[i + a] = 1;
          fcol[i + (a + 1) % 3] = 0.15 * v;
          fcol[i + (a + 2) % 3] = 0.15 * v;
        }
      }
    }
    const fgeo = new THREE.BufferGeometry();
    fgeo.setAttribute('position', new THREE.BufferAttribute(fpos, 3).setUsage(THREE.DynamicDrawUsage));
    fgeo.setAttribute('color', new THREE.BufferAttribute(fcol, 3));
    this.frames = new THREE.LineSegments(fgeo, new THREE.LineBasicMaterial({ vertexColors: true, depthTest: false, transparent: true }));
    this.frames.renderOrder = 2;
    this.frames.frustumCulled = false;
    this.frames.name = 'frames';
    this.group.add(this.frames);
    this.frameLength = bodies.map((b) => {
      const s = this.bodyScale[bodies.indexOf(b)];
      return 1.4 * Math.max(s[0], s[1], s[2]);
    });

    // contacts: stations (point models) and spheres (sphere models) on their bodies
    const contacts = run.contacts;
    this.points = contacts.filter((c) => c.type !== 'sphere');
    this.spheres = contacts.filter((c) => c.type === 'sphere');
    this.pointIndex = contacts.map((c, i) => i).filter((i) => contacts[i].type !== 'sphere');
    this.sphereIndex = contacts.map((c, i) => i).filter((i) => contacts[i].type === 'sphere');
    this.dotRadius = 0.08 * size;
    this.stationMesh = pointCloud(this.points.length, COLOURS.point, 6);
    this.stationMesh.name = 'contact-stations';
    this.sphereMesh = instanced(GEOMETRY.ball, new THREE.MeshLambertMaterial({
      color: COLOURS.sphere, transparent: true, opacity: 0.35, depthWrite: false,
    }), this.spheres.length);
    this.sphereMesh.name = 'contact-spheres';
    this.group.add(this.stationMesh, this.sphereMesh);

    // reported contact points and force arrows (only with the CSV's force columns)
    const nc = contacts.length;
    const ns = run.sets.length;
    const arrowMat = (c) => new THREE.MeshLambertMaterial({ color: c });
    this.touchMesh = pointCloud(nc, COLOURS.touching, 8);
    this.touchMesh.name = 'contact-points';
    this.arrows = {};
    this.flatArrows = nc > SOLID_ARROWS_MAX;
    for (const [name, count] of [['normal', nc], ['friction', nc], ['total', ns], ['bushing', (replay.bushings || []).length]]) {
      const flat = this.flatArrows;
      const mat = flat ? new THREE.MeshBasicMaterial({ color: COLOURS[name], side: THREE.DoubleSide }) : arrowMat(COLOURS[name]);
      const shaft = instanced(flat ? GEOMETRY.flatShaft : GEOMETRY.shaft, mat, count);
      const head = instanced(flat ? GEOMETRY.flatHead : GEOMETRY.head, mat, count);
      shaft.name = `arrows:${name}`;
      head.name = `arrows:${name}:head`;
      this.arrows[name] = { shaft, head, count: 0 };
      this.group.add(shaft, head);
    }
    this.copMesh = pointCloud(ns, COLOURS.total, 11);
    this.copMesh.name = 'centres-of-pressure';
    this.group.add(this.touchMesh, this.copMesh);

    // planes: finite tiles with a grid, on their bodies
    this.planes = [];
    for (const pl of replay.planes) {
      const tile = this.planeTile(pl, ext);
      this.planes.push({ plane: pl, mesh: tile });
      this.group.add(tile);
    }

    // bushings: a line from one attachment to the other
    this.bushings = replay.bushings || [];
    const bpos = new Float32Array(Math.max(this.bushings.length, 1) * 6);
    const bgeo = new THREE.BufferGeometry();
    bgeo.setAttribute('position', new THREE.BufferAttribute(bpos, 3).setUsage(THREE.DynamicDrawUsage));
    bgeo.setAttribute('color', new THREE.BufferAttribute(new Float32Array(Math.max(this.bushings.length, 1) * 6), 3).setUsage(THREE.DynamicDrawUsage));
    this.bushingLines = new THREE.LineSegments(bgeo, new THREE.LineBasicMaterial({ vertexColors: true, depthTest: false, transparent: true }));
    // the largest bushing force of the run: a bushing's line goes from purple (no force) to red
    this.bushingMax = 0;
    if (run.bf) {
      for (let i = 0; i < run.bf.length; i += 3) {
        const f = Math.hypot(run.bf[i], run.bf[i + 1], run.bf[i + 2]);
        if (Number.isFinite(f)) this.bushingMax = Math.max(this.bushingMax, f);
      }
    }
    this.bushingLines.frustumCulled = false;
    this.bushingLines.renderOrder = 3;
    this.bushingLines.name = 'bushings';
    this.group.add(this.bushingLines);

    // scratch
    this.tp = new Float32Array(3);
    this.tq = new Float32Array(4);
    this.tv = new Float32Array(3);
    this.pose = { p: new Float32Array(nb * 3), q: new Float32Array(nb * 4) };
    this.live = {};
  }

  // a tile for plane pl: ground planes span the motion, planes on bodies a few body sizes
  planeTile(pl, ext) {
    let w;
    let h;
    let cx = 0;
    let cy = 0;
    if (pl.body < 0) {
      // the motion's box seen in the plane's frame (planes on ground: in Ground)
      const q = pl.quaternion;
      const inv = [q[0], -q[1], -q[2], -q[3]];
      let lo = [Infinity, Infinity];
      let hi = [-Infinity, -Infinity];
      const v = [0, 0, 0];
      const out = [0, 0, 0];
      for (let c = 0; c < 8; c++) {
        v[0] = (c & 1 ? ext.hi[0] : ext.lo[0]) - pl.position[0];
        v[1] = (c & 2 ? ext.hi[1] : ext.lo[1]) - pl.position[1];
        v[2] = (c & 4 ? ext.hi[2] : ext.lo[2]) - pl.position[2];
        rotate(out, inv, v);
        lo = [Math.min(lo[0], out[0]), Math.min(lo[1], out[1])];
        hi = [Math.max(hi[0], out[0]), Math.max(hi[1], out[1])];
      }
      const margin = 6 * ext.body;
      w = hi[0] - lo[0] + 2 * margin;
      h = hi[1] - lo[1] + 2 * margin;
      cx = 0.5 * (hi[0] + lo[0]);
      cy = 0.5 * (hi[1] + lo[1]);
    } else {
      w = h = 10 * ext.body;
    }
    // the tile, and grid lines a round cell apart (lines rather than a texture: a mipmapped
    // texture costs software renderers more than the rest of the scene together)
    const cell = niceCell(Math.max(w, h));
    const mesh = new THREE.Mesh(new THREE.PlaneGeometry(w, h).translate(cx, cy, 0),
      new THREE.MeshBasicMaterial({ color: 0xdcdfe3, side: THREE.DoubleSide }));
    const lines = [];
    const x0 = Math.ceil((cx - w / 2) / cell) * cell;
    const y0 = Math.ceil((cy - h / 2) / cell) * cell;
    for (let x = x0; x <= cx + w / 2; x += cell) {
      lines.push(x, cy - h / 2, 0, x, cy + h / 2, 0);
    }
    for (let y = y0; y <= cy + h / 2; y += cell) {
      lines.push(cx - w / 2, y, 0, cx + w / 2, y, 0);
    }
    const grid = new THREE.BufferGeometry();
    grid.setAttribute('position', new THREE.Float32BufferAttribute(lines, 3));
    mesh.add(new THREE.LineSegments(grid, new THREE.LineBasicMaterial({ color: 0xa9aeb6 })));
    mesh.name = `plane:${pl.name}`;
    mesh.matrixAutoUpdate = false;
    mesh.userData.cell = cell;
    return mesh;
  }

  // Pose everything for time t. opts: {frames, points, forces, totals, planes, forceScale,
  // showGroundPlanes}. Fills this.live with the numbers the panel shows.
  update(t, opts) {
    const run = this.run;
    const nb = this.nb;
    if (run.rows === 0) {
      return;
    }
    const r = rowAt(run, t);
    this.row = r;
    const P = this.pose.p;
    const Q = this.pose.q;
    const tp = this.tp;
    const tq = this.tq;
    // body poses at t
    for (let k = 0; k < nb; k++) {
      lerpInto(tp, run.p, nb, 3, r, k);
      quatInto(tq, run, nb, r, k);
      P.set(tp, 3 * k);
      Q.set(tq, 4 * k);
    }
    // bodies: shape centred on the centre of mass, in the body frame
    const bodies = this.replay.bodies;
    const stopActive = this.stopActive(r);
    for (const { mesh, list } of Object.values(this.shapes)) {
      const m = mesh.instanceMatrix.array;
      let recolour = false;
      for (let s = 0; s < list.length; s++) {
        const k = list[s];
        const sc = this.bodyScale[k];
        poseMatrix(m, 16 * s, P.subarray(3 * k, 3 * k + 3), Q.subarray(4 * k, 4 * k + 4),
          bodies[k].centre, sc[0], sc[1], sc[2]);
        if (stopActive) {
          const want = stopActive[k] ? ACTIVE : this.bodyColour[k];
          mesh.getColorAt(s, TMP_COLOUR);
          if (!TMP_COLOUR.equals(want)) {
            mesh.setColorAt(s, want);
            recolour = true;
          }
        }
      }
      mesh.instanceMatrix.needsUpdate = true;
      // see-through bodies show the contact forces inside them
      mesh.material.opacity = opts.xray ? 0.6 : 1;
      mesh.material.depthWrite = !opts.xray;
      if (recolour) {
        mesh.instanceColor.needsUpdate = true;
      }
    }
    // body frames
    this.frames.visible = opts.frames;
    if (opts.frames) {
      const fp = this.frames.geometry.attributes.position.array;
      const axis = [0, 0, 0];
      const out = [0, 0, 0];
      for (let k = 0; k < nb; k++) {
        const q = Q.subarray(4 * k, 4 * k + 4);
        for (let a = 0; a < 3; a++) {
          axis[0] = axis[1] = axis[2] = 0;
          axis[a] = this.frameLength[k];
          rotate(out, q, axis);
          const i = k * 18 + a * 6;
          fp[i] = P[3 * k];
          fp[i + 1] = P[3 * k + 1];
          fp[i + 2] = P[3 * k + 2];
          fp[i + 3] = P[3 * k] + out[0];
          fp[i + 4] = P[3 * k + 1] + out[1];
          fp[i + 5] = P[3 * k + 2] + out[2];
        }
      }
      this.frames.geometry.attributes.position.needsUpdate = true;
    }
    // planes on their bodies (ground planes: their fixed frame)
    for (const { plane, mesh } of this.planes) {
      mesh.visible = opts.planes && (plane.body >= 0 || opts.showGroundPlanes);
      const k = plane.body;
      const m = mesh.matrix.elements;
      if (k < 0) {
        poseMatrix(m, 0, plane.position, plane.quaternion, ZERO, 1, 1, 1);
      } else {
        // X_GP = X_GB X_BP
        const q = mulQuat(tq, Q.subarray(4 * k, 4 * k + 4), plane.quaternion);
        poseMatrix(m, 0, P.subarray(3 * k, 3 * k + 3), Q.subarray(4 * k, 4 * k + 4), plane.position, 1, 1, 1);
        const px = m[12];
        const py = m[13];
        const pz = m[14];
        poseMatrix(m, 0, [px, py, pz], q, ZERO, 1, 1, 1);
      }
      mesh.matrixWorldNeedsUpdate = true;
    }
    // contact stations and spheres, carried by their bodies
    this.stationMesh.visible = opts.points;
    this.sphereMesh.visible = opts.points;
    if (opts.points) {
      const sp = this.stationMesh.geometry.attributes.position;
      const out = [0, 0, 0];
      this.points.forEach((c, i) => {
        const k = c.body;
        rotate(out, Q.subarray(4 * k, 4 * k + 4), c.station);
        sp.array[3 * i] = P[3 * k] + out[0];
        sp.array[3 * i + 1] = P[3 * k + 1] + out[1];
        sp.array[3 * i + 2] = P[3 * k + 2] + out[2];
      });
      sp.needsUpdate = true;
      const bm = this.sphereMesh.instanceMatrix.array;
      this.spheres.forEach((c, i) => {
        const k = c.body;
        poseMatrix(bm, 16 * i, P.subarray(3 * k, 3 * k + 3), Q.subarray(4 * k, 4 * k + 4), c.station,
          c.radius, c.radius, c.radius);
      });
      this.sphereMesh.instanceMatrix.needsUpdate = true;
    }
    this.updateForces(r, opts, P, Q);
    this.updateBushings(P, Q, opts);
    // merged meshes take their new matrices now
    for (const obj of this.group.children) {
      if (obj instanceof MergedInstances && obj.visible) {
        obj.sync();
      }
    }
    this.updateLive(r);
  }

  // stop activity per body at row r (null when the scene has no stops)
  stopActive(r) {
    const stops = this.run.stops || [];
    if (!stops.length) {
      return null;
    }
    const active = this.activeScratch || (this.activeScratch = new Uint8Array(this.nb));
    active.fill(0);
    // the state of the nearer report row: a stop is engaged or not, there is no in between
    const i = r.a < 0.5 ? r.i : Math.min(r.i + 1, this.run.rows - 1);
    stops.forEach((s, j) => {
      if (this.run.stop[i * stops.length + j] > 0) {
        active[s.body] = 1;
      }
    });
    this.activeStops = stops.filter((s, j) => this.run.stop[i * stops.length + j] > 0).map((s) => s.name);
    return active;
  }

  // force arrows, reported contact points and centres of pressure
  updateForces(r, opts, P, Q) {
    const run = this.run;
    // the camera in this run's frame (the group is only translated)
    const g = this.group.position;
    this.eye = opts.eye ? [opts.eye[0] - g.x, opts.eye[1] - g.y, opts.eye[2] - g.z] : null;
    const contacts = run.contacts;
    const nc = contacts.length;
    const ns = run.sets.length;
    const show = run.forces && opts.forces;
    const showTotals = run.forces && opts.totals;
    const arrows = this.arrows;
    for (const a of Object.values(arrows)) {
      a.count = 0;
    }
    let ntouch = 0;
    let ncop = 0;
    let normalTotal = 0;
    if (run.forces) {
      const f = this.tv;
      const p = [0, 0, 0];
      const n = [0, 0, 0];
      const fn = [0, 0, 0];
      const ft = [0, 0, 0];
      const zq = [0, 0, 0];
      const scale = opts.forceScale;
      const radius = 0.035 * this.ext.body;
      const minLength = 0.5 * radius;
      const tp = this.touchMesh.geometry.attributes.position.array;
      for (let c = 0; c < nc; c++) {
        lerpInto(f, run.cf, nc, 3, r, c);
        lerpInto(p, run.cp, nc, 3, r, c);
        // the plane's normal in Ground now: its z axis, turned with its body if it has one
        const pl = this.replay.planes[contacts[c].plane];
        if (pl) {
          rotate(n, pl.quaternion, Z);
          if (pl.body >= 0) {
            rotate(zq, Q.subarray(4 * pl.body, 4 * pl.body + 4), n);
            n[0] = zq[0];
            n[1] = zq[1];
            n[2] = zq[2];
          }
        } else {
          n[0] = 0;
          n[1] = 0;
          n[2] = 1;
        }
        // normal part along the plane's normal, friction the rest
        const dot = f[0] * n[0] + f[1] * n[1] + f[2] * n[2];
        normalTotal += dot;
        for (let j = 0; j < 3; j++) {
          fn[j] = dot * n[j];
          ft[j] = f[j] - fn[j];
        }
        if (!show) {
          continue;
        }
        // the point where the force acts, while it carries a force worth drawing
        if (Math.hypot(f[0], f[1], f[2]) * scale > minLength) {
          tp[3 * ntouch] = p[0];
          tp[3 * ntouch + 1] = p[1];
          tp[3 * ntouch + 2] = p[2];
          ntouch++;
        }
        this.arrow(arrows.normal, p, fn, scale, radius, minLength);
        this.arrow(arrows.friction, p, ft, scale, radius, minLength);
      }
      // contact sets: the total force at the centre of pressure
      const cm = this.copMesh.geometry.attributes.position.array;
      for (let s = 0; s < ns && showTotals; s++) {
        lerpInto(f, run.sf, ns, 3, r, s);
        lerpInto(p, run.cop, ns, 3, r, s);
        if (!isFinite(p[0]) || !isFinite(p[1]) || !isFinite(p[2])) {
          continue;
        }
        // (a large scene marks the centre of pressure by the arrow's base alone)
        if (!this.flatArrows) {
          cm[3 * ncop] = p[0];
          cm[3 * ncop + 1] = p[1];
          cm[3 * ncop + 2] = p[2];
          ncop++;
        }
        this.arrow(arrows.total, p, f, scale, 1.6 * radius, minLength);
      }
    }
    // only what was written this frame is drawn
    for (const a of Object.values(arrows)) {
      for (const obj of [a.shaft, a.head]) {
        obj.visible = a.count > 0;
        obj.count = a.count;
        obj.instanceMatrix.needsUpdate = true;
      }
    }
    this.touchMesh.geometry.setDrawRange(0, ntouch);
    this.touchMesh.geometry.attributes.position.needsUpdate = true;
    this.touchMesh.visible = ntouch > 0;
    this.touching = ntouch;
    this.copMesh.geometry.setDrawRange(0, ncop);
    this.copMesh.geometry.attributes.position.needsUpdate = true;
    this.copMesh.visible = ncop > 0;
    this.live.normalForce = run.forces ? normalTotal : NaN;
  }

  // one arrow of force f at base b into a, if it is long enough to draw
  arrow(a, b, f, scale, radius, minLength) {
    if (arrowMatrices(a.shaft.instanceMatrix.array, a.head.instanceMatrix.array, 16 * a.count, b, f, scale, radius, minLength, this.flatArrows ? this.eye : null)) {
      a.count++;
    }
  }

  // bushing lines between the two attachment points, coloured by how much force the bushing
  // carries (when the CSV has its columns), with that force drawn on the second body
  updateBushings(P, Q, opts) {
    const n = this.bushings.length;
    const a = this.arrows.bushing;
    a.count = 0;
    this.bushingLines.visible = n > 0 && opts.points;
    if (!n) {
      return;
    }
    const pos = this.bushingLines.geometry.attributes.position.array;
    const col = this.bushingLines.geometry.attributes.color.array;
    const out = [0, 0, 0];
    const f = [0, 0, 0];
    const purple = new THREE.Color(COLOURS.bushing);
    const red = new THREE.Color(COLOURS.active);
    const run = this.run;
    this.bushings.forEach((b, j) => {
      const ends = [[b.body1, b.frame1], [b.body2, b.frame2]];
      ends.forEach(([k, x], e) => {
        if (k < 0) {
          out[0] = x[0];
          out[1] = x[1];
          out[2] = x[2];
        } else {
          rotate(out, Q.subarray(4 * k, 4 * k + 4), x);
          out[0] += P[3 * k];
          out[1] += P[3 * k + 1];
          out[2] += P[3 * k + 2];
        }
        pos.set(out, j * 6 + e * 3);
      });
      let load = 0;
      if (run.bf) {
        lerpInto(f, run.bf, n, 3, this.row, j);
        load = this.bushingMax > 0 ? Math.hypot(f[0], f[1], f[2]) / this.bushingMax : 0;
        if (opts.forces || opts.totals) {
          this.arrow(a, out, f, opts.forceScale, 0.05 * this.ext.body, 0.02 * this.ext.body);
        }
      }
      const c = purple.clone().lerp(red, load);
      for (let e = 0; e < 2; e++) {
        col[j * 6 + e * 3] = c.r;
        col[j * 6 + e * 3 + 1] = c.g;
        col[j * 6 + e * 3 + 2] = c.b;
      }
    });
    this.bushingLines.geometry.attributes.position.needsUpdate = true;
    this.bushingLines.geometry.attributes.color.needsUpdate = true;
    for (const obj of [a.shaft, a.head]) {
      obj.visible = a.count > 0;
      obj.count = a.count;
      obj.instanceMatrix.needsUpdate = true;
    }
  }

  // the numbers of the panel at row r
  updateLive(r) {
    const run = this.run;
    const e = [0, 0, 0, 0];
    lerpInto(e, run.energy, 1, 4, r, 0);
    this.live.ke = e[0];
    this.live.pe = e[1];
    this.live.dissipated = e[2];
    this.live.e_total = e[3];
  }

  // height and speed of body k at the last update
  bodyNumbers(k) {
    const v = [0, 0, 0];
    lerpInto(v, this.run.v, this.nb, 3, this.row, k);
    return { height: this.pose.p[3 * k + 2], speed: Math.hypot(v[0], v[1], v[2]) };
  }

  // The body origin and orientation of body k as drawn: read back from its instance matrix
  // (the shape sits at its centre, usually the centre of mass) and the group's world matrix,
  // in world coordinates of the page's scene (run offset included). {p: Vector3, q: Quaternion}
  drawnPose(k) {
    const mesh = this.bodyMesh[k];
    const m = new THREE.Matrix4();
    mesh.getMatrixAt(this.bodySlot[k], m);
    mesh.updateWorldMatrix(true, false);
    m.premultiply(mesh.matrixWorld);
    const pos = new THREE.Vector3();
    const rot = new THREE.Quaternion();
    const scl = new THREE.Vector3();
    m.decompose(pos, rot, scl);
    const c = this.replay.bodies[k].centre;
    const centre = new THREE.Vector3(c[0], c[1], c[2]).applyQuaternion(rot);
    return { p: pos.sub(centre), q: rot };
  }

  drawnOrigin(k) {
    return this.drawnPose(k).p;
  }
}


const ZERO = [0, 0, 0];
const Z = [0, 0, 1];
const ACTIVE = new THREE.Color(COLOURS.active);
const TMP_COLOUR = new THREE.Color();


// product of quaternions a b (w x y z) into out
function mulQuat(out, a, b) {
  const w = a[0] * b[0] - a[1] * b[1] - a[2] * b[2] - a[3] * b[3];
  const x = a[0] * b[1] + a[1] * b[0] + a[2] * b[3] - a[3] * b[2];
  const y = a[0] * b[2] - a[1] * b[3] + a[2] * b[0] + a[3] * b[1];
  const z = a[0] * b[3] + a[1] * b[2] - a[2] * b[1] + a[3] * b[0];
  out[0] = w;
  out[1] = x;
  out[2] = y;
  out[3] = z;
  return out;
}


// a round grid cell: 1, 2 or 5 times a power of ten, about a twentieth of the tile
function niceCell(span) {
  const x = span / 20;
  const e = Math.floor(Math.log10(x));
  const f = x / Math.pow(10, e);
  return (f < 1.5 ? 1 : f < 3.5 ? 2 : f < 7.5 ? 5 : 10) * Math.pow(10, e);
}


// a calm colour per body for a single run, by golden-angle hue steps
function bodyColour(k) {
  const c = new THREE.Color();
  c.setHSL((0.58 + 0.618034 * k) % 1, 0.6, 0.45);
  return c.getHex();
}
