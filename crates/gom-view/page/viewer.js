// gom view: draws a model skinned on the GPU with palettes from the GOM runtime.
// Data comes from the gom server (/api/...) or, in a self-contained file, from
// window.GOM_EMBED. GOM model space is left-handed, +Y up: the view mirrors Z.
"use strict";

const params = new URLSearchParams(location.search);
const TEST = params.get("test");
const errors = [];
function fail(message) {
  errors.push(String(message));
  const div = document.createElement("div");
  div.textContent = String(message);
  document.getElementById("errors").appendChild(div);
}
window.addEventListener("error", (e) => errors.push("error: " + e.message));
window.addEventListener("unhandledrejection", (e) => errors.push("rejection: " + e.reason));
const consoleError = console.error.bind(console);
console.error = (...args) => { errors.push("console.error: " + args.join(" ")); consoleError(...args); };

// ---------- data sources ----------
function b64ToBuffer(s) {
  const bin = atob(s);
  const out = new Uint8Array(bin.length);
  for (let i = 0; i < bin.length; i++) out[i] = bin.charCodeAt(i);
  return out.buffer;
}
async function getOk(url, kind) {
  const r = await fetch(url);
  if (!r.ok) {
    let detail = await r.text();
    try { detail = JSON.parse(detail).error || detail; } catch (_) { /* text */ }
    throw new Error(url + ": " + detail);
  }
  return kind === "json" ? r.json() : r.arrayBuffer();
}

const server = {
  models: () => getOk("api/models", "json"),
  manifest: (i) => getOk(`api/model/${i}`, "json"),
  geometry: (i) => getOk(`api/model/${i}/geometry`),
  textureUrl: (i, t) => `api/model/${i}/texture/${t}`,
  baked: (i, c) => getOk(`api/model/${i}/clip/${c}/baked`),
  clipBounds: (i, c) => getOk(`api/model/${i}/clip/${c}/bounds`, "json"),
  // The pose at exactly `t` seconds ("t" as a string, passed on unchanged).
  pose: (i, c, t) => getOk(c < 0 ? `api/model/${i}/pose` : `api/model/${i}/pose?clip=${c}&t=${t}`),
  canUpload: true,
};
function embedSource(e) {
  const baked = e.baked.map((b) => new Float32Array(b64ToBuffer(b)));
  return {
    models: async () => [{ index: 0, name: e.name }],
    manifest: async () => e.manifest,
    geometry: async () => b64ToBuffer(e.geometry),
    textureUrl: (i, t) => `data:${e.textures[t].mime};base64,${e.textures[t].data}`,
    baked: async (i, c) => baked[c].buffer,
    clipBounds: async (i, c) => e.clip_bounds[c],
    // Without the runtime, the nearest baked frame.
    pose: async (i, c, t) => {
      if (c < 0) return b64ToBuffer(e.bind);
      const clip = e.manifest.clips[c];
      const f = frameAt(clip, Number(t));
      const n = recordFloats(e.manifest);
      return baked[c].slice(f * n, (f + 1) * n).buffer;
    },
    canUpload: false,
  };
}
const source = window.GOM_EMBED ? embedSource(window.GOM_EMBED) : server;

function recordFloats(m) { return m.palette_entries * 12 + m.bones.length * 3 + m.morph_weights; }
function frameAt(clip, t) {
  const f = Math.round(Math.min(Math.max(t, 0), clip.duration) * clip.sample_rate);
  return Math.max(0, Math.min(clip.frames - 1, f));
}

// ---------- WebGL ----------
const canvas = document.getElementById("canvas");
const gl = canvas.getContext("webgl2", { antialias: !TEST, preserveDrawingBuffer: !!TEST });
if (!gl) fail("WebGL2 is not available in this browser.");

const SKIN_VS = `#version 300 es
precision highp float; precision highp int; precision highp sampler2D;
layout(location=0) in vec3 a_bindPos;
layout(location=1) in vec3 a_bindNrm;
layout(location=2) in vec2 a_uv;
layout(location=3) in uvec4 a_joints;
layout(location=4) in vec4 a_weights;
uniform sampler2D u_palette;
uniform int u_base;
uniform mat4 u_viewProj;
uniform int u_bone;
${MORPH_VS}
out vec3 v_model; out vec3 v_normal; out vec2 v_uv; out float v_weight;
vec4 col(int e, int j) { return texelFetch(u_palette, ivec2(j, e), 0); }
${GomSkin.GLSL}
void main() {
  morph();
  vec4 p = vec4(a_pos, 1.0);
  vec3 pos, nrm; float w;
  gomSkin(p, a_nrm, u_bone, pos, nrm, w);
  v_model = pos; v_normal = nrm; v_uv = a_uv; v_weight = w;
  gl_Position = u_viewProj * vec4(pos.xy, -pos.z, 1.0);
}`;
const SKIN_FS = `#version 300 es
precision highp float;
in vec3 v_model; in vec3 v_normal; in vec2 v_uv; in float v_weight;
uniform vec4 u_color; uniform sampler2D u_tex; uniform int u_hasTex; uniform int u_mode;
uniform vec3 u_eye;
out vec4 o;
vec3 ramp(float w) {
  return w < 0.5 ? mix(vec3(0.1, 0.2, 0.9), vec3(0.1, 0.9, 0.2), w * 2.0)
                 : mix(vec3(0.1, 0.9, 0.2), vec3(0.95, 0.15, 0.1), w * 2.0 - 1.0);
}
void main() {
  if (u_mode == 2) { o = vec4(0.05, 0.05, 0.05, 1.0); return; }
  vec3 world = vec3(v_model.xy, -v_model.z);
  vec3 n = vec3(v_normal.xy, -v_normal.z);
  if (dot(n, n) < 1e-6) n = cross(dFdx(world), dFdy(world));
  n = normalize(n);
  vec3 l = normalize(vec3(0.4, 0.8, 0.45));
  vec3 toEye = normalize(u_eye - world);
  float diffuse = 0.55 * abs(dot(n, l)) + 0.3 * abs(dot(n, toEye));
  vec4 base = u_color;
  if (u_hasTex == 1) base *= texture(u_tex, v_uv);
  if (u_mode == 1) base = vec4(ramp(clamp(v_weight, 0.0, 1.0)), 1.0);
  o = vec4(base.rgb * (0.25 + diffuse), 1.0);
}`;
const LINE_VS = `#version 300 es
layout(location=0) in vec3 a_pos;
layout(location=1) in vec3 a_color;
uniform mat4 u_viewProj;
out vec3 v_color;
void main() { v_color = a_color; gl_Position = u_viewProj * vec4(a_pos.xy, -a_pos.z, 1.0); }`;
const LINE_FS = `#version 300 es
precision mediump float;
in vec3 v_color; out vec4 o;
void main() { o = vec4(v_color, 1.0); }`;

function compile(type, src) {
  const s = gl.createShader(type);
  gl.shaderSource(s, src);
  gl.compileShader(s);
  if (!gl.getShaderParameter(s, gl.COMPILE_STATUS)) console.error(gl.getShaderInfoLog(s));
  return s;
}
function program(vs, fs, varyings) {
  const p = gl.createProgram();
  const shaders = [compile(gl.VERTEX_SHADER, vs), compile(gl.FRAGMENT_SHADER, fs)];
  for (const s of shaders) gl.attachShader(p, s);
  if (varyings) gl.transformFeedbackVaryings(p, varyings, gl.SEPARATE_ATTRIBS);
  gl.linkProgram(p);
  if (!gl.getProgramParameter(p, gl.LINK_STATUS)) console.error(gl.getProgramInfoLog(p));
  // The linked program keeps what it needs; the shader objects can go.
  for (const s of shaders) { gl.detachShader(p, s); gl.deleteShader(s); }
  const u = {};
  const count = gl.getProgramParameter(p, gl.ACTIVE_UNIFORMS);
  for (let i = 0; i < count; i++) {
    const name = gl.getActiveUniform(p, i).name;
    u[name] = gl.getUniformLocation(p, name);
  }
  return { p, u };
}
const skinProg = program(SKIN_VS, SKIN_FS);
const lineProg = program(LINE_VS, LINE_FS);

// ---------- matrices (column-major) ----------
function perspective(fovy, aspect, near, far) {
  const f = 1 / Math.tan(fovy / 2), nf = 1 / (near - far);
  return [f / aspect, 0, 0, 0, 0, f, 0, 0, 0, 0, (far + near) * nf, -1, 0, 0, 2 * far * near * nf, 0];
}
function sub(a, b) { return [a[0] - b[0], a[1] - b[1], a[2] - b[2]]; }
function cross(a, b) { return [a[1] * b[2] - a[2] * b[1], a[2] * b[0] - a[0] * b[2], a[0] * b[1] - a[1] * b[0]]; }
function norm(a) { const l = Math.hypot(a[0], a[1], a[2]) || 1; return [a[0] / l, a[1] / l, a[2] / l]; }
function dot(a, b) { return a[0] * b[0] + a[1] * b[1] + a[2] * b[2]; }
function lookAt(eye, target, up) {
  const z = norm(sub(eye, target)), x = norm(cross(up, z)), y = cross(z, x);
  return [x[0], y[0], z[0], 0, x[1], y[1], z[1], 0, x[2], y[2], z[2], 0, -dot(x, eye), -dot(y, eye), -dot(z, eye), 1];
}
function mul(a, b) {
  const o = new Array(16).fill(0);
  for (let c = 0; c < 4; c++) for (let r = 0; r < 4; r++) for (let k = 0; k < 4; k++) o[c * 4 + r] += a[k * 4 + r] * b[c * 4 + k];
  return o;
}

// ---------- state ----------
const state = {
  index: -1, manifest: null, meshes: [], palette: null, record: null,
  clip: -1, time: 0, playing: false, baked: [], bone: -1, boneLocked: -1,
  camera: { yaw: 0.6, pitch: 0.35, dist: 3, target: [0, 0, 0], radius: 1 },
  grid: null, bonesBuf: null, textures: [], hideModel: false, loadToken: 0,
  bindBounds: null,
};
const ui = (id) => document.getElementById(id);

function makeBuffer(target, data) {
  const b = gl.createBuffer();
  gl.bindBuffer(target, b);
  gl.bufferData(target, data, gl.STATIC_DRAW);
  return b;
}

// A vertex array with the mesh's attributes (locations as in SKIN_VS) and `indices`;
// the buffers it made go into `buffers`, to be deleted with it.
function meshVao(m, geometry, indices, buffers) {
  const vao = gl.createVertexArray();
  gl.bindVertexArray(vao);
  const n = m.vertices;
  const attr = (loc, size, offset) => {
    buffers.push(makeBuffer(gl.ARRAY_BUFFER, new Float32Array(geometry, offset, n * size)));
    gl.enableVertexAttribArray(loc);
    gl.vertexAttribPointer(loc, size, gl.FLOAT, false, 0, 0);
  };
  attr(0, 3, m.position);
  attr(1, 3, m.normal);
  attr(2, 2, m.uv);
  buffers.push(makeBuffer(gl.ARRAY_BUFFER, new Uint16Array(geometry, m.joints, n * 4)));
  gl.enableVertexAttribArray(3);
  gl.vertexAttribIPointer(3, 4, gl.UNSIGNED_SHORT, 0, 0);
  attr(4, 4, m.weights);
  GomSkin.attributes(gl, m, geometry, buffers);
  buffers.push(makeBuffer(gl.ELEMENT_ARRAY_BUFFER, indices));
  gl.bindVertexArray(null);
  return vao;
}

function buildMesh(m, geometry) {
  const indices = new Uint32Array(geometry, m.index, m.indices);
  // Wireframe: each triangle's three edges.
  const edges = new Uint32Array(indices.length * 2);
  for (let t = 0; t + 2 < indices.length; t += 3) {
    const a = indices[t], b = indices[t + 1], c = indices[t + 2];
    edges.set([a, b, b, c, c, a], t * 2);
  }
  const buffers = [];
  const vao = meshVao(m, geometry, indices, buffers), wireVao = meshVao(m, geometry, edges, buffers);
  return { m, vao, wireVao, buffers, edgeCount: edges.length, morph: morphBuild(m, geometry) };
}

// Deletes every GL object of the model shown, before another takes its place.
function disposeModel() {
  for (const mesh of state.meshes) {
    gl.deleteVertexArray(mesh.vao);
    gl.deleteVertexArray(mesh.wireVao);
    for (const b of mesh.buffers) gl.deleteBuffer(b);
    morphDispose(mesh);
  }
  for (const t of state.textures) if (t) gl.deleteTexture(t);
  for (const lines of [state.grid, state.bonesBuf]) if (lines) deleteLines(lines);
  if (state.palette) gl.deleteTexture(state.palette);
  Object.assign(state, { meshes: [], textures: [], grid: null, bonesBuf: null, palette: null, manifest: null, record: null });
}

function loadTexture(url) {
  return new Promise((resolve) => {
    const img = new Image();
    img.onload = () => {
      const t = gl.createTexture();
      gl.bindTexture(gl.TEXTURE_2D, t);
      gl.texImage2D(gl.TEXTURE_2D, 0, gl.RGBA, gl.RGBA, gl.UNSIGNED_BYTE, img);
      gl.generateMipmap(gl.TEXTURE_2D);
      gl.texParameteri(gl.TEXTURE_2D, gl.TEXTURE_MIN_FILTER, gl.LINEAR_MIPMAP_LINEAR);
      gl.texParameteri(gl.TEXTURE_2D, gl.TEXTURE_WRAP_S, gl.REPEAT);
      gl.texParameteri(gl.TEXTURE_2D, gl.TEXTURE_WRAP_T, gl.REPEAT);
      resolve(t);
    };
    img.onerror = () => { fail("a texture could not be decoded: " + url.slice(0, 80)); resolve(null); };
    img.src = url;
  });
}

async function selectModel(i) {
  const token = ++state.loadToken;
  const [manifest, geometry] = await Promise.all([source.manifest(i), source.geometry(i)]);
  if (token !== state.loadToken) return;
  const textureCount = manifest.materials.reduce((n, m) => Math.max(n, m.texture === null ? 0 : m.texture + 1), 0);
  const textures = await Promise.all([...Array(textureCount).keys()].map((t) => loadTexture(source.textureUrl(i, t))));
  if (token !== state.loadToken) { for (const t of textures) if (t) gl.deleteTexture(t); return; }
  disposeModel();
  state.index = i;
  state.manifest = manifest;
  state.meshes = manifest.meshes.map((m) => buildMesh(m, geometry));
  state.textures = textures;
  state.palette = gl.createTexture();
  gl.bindTexture(gl.TEXTURE_2D, state.palette);
  gl.texParameteri(gl.TEXTURE_2D, gl.TEXTURE_MIN_FILTER, gl.NEAREST);
  gl.texParameteri(gl.TEXTURE_2D, gl.TEXTURE_MAG_FILTER, gl.NEAREST);
  gl.texStorage2D(gl.TEXTURE_2D, 1, gl.RGBA32F, 3, Math.max(1, manifest.palette_entries));
  state.baked = manifest.clips.map(() => null);
  state.bone = state.boneLocked = -1;
  state.bindBounds = manifest.bounds;
  state.grid = makeLines();
  frameScene(manifest.bounds);
  renderLists();
  renderBones();
  renderInfo();
  morphPanel();
  await selectClip(manifest.clips.length ? 0 : -1);
}

// Shows clip `c` at its start, framed on the bind pose and every pose of the clip.
async function selectClip(c) {
  state.clip = c;
  state.time = 0;
  state.playing = false;
  renderLists();
  window.gomClipExtras.show(state.manifest.clips[c]);
  if (c >= 0 && !state.baked[c]) {
    const i = state.index;
    const [baked, bounds] = await Promise.all([source.baked(i, c), source.clipBounds(i, c)]);
    if (i !== state.index) return;
    state.baked[c] = { records: new Float32Array(baked), bounds };
  }
  frameScene(c >= 0 ? union(state.bindBounds, state.baked[c].bounds) : state.bindBounds);
  await showExact("0");
}
function union(a, b) {
  return [[0, 1, 2].map((k) => Math.min(a[0][k], b[0][k])), [0, 1, 2].map((k) => Math.max(a[1][k], b[1][k]))];
}
function frameScene(bounds) {
  frameCamera(bounds);
  setGrid(bounds);
}

function setRecord(floats) {
  state.record = floats;
  const m = state.manifest;
  gl.bindTexture(gl.TEXTURE_2D, state.palette);
  if (m.palette_entries > 0) {
    gl.texSubImage2D(gl.TEXTURE_2D, 0, 0, 0, 3, m.palette_entries, gl.RGBA, gl.FLOAT, floats, 0);
  }
  buildBones();
  morphFromRecord(floats);
}

// The pose at exactly `t` (a string of seconds) from the runtime.
async function showExact(t) {
  const i = state.index;
  const buf = await source.pose(i, state.clip, t);
  if (i !== state.index) return;
  setRecord(new Float32Array(buf));
  state.time = Number(t);
  updateTimeUi();
}

function showBakedFrame() {
  const m = state.manifest, clip = m.clips[state.clip], baked = state.baked[state.clip];
  if (!clip || !baked) return;
  const f = frameAt(clip, state.time), n = recordFloats(m);
  setRecord(baked.records.subarray(f * n, (f + 1) * n));
}

// ---------- camera ----------
function frameCamera(bounds) {
  const [lo, hi] = bounds;
  const c = [(lo[0] + hi[0]) / 2, (lo[1] + hi[1]) / 2, -(lo[2] + hi[2]) / 2];
  const r = Math.max(1e-3, Math.hypot(hi[0] - lo[0], hi[1] - lo[1], hi[2] - lo[2]) / 2);
  Object.assign(state.camera, { target: c, radius: r, dist: r * 3.2, yaw: 0.6, pitch: 0.35 });
}
function eye() {
  const c = state.camera, cp = Math.cos(c.pitch);
  return [c.target[0] + c.dist * cp * Math.sin(c.yaw), c.target[1] + c.dist * Math.sin(c.pitch), c.target[2] + c.dist * cp * Math.cos(c.yaw)];
}
function viewProj() {
  const c = state.camera, aspect = canvas.width / Math.max(1, canvas.height);
  return mul(perspective(Math.PI / 4, aspect, c.radius * 0.01, c.radius * 100), lookAt(eye(), c.target, [0, 1, 0]));
}
let drag = null;
canvas.addEventListener("pointerdown", (e) => { drag = { x: e.clientX, y: e.clientY, pan: e.button !== 0 || e.shiftKey }; canvas.setPointerCapture(e.pointerId); });
canvas.addEventListener("pointerup", () => { drag = null; });
canvas.addEventListener("contextmenu", (e) => e.preventDefault());
canvas.addEventListener("pointermove", (e) => {
  if (!drag) return;
  const dx = e.clientX - drag.x, dy = e.clientY - drag.y, c = state.camera;
  drag.x = e.clientX; drag.y = e.clientY;
  if (drag.pan) {
    const s = c.dist / canvas.clientHeight;
    const right = [Math.cos(c.yaw), 0, -Math.sin(c.yaw)];
    c.target = [c.target[0] - right[0] * dx * s, c.target[1] + dy * s, c.target[2] - right[2] * dx * s];
  } else {
    c.yaw -= dx * 0.01;
    c.pitch = Math.max(-1.5, Math.min(1.5, c.pitch + dy * 0.01));
  }
});
canvas.addEventListener("wheel", (e) => { e.preventDefault(); state.camera.dist *= Math.exp(e.deltaY * 0.001); }, { passive: false });

// ---------- grid and skeleton lines ----------
// A set of coloured lines: one vertex array and its two buffers, made once and
// refilled (setLines) as the lines change.
function makeLines() {
  const vao = gl.createVertexArray(), points = gl.createBuffer(), colors = gl.createBuffer();
  gl.bindVertexArray(vao);
  for (const [loc, b] of [[0, points], [1, colors]]) {
    gl.bindBuffer(gl.ARRAY_BUFFER, b);
    gl.enableVertexAttribArray(loc);
    gl.vertexAttribPointer(loc, 3, gl.FLOAT, false, 0, 0);
  }
  gl.bindVertexArray(null);
  return { vao, points, colors, count: 0 };
}
function setLines(lines, points, colors) {
  gl.bindBuffer(gl.ARRAY_BUFFER, lines.points);
  gl.bufferData(gl.ARRAY_BUFFER, new Float32Array(points), gl.DYNAMIC_DRAW);
  gl.bindBuffer(gl.ARRAY_BUFFER, lines.colors);
  gl.bufferData(gl.ARRAY_BUFFER, new Float32Array(colors), gl.DYNAMIC_DRAW);
  lines.count = points.length / 3;
}
function deleteLines(lines) {
  gl.deleteVertexArray(lines.vao);
  gl.deleteBuffer(lines.points);
  gl.deleteBuffer(lines.colors);
}
function setGrid(bounds) {
  const [lo, hi] = bounds, y = lo[1];
  const size = Math.max(hi[0] - lo[0], hi[2] - lo[2], 1e-3) * 1.5;
  const step = Math.pow(10, Math.floor(Math.log10(size / 2)));
  const cx = (lo[0] + hi[0]) / 2, cz = (lo[2] + hi[2]) / 2;
  const n = Math.ceil(size / step), pts = [], cols = [];
  for (let k = -n; k <= n; k++) {
    const shade = k === 0 ? [0.55, 0.58, 0.62] : [0.36, 0.38, 0.42];
    const a = Math.round(cx / step) * step + k * step, b = Math.round(cz / step) * step + k * step;
    pts.push(a, y, cz - n * step, a, y, cz + n * step, cx - n * step, y, b, cx + n * step, y, b);
    cols.push(...shade, ...shade, ...shade, ...shade);
  }
  setLines(state.grid, pts, cols);
}
function buildBones() {
  const m = state.manifest, r = state.record;
  if (!m || !r || !ui("skeleton").checked) return;
  const base = m.palette_entries * 12, pts = [], cols = [];
  m.bones.forEach((b, i) => {
    if (b.parent < 0) return;
    const hot = i === state.bone || b.parent === state.bone;
    const c = hot ? [1, 0.55, 0.2] : [1, 0.95, 0.3];
    pts.push(r[base + b.parent * 3], r[base + b.parent * 3 + 1], r[base + b.parent * 3 + 2], r[base + i * 3], r[base + i * 3 + 1], r[base + i * 3 + 2]);
    cols.push(...c, ...c);
  });
  if (!state.bonesBuf) state.bonesBuf = makeLines();
  setLines(state.bonesBuf, pts, cols);
}

// ---------- drawing ----------
function resize() {
  const dpr = TEST ? 1 : window.devicePixelRatio || 1;
  const w = Math.max(1, Math.round(canvas.clientWidth * dpr)), h = Math.max(1, Math.round(canvas.clientHeight * dpr));
  if (canvas.width !== w || canvas.height !== h) { canvas.width = w; canvas.height = h; }
}
function draw() {
  resize();
  gl.viewport(0, 0, canvas.width, canvas.height);
  gl.clearColor(0.33, 0.35, 0.39, 1);
  gl.clear(gl.COLOR_BUFFER_BIT | gl.DEPTH_BUFFER_BIT);
  if (!state.manifest) return;
  gl.enable(gl.DEPTH_TEST);
  gl.disable(gl.CULL_FACE);
  const vp = viewProj();
  gl.useProgram(lineProg.p);
  gl.uniformMatrix4fv(lineProg.u.u_viewProj, false, vp);
  gl.bindVertexArray(state.grid.vao);
  gl.drawArrays(gl.LINES, 0, state.grid.count);
  if (!state.hideModel) drawMeshes(vp);
  if (!state.hideModel && ui("skeleton").checked && state.bonesBuf) {
    gl.disable(gl.DEPTH_TEST);
    gl.useProgram(lineProg.p);
    gl.bindVertexArray(state.bonesBuf.vao);
    gl.drawArrays(gl.LINES, 0, state.bonesBuf.count);
  }
  gl.bindVertexArray(null);
}
function drawMeshes(vp) {
  const p = skinProg;
  gl.useProgram(p.p);
  gl.uniformMatrix4fv(p.u.u_viewProj, false, vp);
  gl.uniform3fv(p.u.u_eye, eye());
  gl.activeTexture(gl.TEXTURE0);
  gl.bindTexture(gl.TEXTURE_2D, state.palette);
  gl.uniform1i(p.u.u_palette, 0);
  gl.uniform1i(p.u.u_tex, 1);
  gl.uniform1i(p.u.u_bone, state.bone);
  const weights = ui("weights").checked && state.bone >= 0;
  gl.enable(gl.POLYGON_OFFSET_FILL);
  gl.polygonOffset(1, 1);
  for (const mesh of state.meshes) {
    gl.uniform1i(p.u.u_base, mesh.m.palette_base);
    morphUniforms(p, mesh);
    GomSkin.uniforms(gl, p, mesh.m);
    gl.bindVertexArray(mesh.vao);
    const subs = mesh.m.submeshes.length ? mesh.m.submeshes : [{ material: -1, start: 0, count: mesh.m.indices }];
    for (const s of subs) {
      const mat = state.manifest.materials[s.material];
      const tex = mat && mat.texture !== null ? state.textures[mat.texture] : null;
      gl.uniform4fv(p.u.u_color, mat ? mat.color : [0.8, 0.8, 0.8, 1]);
      gl.uniform1i(p.u.u_hasTex, tex ? 1 : 0);
      gl.activeTexture(gl.TEXTURE1);
      gl.bindTexture(gl.TEXTURE_2D, tex);
      gl.uniform1i(p.u.u_mode, weights ? 1 : 0);
      gl.drawElements(gl.TRIANGLES, s.count, gl.UNSIGNED_INT, s.start * 4);
    }
  }
  gl.disable(gl.POLYGON_OFFSET_FILL);
  if (ui("wireframe").checked) {
    gl.uniform1i(p.u.u_mode, 2);
    for (const mesh of state.meshes) {
      gl.uniform1i(p.u.u_base, mesh.m.palette_base);
      morphUniforms(p, mesh);
      GomSkin.uniforms(gl, p, mesh.m);
      gl.bindVertexArray(mesh.wireVao);
      gl.drawElements(gl.LINES, mesh.edgeCount, gl.UNSIGNED_INT, 0);
    }
  }
}

// ---------- playback ----------
let last = performance.now();
const fps = { frames: 0, since: performance.now(), value: 0 };
function tick(now) {
  const dt = (now - last) / 1000;
  last = now;
  const clip = state.manifest && state.manifest.clips[state.clip];
  if (state.playing && clip) {
    state.time += dt * Number(ui("speed").value);
    if (state.time > clip.duration) {
      if (ui("loop").checked && clip.duration > 0) state.time %= clip.duration;
      else { state.time = clip.duration; state.playing = false; }
    }
    showBakedFrame();
    updateTimeUi();
  }
  draw();
  fps.frames++;
  if (now - fps.since > 1000) { fps.value = (fps.frames * 1000) / (now - fps.since); fps.frames = 0; fps.since = now; }
  if (!TEST) requestAnimationFrame(tick);
}
function updateTimeUi() {
  const clip = state.manifest && state.manifest.clips[state.clip];
  window.gomClipExtras.at(clip, state.time);
  ui("play").innerHTML = state.playing ? "&#10074;&#10074;" : "&#9654;";
  if (!clip) { ui("frame").textContent = "bind pose"; return; }
  ui("slider").max = String(clip.duration);
  ui("slider").value = String(state.time);
  ui("frame").textContent = `frame ${frameAt(clip, state.time)} / ${clip.frames - 1}  ${state.time.toFixed(3)} s`;
}
ui("play").addEventListener("click", () => { state.playing = !state.playing && state.clip >= 0; last = performance.now(); updateTimeUi(); });
document.addEventListener("keydown", (e) => { if (e.code === "Space" && e.target === document.body) { e.preventDefault(); ui("play").click(); } });
let scrubPending = null;
ui("slider").addEventListener("input", () => {
  state.playing = false;
  state.time = Number(ui("slider").value);
  showBakedFrame();
  updateTimeUi();
  const t = String(state.time);
  scrubPending = t;
  // The exact pose once the slider rests (the latest request wins).
  setTimeout(() => { if (scrubPending === t) showExact(t).catch(fail); }, 60);
});
ui("skeleton").addEventListener("change", buildBones);

// ---------- lists, bone tree, info ----------
let models = [];
function renderLists() {
  const files = ui("files");
  files.replaceChildren(...models.map((m) => {
    const li = document.createElement("li");
    li.textContent = m.name;
    li.title = m.name;
    li.className = m.index === state.index ? "current" : "";
    li.onclick = () => selectModel(m.index).catch(fail);
    return li;
  }));
  const clips = ui("clips");
  const list = state.manifest ? state.manifest.clips : [];
  clips.replaceChildren(...list.map((c, i) => {
    const li = document.createElement("li");
    li.textContent = `${c.name} (${c.duration.toFixed(2)} s, ${c.sample_rate} Hz${window.gomClipExtras.label(c)})`;
    li.title = window.gomClipExtras.title(c);
    li.className = i === state.clip ? "current" : "";
    li.onclick = () => selectClip(i).catch(fail);
    return li;
  }));
  if (!list.length) clips.innerHTML = "<li class='hint'>no clips</li>";
}
function renderBones() {
  const bones = state.manifest.bones, children = bones.map(() => []), roots = [];
  bones.forEach((b, i) => (b.parent >= 0 && b.parent < bones.length ? children[b.parent] : roots).push(i));
  const node = (i) => {
    const li = document.createElement("li");
    const span = document.createElement("span");
    span.textContent = bones[i].name || `bone ${i}`;
    span.dataset.bone = i;
    span.onmouseenter = () => setBone(i);
    span.onmouseleave = () => setBone(state.boneLocked);
    span.onclick = () => { state.boneLocked = state.boneLocked === i ? -1 : i; setBone(state.boneLocked); };
    li.appendChild(span);
    if (children[i].length) { const ul = document.createElement("ul"); ul.append(...children[i].map(node)); li.appendChild(ul); }
    return li;
  };
  const ul = document.createElement("ul");
  ul.append(...roots.map(node));
  ui("bones").replaceChildren(ul);
  if (!bones.length) ui("bones").innerHTML = "<p class='hint'>no skeleton</p>";
}
function setBone(i) {
  state.bone = i;
  if (i >= 0) ui("weights").checked = true;
  for (const s of ui("bones").querySelectorAll("span")) s.className = Number(s.dataset.bone) === state.boneLocked ? "current" : "";
  buildBones();
}
function renderInfo() {
  const m = state.manifest, info = m.info, [lo, hi] = m.bounds;
  ui("title").textContent = m.name;
  const row = (k, v) => `<tr><td>${k}</td><td>${v}</td></tr>`;
  const esc = (s) => String(s).replace(/[&<>"]/g, (c) => ({ "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;" })[c]);
  const f = (v) => v.map((x) => x.toFixed(3)).join(", ");
  const list = (items, none) => items.length ? "<ul>" + items.map((s) => `<li>${esc(s)}</li>`).join("") + "</ul>" : `<p class="hint">${none}</p>`;
  ui("info").innerHTML = "<table>" +
    row("bones", info.bones) + row("meshes", info.meshes) + row("vertices", info.vertices) +
    row("triangles", info.triangles) + row("materials", info.materials) + row("clips", info.clips) +
    row("keys", info.keys) + row("bounds min", f(lo)) + row("bounds max", f(hi)) +
    row("flags", esc(info.flags.join(", ") || "none")) + "</table>" +
    "<h2>Meshes</h2>" + list(m.meshes.map((x) => `${x.name}: ${x.vertices} vertices, ${x.indices / 3} triangles${x.skinned ? ", skinned" : ""}`), "none") +
    "<h2>Materials</h2>" + list(m.materials.map((x) => `${x.name}${x.texture_name ? " (" + x.texture_name + (x.texture === null ? ", not found" : "") + ")" : ""}`), "none") +
    "<h2>Validation</h2>" + list(info.findings, "no findings") +
    "<h2>Importer warnings</h2>" + list(info.warnings, "none");
}

// ---------- upload ----------
async function upload(file) {
  const r = await fetch(`api/upload?name=${encodeURIComponent(file.name)}`, { method: "POST", body: file });
  const body = await r.json().catch(() => ({ error: `the server answered ${r.status}` }));
  if (!r.ok) { fail(`${file.name}: ${body.error}`); return; }
  models = await source.models();
  await selectModel(body.index);
}
if (!source.canUpload) ui("drop-hint").textContent = "A self-contained page: open files with gom view.";
document.addEventListener("dragover", (e) => { e.preventDefault(); document.body.classList.add("dragging"); });
document.addEventListener("dragleave", () => document.body.classList.remove("dragging"));
document.addEventListener("drop", (e) => {
  e.preventDefault();
  document.body.classList.remove("dragging");
  if (!source.canUpload) { fail("This page is self-contained: it cannot read dropped files."); return; }
  for (const file of e.dataTransfer.files) upload(file).catch(fail);
});

// Link options: ?skeleton=1&wireframe=1&bone=N (N: a bone's index).
function applyLinkOptions() {
  for (const id of ["skeleton", "wireframe"]) if (params.get(id) === "1") ui(id).checked = true;
  if (state.manifest && params.has("bone")) { state.boneLocked = Number(params.get("bone")); setBone(state.boneLocked); }
  buildBones();
}

// ---------- start ----------
let firstFrameMs = null;
async function start() {
  if (TEST) {
    const [w, h] = (params.get("size") || "320x240").split("x").map(Number);
    document.body.style.display = "block";
    for (const id of ["left", "right"]) ui(id).style.display = "none";
    canvas.style.width = w + "px";
    canvas.style.height = h + "px";
  }
  models = await source.models();
  renderLists();
  if (models.length) await selectModel(0);
  applyLinkOptions();
  // A model with clips opens playing its first one.
  state.playing = state.clip >= 0;
  last = performance.now();
  updateTimeUi();
  draw();
  firstFrameMs = performance.now();
  if (TEST) await runTestScript();
  else requestAnimationFrame(tick);
}

// The browser tests' script (test.js, served only by a test server) drives the page
// through these parts of it and posts its results back.
const parts = {
  gl, canvas, params, state, source, errors, ui, program, SKIN_VS, frameAt,
  selectModel, selectClip, showExact, showBakedFrame, draw, tick, applyLinkOptions, morphUniforms, morphPin,
  models: () => models, firstFrameMs: () => firstFrameMs,
};
function runTestScript() {
  return new Promise((resolve, reject) => {
    const script = document.createElement("script");
    script.src = "test.js";
    script.onload = () => window.gomViewTest(parts).then(resolve, reject);
    script.onerror = () => reject(new Error("test.js could not be loaded"));
    document.head.appendChild(script);
  });
}
if (gl) start().catch((e) => { fail(e.message || e); if (TEST) fetch("api/report", { method: "POST", body: JSON.stringify({ kind: TEST, errors }) }); });
