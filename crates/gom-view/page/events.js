// gom view: what a clip carries beside its poses. Its events are ticks on the time
// slider (at the thumb's position for their time), its float tracks' values at the
// current time are listed over the view, and an additive clip is marked as such (the
// server already shows it added to its reference pose). viewer.js calls
// window.gomClipExtras.show(clip) when a clip is chosen and .at(clip, time) whenever
// the time changes.
"use strict";

window.gomClipExtras = (() => {
  const byId = (id) => document.getElementById(id);

  // The value of a float track at `t`: held before the first and after the last key,
  // linear or held (step) between keys, as gom_runtime samples it.
  function sample(track, t) {
    const n = track.components, times = track.times, last = times.length - 1;
    const key = (k) => track.values.slice(k * n, k * n + n);
    if (!(t > times[0])) return key(0);
    if (t >= times[last]) return key(last);
    let k = 0;
    while (times[k + 1] <= t) k++;
    if (track.interpolation === "step") return key(k);
    const a = key(k), b = key(k + 1), u = (t - times[k]) / (times[k + 1] - times[k]);
    return a.map((x, i) => x + (b[i] - x) * u);
  }

  // One tick per event, placed where the slider's thumb centre is at that time: the
  // thumb (of width --thumb, style.css) travels from half its width to the slider's
  // width less half its width.
  function ticks(clip) {
    const layer = byId("ticks");
    const events = clip ? clip.events || [] : [];
    layer.replaceChildren(...events.map((e) => {
      const tick = document.createElement("span");
      const f = clip.duration > 0 ? Math.min(Math.max(e.time / clip.duration, 0), 1) : 0;
      tick.className = "tick";
      tick.style.left = `calc(var(--thumb) / 2 + (100% - var(--thumb)) * ${f})`;
      tick.title = `${e.name}${e.payload != null ? " (" + e.payload + ")" : ""} at ${e.time} s`;
      tick.dataset.time = String(e.time);
      return tick;
    }));
  }

  // The float tracks' names and their values at `t`, one line each.
  function values(clip, t) {
    const box = byId("float-tracks");
    const tracks = clip ? clip.float_tracks || [] : [];
    box.replaceChildren(...tracks.map((track) => {
      const line = document.createElement("div");
      line.dataset.name = track.name;
      line.dataset.values = JSON.stringify(sample(track, t));
      line.textContent = `${track.name}: ${sample(track, t).map((v) => v.toFixed(3)).join(", ")}`;
      return line;
    }));
    box.hidden = !tracks.length;
  }

  return {
    sample,
    // A chosen clip (or none, for the bind pose): its ticks and its tracks at 0 s.
    show(clip) {
      ticks(clip);
      values(clip, 0);
    },
    // The time changed.
    at(clip, t) {
      values(clip, t);
    },
    // What the clip list adds after a clip's rate: the additive flag.
    label(clip) {
      return clip.additive ? ", additive" : "";
    },
    // What the clip's tooltip says beyond its name.
    title(clip) {
      return clip.additive ? `additive: shown added to ${clip.additive}` : "";
    },
  };
})();
