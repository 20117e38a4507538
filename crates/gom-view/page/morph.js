// gom view: blend shapes (morph targets) on the GPU. Loaded before viewer.js, which
// calls the hooks below; the names here start with "morph" or MORPH.
//
// Each mesh with targets gets one RGBA32F texture of the targets' deltas, dense, two
// texels per vertex (position delta, normal delta), one block of rows per target:
// texel i = 2 * gl_VertexID + k of target t is at (i % width, t * rows + i / width).
// The vertex shader adds the active targets (non-zero weight, at most
// MORPH_MAX_ACTIVE, given as uniform arrays of target index and weight) to the bind
// position and normal before skinning, as the runtime's Morpher does.
"use strict";

const MORPH_MAX_ACTIVE = 32;
const MORPH_UNIT = 5;

// Declarations for SKIN_VS: `a_pos` and `a_nrm` are the morphed bind attributes,
// set by morph() from the vertex's own `a_bindPos` and `a_bindNrm`.
const MORPH_VS = `
uniform highp sampler2D u_morph;
uniform int u_morphCount;
uniform int u_morphWidth;
uniform int u_morphRows;
uniform vec4 u_morphWeight[${MORPH_MAX_ACTIVE / 4}];
uniform ivec4 u_morphTarget[${MORPH_MAX_ACTIVE / 4}];
vec3 a_pos; vec3 a_nrm;
vec3 morphDelta(int t, int k) {
  int i = 2 * gl_VertexID + k;
  return texelFetch(u_morph, ivec2(i % u_morphWidth, t * u_morphRows + i / u_morphWidth), 0).xyz;
}
void morph() {
  a_pos = a_bindPos; a_nrm = a_bindNrm;
  if (u_morphCount == 0) return;
  vec3 n = a_bindNrm;
  for (int k = 0; k < u_morphCount; k++) {
    int t = u_morphTarget[k / 4][k % 4];
    float w = u_morphWeight[k / 4][k % 4];
    a_pos += w * morphDelta(t, 0);
    n += w * morphDelta(t, 1);
  }
  float len = length(n);
  if (len > 0.0) a_nrm = n / len;
}
`;

// The morph state of mesh `m` (the manifest's description) with the deltas from the
// geometry buffer in a texture; null for a mesh without targets.
function morphBuild(m, geometry) {
  const targets = m.targets || [];
  if (!targets.length) return null;
  const max = gl.getParameter(gl.MAX_TEXTURE_SIZE);
  const width = Math.min(4096, max), rows = Math.max(1, Math.ceil((2 * m.vertices) / width));
  const height = rows * targets.length;
  if (height > max) {
    fail(`mesh "${m.name}": ${targets.length} morph targets of ${m.vertices} vertices do not fit a ${max}-texel texture; shown without them`);
    return null;
  }
  const data = new Float32Array(width * height * 4);
  targets.forEach((t, k) => {
    const idx = new Uint32Array(geometry, t.indices, t.count);
    const pos = new Float32Array(geometry, t.positions, t.count * 3);
    const nrm = t.normals === null ? null : new Float32Array(geometry, t.normals, t.count * 3);
    const base = k * rows * width;
    for (let j = 0; j < t.count; j++) {
      if (idx[j] >= m.vertices) continue;
      const at = (base + 2 * idx[j]) * 4;
      data.set(pos.subarray(j * 3, j * 3 + 3), at);
      if (nrm) data.set(nrm.subarray(j * 3, j * 3 + 3), at + 4);
    }
  });
  const texture = gl.createTexture();
  gl.bindTexture(gl.TEXTURE_2D, texture);
  gl.texParameteri(gl.TEXTURE_2D, gl.TEXTURE_MIN_FILTER, gl.NEAREST);
  gl.texParameteri(gl.TEXTURE_2D, gl.TEXTURE_MAG_FILTER, gl.NEAREST);
  gl.texStorage2D(gl.TEXTURE_2D, 1, gl.RGBA32F, width, height);
  gl.texSubImage2D(gl.TEXTURE_2D, 0, 0, 0, width, height, gl.RGBA, gl.FLOAT, data);
  const weights = targets.map((t) => t.default_weight);
  const morph = {
    texture, width, rows, weights, pinned: targets.map(() => false), sliders: [],
    count: 0, activeWeights: new Float32Array(MORPH_MAX_ACTIVE), activeTargets: new Int32Array(MORPH_MAX_ACTIVE),
  };
  morphActive(morph);
  return morph;
}

function morphDispose(mesh) {
  if (mesh.morph) gl.deleteTexture(mesh.morph.texture);
}

// The targets the shader adds: those with a non-zero weight, the MORPH_MAX_ACTIVE
// largest in magnitude when there are more, in target order.
function morphActive(morph) {
  let active = morph.weights.map((w, k) => k).filter((k) => morph.weights[k] !== 0);
  if (active.length > MORPH_MAX_ACTIVE) {
    active.sort((a, b) => Math.abs(morph.weights[b]) - Math.abs(morph.weights[a]) || a - b);
    active = active.slice(0, MORPH_MAX_ACTIVE).sort((a, b) => a - b);
  }
  morph.count = active.length;
  morph.activeWeights.fill(0);
  morph.activeTargets.fill(0);
  active.forEach((k, j) => { morph.activeWeights[j] = morph.weights[k]; morph.activeTargets[j] = k; });
}

// Sets the morph uniforms of program `p` (made from SKIN_VS) for `mesh`.
function morphUniforms(p, mesh) {
  const morph = mesh.morph;
  gl.uniform1i(p.u.u_morphCount, morph ? morph.count : 0);
  if (!morph) return;
  gl.activeTexture(gl.TEXTURE0 + MORPH_UNIT);
  gl.bindTexture(gl.TEXTURE_2D, morph.texture);
  gl.uniform1i(p.u.u_morph, MORPH_UNIT);
  gl.uniform1i(p.u.u_morphWidth, morph.width);
  gl.uniform1i(p.u.u_morphRows, morph.rows);
  gl.uniform4fv(p.u["u_morphWeight[0]"], morph.activeWeights);
  gl.uniform4iv(p.u["u_morphTarget[0]"], morph.activeTargets);
}

// A pose record's weights (after the palettes and the bone positions) drive every
// target the user has not pinned with its slider.
function morphFromRecord(floats) {
  const m = state.manifest;
  if (!m || !m.morph_weights) return;
  const base = m.palette_entries * 12 + m.bones.length * 3;
  for (const mesh of state.meshes) {
    const morph = mesh.morph;
    if (!morph) continue;
    morph.weights.forEach((_, k) => {
      if (!morph.pinned[k]) morph.weights[k] = floats[base + mesh.m.weight_base + k];
    });
    morphActive(morph);
    morphShowSliders(morph);
  }
}

// Pins target `k` of `mesh` at weight `w` (what moving its slider does).
function morphPin(mesh, k, w) {
  const morph = mesh.morph;
  morph.pinned[k] = true;
  morph.weights[k] = w;
  morphActive(morph);
  morphShowSliders(morph);
}

// Releases every pinned target: the clip's weights drive them again.
function morphFollow() {
  for (const mesh of state.meshes) if (mesh.morph) mesh.morph.pinned.fill(false);
  if (state.record) morphFromRecord(state.record);
}

function morphShowSliders(morph) {
  morph.sliders.forEach((s, k) => {
    const w = morph.weights[k];
    s.input.min = String(Math.min(0, w));
    s.input.max = String(Math.max(1, w));
    s.input.value = String(w);
    s.value.textContent = w.toFixed(3);
    s.row.classList.toggle("pinned", morph.pinned[k]);
  });
}

// The panel: one slider per target, by mesh.
function morphPanel() {
  const div = ui("morphs"), parts = [];
  for (const mesh of state.meshes) {
    const morph = mesh.morph;
    if (!morph) continue;
    const h = document.createElement("h3");
    h.textContent = mesh.m.name;
    parts.push(h);
    morph.sliders = mesh.m.targets.map((t, k) => {
      const row = document.createElement("label");
      row.className = "morph";
      row.title = `${t.name}: ${t.count} vertices; moving the slider pins it`;
      const name = document.createElement("span");
      name.textContent = t.name;
      const input = document.createElement("input");
      Object.assign(input, { type: "range", step: "any" });
      input.addEventListener("input", () => morphPin(mesh, k, Number(input.value)));
      const value = document.createElement("span");
      row.append(name, input, value);
      parts.push(row);
      return { row, input, value };
    });
    morphShowSliders(morph);
  }
  if (parts.length) {
    const follow = document.createElement("button");
    follow.id = "morph-follow";
    follow.textContent = "follow the clip";
    follow.title = "release the pinned sliders: the clip's weights drive them again";
    follow.onclick = morphFollow;
    parts.push(follow);
  } else {
    const p = document.createElement("p");
    p.className = "hint";
    p.textContent = "no morph targets";
    parts.push(p);
  }
  div.replaceChildren(...parts);
}
