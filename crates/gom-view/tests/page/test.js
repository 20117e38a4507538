// The browser tests' side of the page: served as test.js by a test server only, run
// by the page in its test mode (?test=KIND) with the page's parts, it does what the
// test asks and posts a report back to api/report.
"use strict";

function bufferToB64(buffer) {
  const bytes = new Uint8Array(buffer);
  let s = "";
  for (let i = 0; i < bytes.length; i += 0x8000) {
    s += String.fromCharCode.apply(null, bytes.subarray(i, i + 0x8000));
  }
  return btoa(s);
}
function b64ToBuffer(s) {
  const bin = atob(s);
  const out = new Uint8Array(bin.length);
  for (let i = 0; i < bin.length; i++) out[i] = bin.charCodeAt(i);
  return out.buffer;
}

// Counts the GL objects of each kind made and deleted from now on.
function countObjects(gl) {
  const live = {};
  for (const kind of ["Buffer", "VertexArray", "Texture", "Shader", "Program", "TransformFeedback", "Framebuffer", "Renderbuffer", "Query", "Sampler"]) {
    live[kind] = 0;
    const create = gl["create" + kind].bind(gl), remove = gl["delete" + kind].bind(gl);
    gl["create" + kind] = (...a) => { live[kind]++; return create(...a); };
    gl["delete" + kind] = (o) => { if (o && gl["is" + kind](o)) live[kind]--; return remove(o); };
  }
  return live;
}

function readPixels(p) {
  const { gl, canvas } = p;
  const w = canvas.width, h = canvas.height, px = new Uint8Array(w * h * 4);
  gl.readPixels(0, 0, w, h, gl.RGBA, gl.UNSIGNED_BYTE, px);
  return { width: w, height: h, rgba: bufferToB64(px.buffer) };
}

// Skins every mesh with transform feedback and returns its model-space positions.
function captureSkinned(p, prog) {
  const { gl, state } = p;
  gl.useProgram(prog.p);
  gl.activeTexture(gl.TEXTURE0);
  gl.bindTexture(gl.TEXTURE_2D, state.palette);
  gl.uniform1i(prog.u.u_palette, 0);
  gl.enable(gl.RASTERIZER_DISCARD);
  const out = state.meshes.map((mesh) => {
    const n = mesh.m.vertices;
    const buf = gl.createBuffer();
    gl.bindBuffer(gl.TRANSFORM_FEEDBACK_BUFFER, buf);
    gl.bufferData(gl.TRANSFORM_FEEDBACK_BUFFER, n * 12, gl.STATIC_READ);
    gl.bindBuffer(gl.TRANSFORM_FEEDBACK_BUFFER, null);
    const tf = gl.createTransformFeedback();
    gl.bindTransformFeedback(gl.TRANSFORM_FEEDBACK, tf);
    gl.bindBufferBase(gl.TRANSFORM_FEEDBACK_BUFFER, 0, buf);
    gl.uniform1i(prog.u.u_base, mesh.m.palette_base);
    p.morphUniforms(prog, mesh);
    GomSkin.uniforms(gl, prog, mesh.m);
    gl.bindVertexArray(mesh.vao);
    gl.beginTransformFeedback(gl.POINTS);
    gl.drawArrays(gl.POINTS, 0, n);
    gl.endTransformFeedback();
    gl.bindTransformFeedback(gl.TRANSFORM_FEEDBACK, null);
    gl.bindVertexArray(null);
    const data = new Float32Array(n * 3);
    gl.bindBuffer(gl.TRANSFORM_FEEDBACK_BUFFER, buf);
    gl.getBufferSubData(gl.TRANSFORM_FEEDBACK_BUFFER, 0, data);
    gl.bindBuffer(gl.TRANSFORM_FEEDBACK_BUFFER, null);
    gl.deleteTransformFeedback(tf);
    gl.deleteBuffer(buf);
    return data;
  });
  gl.disable(gl.RASTERIZER_DISCARD);
  return out;
}

const CAPTURE_FS = `#version 300 es
precision mediump float; out vec4 o; void main() { o = vec4(1.0); }`;

const tests = {
  async render(p, report) {
    const { state, params } = p;
    await p.selectModel(Number(params.get("model") || 0));
    const clip = state.manifest.clips.findIndex((c) => c.name === params.get("clip"));
    if (clip >= 0) await p.selectClip(clip);
    p.applyLinkOptions();
    state.hideModel = true; p.draw();
    report.images = [{ label: "empty", ...readPixels(p) }];
    state.hideModel = false;
    for (const t of (params.get("times") || "0").split(",")) {
      await p.showExact(t);
      p.draw();
      report.images.push({ label: t, ...readPixels(p) });
    }
  },
  async skin(p, report) {
    const { state, params } = p;
    const prog = p.program(p.SKIN_VS, CAPTURE_FS, ["v_model"]);
    report.models = [];
    for (const m of await p.source.models()) {
      await p.selectModel(m.index);
      const clip = state.manifest.clips.length ? 0 : -1;
      const t = params.get("t") || "0";
      if (clip >= 0) await p.selectClip(clip);
      await p.showExact(t);
      const meshes = captureSkinned(p, prog).map((d) => bufferToB64(d.buffer));
      report.models.push({ index: m.index, name: m.name, clip: clip >= 0 ? state.manifest.clips[clip].name : null, t, meshes });
    }
    p.gl.deleteProgram(prog.p);
  },
  // Morph then skin, captured: model 0 at the clip's weights at each of `times`, then
  // at the last time with targets of mesh 0 pinned by their sliders (`pin=K:W,...`),
  // pinned before the last pose arrives. With each capture, the weights and sliders.
  async morph(p, report) {
    const { state, params } = p;
    const prog = p.program(p.SKIN_VS, CAPTURE_FS, ["v_model"]);
    await p.selectModel(0);
    await p.selectClip(state.manifest.clips.findIndex((c) => c.name === params.get("clip")));
    const morph = state.meshes[0].morph;
    const capture = (t) => ({
      t, weights: [...morph.weights], sliders: morph.sliders.map((s) => Number(s.input.value)),
      meshes: captureSkinned(p, prog).map((d) => bufferToB64(d.buffer)),
    });
    const times = params.get("times").split(",");
    report.captures = [];
    for (const t of times) {
      await p.showExact(t);
      report.captures.push(capture(t));
    }
    await p.showExact(times[0]);
    for (const pin of params.get("pin").split(",")) {
      const [k, w] = pin.split(":").map(Number);
      p.morphPin(state.meshes[0], k, w);
    }
    const last = times[times.length - 1];
    await p.showExact(last);
    report.pinned = capture(last);
    p.gl.deleteProgram(prog.p);
  },
  async drop(p, report) {
    // A file dropped on the page: the bytes come from the address (base64).
    const { params, errors, state, ui } = p;
    const file = new File([b64ToBuffer(params.get("file"))], params.get("name"));
    const before = p.models().length, shown = errors.length;
    const dt = new DataTransfer();
    dt.items.add(file);
    document.dispatchEvent(new DragEvent("drop", { dataTransfer: dt, bubbles: true, cancelable: true }));
    for (let k = 0; k < 200 && p.models().length === before && errors.length === shown; k++) {
      await new Promise((r) => setTimeout(r, 50));
    }
    await new Promise((r) => setTimeout(r, 200));
    report.models = p.models().map((m) => m.name);
    report.current = state.index;
    report.shown = ui("errors").textContent;
  },
  // A clip's events as ticks on the slider (their centres and the slider's box), its
  // float tracks' values at the given times, and the clip list's labels.
  async extras(p, report) {
    const { state, params, ui } = p;
    await p.selectModel(0);
    const clip = state.manifest.clips.findIndex((c) => c.name === params.get("clip"));
    await p.selectClip(clip);
    const box = ui("slider").getBoundingClientRect();
    report.slider = { left: box.left, width: box.width };
    report.thumb = parseFloat(getComputedStyle(ui("timeline")).getPropertyValue("--thumb"));
    report.ticks = [...ui("ticks").children].map((t) => {
      const r = t.getBoundingClientRect();
      return { centre: r.left + r.width / 2, title: t.title, height: r.height };
    });
    report.values = [];
    for (const t of (params.get("times") || "0").split(",")) {
      await p.showExact(t);
      const lines = [...ui("float-tracks").children];
      report.values.push(lines.map((l) => ({ name: l.dataset.name, values: JSON.parse(l.dataset.values) })));
    }
    report.labels = [...ui("clips").children].map((li) => li.textContent);
  },
  async first(p, report) {
    report.firstFrameMs = p.firstFrameMs();
  },
  // What the page does on open, before anything else: playing or not, the camera,
  // and the first clip's name.
  async open(p, report) {
    const { state } = p;
    report.playing = state.playing;
    report.clip = state.clip >= 0 ? state.manifest.clips[state.clip].name : null;
    report.camera = { target: state.camera.target, radius: state.camera.radius };
  },
  // GL objects alive after one model load and after 1,000 frames played with the
  // skeleton and the wireframe on, the model and its clips chosen again and again.
  async gl(p, report) {
    const { state, ui } = p;
    const live = countObjects(p.gl);
    const frames = Number(p.params.get("frames") || 1000);
    for (const id of ["skeleton", "wireframe"]) ui(id).checked = true;
    const round = async () => {
      await p.selectModel(0);
      for (let c = state.manifest.clips.length - 1; c >= 0; c--) await p.selectClip(c);
      p.applyLinkOptions();
    };
    await round();
    const play = () => {
      state.playing = true;
      let now = performance.now();
      for (let k = 0; k < frames; k++) { now += 1000 / 60; p.tick(now); }
    };
    play();
    report.before = { ...live };
    for (let k = 0; k < 3; k++) { await round(); play(); }
    report.after = { ...live };
    report.frames = frames;
  },
  async fps(p, report) {
    const { state, params } = p;
    await p.selectModel(Number(params.get("model") || 0));
    const clip = state.manifest.clips.length ? 0 : -1;
    if (clip >= 0) await p.selectClip(clip);
    state.playing = clip >= 0;
    const seconds = Number(params.get("seconds") || 5), start = performance.now();
    let frames = 0;
    await new Promise((done) => {
      const step = (now) => { p.tick(now); frames++; if (now - start < seconds * 1000) requestAnimationFrame(step); else done(); };
      requestAnimationFrame(step);
    });
    report.fps = (frames * 1000) / (performance.now() - start);
    report.firstFrameMs = p.firstFrameMs();
  },
};

window.gomViewTest = async (p) => {
  const kind = p.params.get("test");
  const report = { kind, errors: p.errors };
  const run = tests[kind];
  if (run) await run(p, report);
  else p.errors.push("no test named " + kind);
  for (let e = p.gl.getError(); e !== p.gl.NO_ERROR; e = p.gl.getError()) p.errors.push("WebGL error " + e);
  await fetch("api/report", { method: "POST", body: JSON.stringify(report) });
};
