// gom view: skinning beyond four linear influences (the SKNX extension,
// docs/extensions.md §3): dual quaternions, blended per vertex, eight influences.
// viewer.js puts GomSkin.GLSL into its vertex shader and calls GomSkin.attributes
// when it builds a mesh and GomSkin.uniforms before it draws one.
//
// The dual quaternion of each influence is made in the shader from the palette
// matrix the linear path reads, as gom::skinning::dual_quat makes it: the matrix
// split as scale · rotation · translation (row vectors), shear dropped; the blend
// takes each quaternion's sign against slot 0's (antipodality per vertex), scale
// blended linearly and applied first.
"use strict";

const GomSkin = (() => {
  // Attribute locations, above any the page's shader uses for its own attributes.
  const JOINTS2 = 13, WEIGHTS2 = 14, DQ_SHARE = 15;
  const METHODS = { linear: 0, dualQuaternion: 1, blended: 2 };

  // Needs `col(entry, j)` (palette column j of an entry), `u_base` and the
  // attributes a_joints and a_weights of the page's shader, declared before it.
  const GLSL = `
layout(location=${JOINTS2}) in uvec4 a_joints2;
layout(location=${WEIGHTS2}) in vec4 a_weights2;
layout(location=${DQ_SHARE}) in float a_dq;
uniform int u_method;
struct GomDq { vec4 r; vec4 d; vec3 s; };
void gomSlot(int k, out int bone, out float w) {
  if (k < 4) { bone = int(a_joints[k]); w = a_weights[k]; }
  else { bone = int(a_joints2[k - 4]); w = a_weights2[k - 4]; }
}
// The unit quaternion of rotation c (column vectors), Shepperd's method.
vec4 gomQuat(mat3 c) {
  float tr = c[0][0] + c[1][1] + c[2][2];
  vec4 q;
  if (tr > 0.0) {
    float s = sqrt(tr + 1.0) * 2.0;
    q = vec4(c[1][2] - c[2][1], c[2][0] - c[0][2], c[0][1] - c[1][0], s * s * 0.25) / s;
  } else if (c[0][0] > c[1][1] && c[0][0] > c[2][2]) {
    float s = sqrt(max(1.0 + c[0][0] - c[1][1] - c[2][2], 0.0)) * 2.0;
    q = vec4(s * s * 0.25, c[1][0] + c[0][1], c[2][0] + c[0][2], c[1][2] - c[2][1]) / s;
  } else if (c[1][1] > c[2][2]) {
    float s = sqrt(max(1.0 + c[1][1] - c[0][0] - c[2][2], 0.0)) * 2.0;
    q = vec4(c[1][0] + c[0][1], s * s * 0.25, c[2][1] + c[1][2], c[2][0] - c[0][2]) / s;
  } else {
    float s = sqrt(max(1.0 + c[2][2] - c[0][0] - c[1][1], 0.0)) * 2.0;
    q = vec4(c[2][0] + c[0][2], c[2][1] + c[1][2], s * s * 0.25, c[0][1] - c[1][0]) / s;
  }
  float l2 = dot(q, q);
  return l2 > 0.0 ? q * inversesqrt(l2) : vec4(0.0, 0.0, 0.0, 1.0);
}
// Palette entry e as a dual quaternion with its scale.
GomDq gomDqOf(int e) {
  vec4 c0 = col(e, 0), c1 = col(e, 1), c2 = col(e, 2);
  // Rows of the row-vector matrix, and its translation.
  vec3 r0 = vec3(c0.x, c1.x, c2.x), r1 = vec3(c0.y, c1.y, c2.y), r2 = vec3(c0.z, c1.z, c2.z);
  vec3 t = vec3(c0.w, c1.w, c2.w);
  float mirror = dot(r0, cross(r1, r2)) < 0.0 ? -1.0 : 1.0;
  vec3 s = mirror * vec3(length(r0), length(r1), length(r2));
  vec3 u0 = s.x != 0.0 ? r0 / s.x : vec3(1.0, 0.0, 0.0);
  vec3 u1 = s.y != 0.0 ? r1 / s.y : vec3(0.0, 1.0, 0.0);
  vec3 u2 = s.z != 0.0 ? r2 / s.z : vec3(0.0, 0.0, 1.0);
  // GLSL matrices take columns: the rows u as columns make the column-vector matrix.
  vec4 r = gomQuat(mat3(u0, u1, u2));
  vec4 d = 0.5 * vec4(t.x * r.w + t.y * r.z - t.z * r.y, -t.x * r.z + t.y * r.w + t.z * r.x,
                      t.x * r.y - t.y * r.x + t.z * r.w, -t.x * r.x - t.y * r.y - t.z * r.z);
  return GomDq(r, d, s);
}
vec3 gomRotate(vec4 r, vec3 v) {
  vec3 c = 2.0 * cross(r.xyz, v);
  return v + r.w * c + cross(r.xyz, c);
}
vec3 gomUnit(vec3 v) { float l2 = dot(v, v); return l2 > 0.0 ? v * inversesqrt(l2) : vec3(0.0); }
// Skins point p and normal n with the mesh's method over eight slots; bw is the
// weight of bone u_bone.
void gomSkin(vec4 p, vec3 n, int bone, out vec3 pos, out vec3 nrm, out float bw) {
  float share = u_method == 0 ? 0.0 : (u_method == 1 ? 1.0 : a_dq);
  vec3 lp = vec3(0.0), ln = vec3(0.0);
  GomDq first = gomDqOf(u_base + int(a_joints[0]));
  GomDq q = GomDq(vec4(0.0), vec4(0.0), vec3(0.0));
  bw = 0.0;
  for (int k = 0; k < 8; k++) {
    int b; float w;
    gomSlot(k, b, w);
    if (w == 0.0) continue;
    int e = u_base + b;
    if (b == bone) bw += w;
    if (share < 1.0) {
      vec4 c0 = col(e, 0), c1 = col(e, 1), c2 = col(e, 2);
      lp += w * vec3(dot(c0, p), dot(c1, p), dot(c2, p));
      ln += w * vec3(dot(c0.xyz, n), dot(c1.xyz, n), dot(c2.xyz, n));
    }
    if (share > 0.0) {
      GomDq x = gomDqOf(e);
      float sw = dot(x.r, first.r) < 0.0 ? -w : w;
      q.r += sw * x.r; q.d += sw * x.d; q.s += w * x.s;
    }
  }
  if (share <= 0.0) { pos = lp; nrm = ln; return; }
  float len = length(q.r);
  float inv = len > 0.0 ? 1.0 / len : 0.0;
  vec4 r = q.r * inv, d = q.d * inv;
  vec3 t = 2.0 * (r.w * d.xyz - d.w * r.xyz + cross(r.xyz, d.xyz));
  vec3 dp = gomRotate(r, p.xyz * q.s) + t;
  float ms = q.s.x * q.s.y * q.s.z < 0.0 ? -1.0 : 1.0;
  vec3 dn = gomRotate(r, n * ms * vec3(q.s.y * q.s.z, q.s.x * q.s.z, q.s.x * q.s.y));
  if (share >= 1.0) { pos = dp; nrm = dn; return; }
  pos = mix(lp, dp, share);
  nrm = mix(gomUnit(ln), gomUnit(dn), share);
}
`;

  // Adds mesh m's influences five to eight and dual-quaternion shares to the bound
  // vertex array: from the geometry buffer where the mesh has them, else zeros.
  // Buffers made go into `buffers`.
  function attributes(gl, m, geometry, buffers) {
    const n = m.vertices;
    const add = (loc, size, data, bytes) => {
      const b = gl.createBuffer();
      gl.bindBuffer(gl.ARRAY_BUFFER, b);
      if (data) gl.bufferData(gl.ARRAY_BUFFER, data, gl.STATIC_DRAW);
      else gl.bufferData(gl.ARRAY_BUFFER, n * size * bytes, gl.STATIC_DRAW); // zeros
      buffers.push(b);
      gl.enableVertexAttribArray(loc);
    };
    const at = (offset, Type, size) => (offset === null || offset === undefined ? null : new Type(geometry, offset, n * size));
    add(JOINTS2, 4, at(m.joints2, Uint16Array, 4), 2);
    gl.vertexAttribIPointer(JOINTS2, 4, gl.UNSIGNED_SHORT, 0, 0);
    add(WEIGHTS2, 4, at(m.weights2, Float32Array, 4), 4);
    gl.vertexAttribPointer(WEIGHTS2, 4, gl.FLOAT, false, 0, 0);
    add(DQ_SHARE, 1, at(m.dq_weights, Float32Array, 1), 4);
    gl.vertexAttribPointer(DQ_SHARE, 1, gl.FLOAT, false, 0, 0);
  }

  // Sets program prog's uniforms for mesh m (its skinning method).
  function uniforms(gl, prog, m) {
    gl.uniform1i(prog.u.u_method, METHODS[m.skinning] || 0);
  }

  return { GLSL, attributes, uniforms };
})();
