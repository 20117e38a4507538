// ozz-animation runtime throughput harness, mirroring the workload of gom-runtime's
// criterion benchmark (crates/gom-runtime/benches/runtime.rs):
//
// - skeletons of 64, 128 and 1,023 joints, joint i's parent is (i - 1) / 3, rest
//   poses with small random turns (same xorshift generator and draw order as the
//   Rust benchmark, so the data are the same numbers);
// - one 2 s clip keyed at 30 Hz (61 translation, rotation and scale keys on every
//   joint), each joint swinging about its own axis (amplitude up to 1.2 rad);
//   built with AnimationBuilder from every key ("all keys") and, separately, after
//   the default AnimationOptimizer ("optimized");
// - SamplingJob played forward at 60 frames per second, looping;
// - LocalToModelJob on the pose sampled at t = 0.7 s;
// - SkinningJob, 20,000 vertices, 4 influences (weights 0.4, 0.3, 0.2, 0.1 on the
//   primary joint, its parent and its next two joints, joint walking with the vertex
//   index), positions and normals, palette = model * inverse bind of the t = 0.7 s
//   pose (no scale: normals use the same matrices).
//
// - BlendingJob with the t = 0.7 s pose as a base layer (weight 1) and as an
//   additive layer (weight 0.5), beside gom's blend_additive(local, local, 0.5)
//   (ozz's job also blends the base layer and checks the weights);
// - IKTwoBoneJob on the model matrices of generated joints 1, 2 and 3 (t = 0.7 s),
//   target the third's position + (0.05, 0.02, -0.03), pole +Z, mid axis +X,
//   soften 0.97; IKAimJob on joint 1, target (1, 2, 3), offset (0, 0.1, 0), other
//   parameters at their defaults; both on the 64-joint case only, as gom's rows.
//
// Time is the benchmark thread's CPU time (CLOCK_THREAD_CPUTIME_ID). Each benchmark
// warms up, then runs batches of a fixed number of iterations (about 10 ms each)
// for the measurement time; the median per-iteration time of the batches is
// reported (the mean too), as M elements per CPU second.
//
// Usage: harness [warm-up seconds = 1] [measurement seconds = 3] [filter substring]

#include <time.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

#include "ozz/animation/offline/animation_builder.h"
#include "ozz/animation/offline/animation_optimizer.h"
#include "ozz/animation/offline/raw_animation.h"
#include "ozz/animation/offline/raw_skeleton.h"
#include "ozz/animation/offline/skeleton_builder.h"
#include "ozz/animation/runtime/animation.h"
#include "ozz/animation/runtime/blending_job.h"
#include "ozz/animation/runtime/ik_aim_job.h"
#include "ozz/animation/runtime/ik_two_bone_job.h"
#include "ozz/animation/runtime/local_to_model_job.h"
#include "ozz/animation/runtime/sampling_job.h"
#include "ozz/animation/runtime/skeleton.h"
#include "ozz/base/maths/simd_math.h"
#include "ozz/base/maths/simd_quaternion.h"
#include "ozz/base/maths/soa_transform.h"
#include "ozz/base/memory/unique_ptr.h"
#include "ozz/geometry/runtime/skinning_job.h"

namespace {

const int kSizes[] = {64, 128, 1023};
const float kKeyRate = 30.f;
const float kDuration = 2.f;
const float kFrame = 1.f / 60.f;
const int kVertices = 20000;
const float kPi = 3.14159265358979323846f;

// The Rust benchmark's generator, bit for bit.
struct Rng {
  uint64_t s;
  float f() {
    s ^= s << 13;
    s ^= s >> 7;
    s ^= s << 17;
    return static_cast<float>(s >> 40) / static_cast<float>(1ull << 24);
  }
  float range(float lo, float hi) { return lo + (hi - lo) * f(); }
  void axis(float out[3]) {
    float v[3] = {range(-1.f, 1.f), range(-1.f, 1.f), range(-1.f, 1.f)};
    float l = std::max(std::sqrt(v[0] * v[0] + v[1] * v[1] + v[2] * v[2]), 1e-3f);
    out[0] = v[0] / l;
    out[1] = v[1] / l;
    out[2] = v[2] / l;
  }
};

// The benchmark's sine (Taylor series after range reduction).
float taylor_sin(float x) {
  const float tau = 2.f * kPi;
  x = std::fmod(x, tau);
  if (x > kPi) x -= tau;
  float x2 = x * x;
  return x * (1.f - x2 / 6.f *
                        (1.f - x2 / 20.f *
                                   (1.f - x2 / 42.f *
                                              (1.f - x2 / 72.f * (1.f - x2 / 110.f)))));
}

ozz::math::Quaternion quat_axis_angle(const float axis[3], float angle) {
  float h = angle * 0.5f, s = std::sin(h), c = std::cos(h);
  return ozz::math::Quaternion(axis[0] * s, axis[1] * s, axis[2] * s, c);
}

double cpu_ns() {
  timespec ts;
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
  return ts.tv_sec * 1e9 + ts.tv_nsec;
}

template <typename T>
inline void keep(T const& v) {
  asm volatile("" : : "g"(&v) : "memory");
}

double g_warm = 1.0, g_meas = 3.0;
const char* g_filter = nullptr;

// Runs `f` and prints the median (and mean) per-iteration CPU time and throughput.
template <typename F>
void bench(const std::string& name, double elems, const char* unit, F&& f) {
  if (g_filter && name.find(g_filter) == std::string::npos) return;
  // Warm-up, also estimates the cost of one iteration.
  double t0 = cpu_ns(), t = t0;
  uint64_t n = 0;
  while (t - t0 < g_warm * 1e9) {
    for (int i = 0; i < 16; ++i) f();
    n += 16;
    t = cpu_ns();
  }
  double per = (t - t0) / n;
  uint64_t batch = std::max<uint64_t>(1, static_cast<uint64_t>(10e6 / per));
  std::vector<double> samples;
  double m0 = cpu_ns(), m = m0;
  while (m - m0 < g_meas * 1e9 || samples.size() < 20) {
    double b0 = cpu_ns();
    for (uint64_t i = 0; i < batch; ++i) f();
    m = cpu_ns();
    samples.push_back((m - b0) / batch);
  }
  std::vector<double> s = samples;
  std::sort(s.begin(), s.end());
  double med = s.size() % 2 ? s[s.size() / 2]
                            : 0.5 * (s[s.size() / 2 - 1] + s[s.size() / 2]);
  double mean = 0;
  for (double v : s) mean += v;
  mean /= s.size();
  std::printf("%-34s %10.1f ns  %8.1f %s (mean %.1f, p10 %.1f, p90 %.1f; %zu x %llu)\n",
              name.c_str(), med, elems * 1e3 / med, unit, elems * 1e3 / mean,
              elems * 1e3 / s[s.size() * 9 / 10], elems * 1e3 / s[s.size() / 10],
              s.size(), static_cast<unsigned long long>(batch));
  std::fflush(stdout);
}

struct Case {
  ozz::unique_ptr<ozz::animation::Skeleton> skeleton;
  ozz::unique_ptr<ozz::animation::Animation> all_keys, optimized;
  std::vector<int> to_ozz;  // generated joint index -> ozz joint index
  std::vector<float> positions, normals, weights;
  std::vector<uint16_t> indices;
  std::vector<ozz::math::Quaternion> key20;  // by ozz joint index, for a check
};

void add_children(int i, int n, ozz::animation::offline::RawSkeleton::Joint* j,
                  const std::vector<ozz::math::Transform>& bind) {
  j->name = "b" + std::to_string(i);
  j->transform = bind[i];
  for (int c = 3 * i + 1; c <= 3 * i + 3 && c < n; ++c) {
    j->children.emplace_back();
    add_children(c, n, &j->children.back(), bind);
  }
}

Case make_case(int n) {
  using namespace ozz::animation::offline;
  Case c;
  Rng rng{0x5EEDull ^ static_cast<uint64_t>(n)};
  // Bones: rest translation, rest rotation (same draw order as the Rust code).
  std::vector<ozz::math::Transform> bind(n);
  for (int i = 0; i < n; ++i) {
    float t[3];
    t[0] = rng.range(-0.2f, 0.2f);
    t[1] = rng.range(0.1f, 0.4f);
    t[2] = rng.range(-0.2f, 0.2f);
    float ax[3];
    rng.axis(ax);
    float ang = rng.range(-0.5f, 0.5f);
    bind[i].translation = ozz::math::Float3(t[0], t[1], t[2]);
    bind[i].rotation = quat_axis_angle(ax, ang);
    bind[i].scale = ozz::math::Float3::one();
  }
  RawSkeleton raw_skel;
  raw_skel.roots.resize(1);
  add_children(0, n, &raw_skel.roots[0], bind);
  c.skeleton = SkeletonBuilder()(raw_skel);
  if (!c.skeleton) std::abort();
  c.to_ozz.assign(n, -1);
  auto names = c.skeleton->joint_names();
  for (int j = 0; j < c.skeleton->num_joints(); ++j)
    c.to_ozz[std::atoi(names[j] + 1)] = j;

  // Clip: 61 keys on every joint.
  const int keys = static_cast<int>(kDuration * kKeyRate) + 1;
  RawAnimation raw;
  raw.duration = kDuration;
  raw.tracks.resize(n);
  c.key20.resize(n);
  for (int bone = 0; bone < n; ++bone) {
    float ax[3];
    rng.axis(ax);
    float amp = rng.range(0.2f, 1.2f), phase = rng.range(0.f, 6.f);
    float t0[3];
    t0[0] = rng.range(-0.2f, 0.2f);
    t0[1] = rng.range(0.1f, 0.4f);
    t0[2] = rng.range(-0.2f, 0.2f);
    RawAnimation::JointTrack& tr = raw.tracks[c.to_ozz[bone]];
    for (int k = 0; k < keys; ++k) {
      float time = static_cast<float>(k) / kKeyRate;
      float a = amp * taylor_sin(phase + time * kPi);
      tr.translations.push_back(
          {time, ozz::math::Float3(t0[0], t0[1] + 0.01f * a, t0[2])});
      tr.rotations.push_back({time, quat_axis_angle(ax, a)});
      if (k == 20) c.key20[c.to_ozz[bone]] = quat_axis_angle(ax, a);
      tr.scales.push_back({time, ozz::math::Float3::one()});
    }
  }
  if (!raw.Validate()) std::abort();
  c.all_keys = AnimationBuilder()(raw);
  RawAnimation opt;
  if (!AnimationOptimizer()(raw, *c.skeleton, &opt)) std::abort();
  c.optimized = AnimationBuilder()(opt);
  if (!c.all_keys || !c.optimized) std::abort();

  // Mesh.
  c.positions.resize(3 * kVertices);
  c.normals.resize(3 * kVertices);
  c.indices.resize(4 * kVertices);
  c.weights.resize(3 * kVertices);
  for (int i = 0; i < kVertices; ++i) {
    c.positions[3 * i + 0] = rng.range(-1.f, 1.f);
    c.positions[3 * i + 1] = rng.range(0.f, 2.f);
    c.positions[3 * i + 2] = rng.range(-1.f, 1.f);
    rng.axis(&c.normals[3 * i]);
    int p = static_cast<int>(static_cast<int64_t>(i) * n / kVertices);
    int b[4] = {p, (p > 0 ? p - 1 : 0) / 3, (p + 1) % n, (p + 2) % n};
    for (int k = 0; k < 4; ++k)
      c.indices[4 * i + k] = static_cast<uint16_t>(c.to_ozz[b[k]]);
    c.weights[3 * i + 0] = 0.4f;  // the fourth, 0.1, is implied by ozz
    c.weights[3 * i + 1] = 0.3f;
    c.weights[3 * i + 2] = 0.2f;
  }
  return c;
}

size_t count_keys(const ozz::animation::Animation& a) {
  return a.translations_values().size() + a.rotations_values().size() +
         a.scales_values().size();
}

}  // namespace

int main(int argc, char** argv) {
  if (argc > 1) g_warm = std::atof(argv[1]);
  if (argc > 2) g_meas = std::atof(argv[2]);
  if (argc > 3) g_filter = argv[3];
  using namespace ozz::animation;
  for (int n : kSizes) {
    Case c = make_case(n);
    const Skeleton& skel = *c.skeleton;
    std::printf("# %d joints: keys (T+R+S) all=%zu (%zu bytes), optimized=%zu (%zu bytes)\n",
                n, count_keys(*c.all_keys), c.all_keys->size(), count_keys(*c.optimized),
                c.optimized->size());
    std::vector<ozz::math::SoaTransform> local(skel.num_soa_joints());
    std::vector<ozz::math::Float4x4> models(skel.num_joints());

    for (int variant = 0; variant < 2; ++variant) {
      const Animation& anim = variant == 0 ? *c.all_keys : *c.optimized;
      SamplingJob::Context ctx(anim.num_tracks());
      float t = 0.f;
      SamplingJob job;
      job.animation = &anim;
      job.context = &ctx;
      job.output = ozz::make_span(local);
      bench(std::string("sampling/") + std::to_string(n) +
                (variant == 0 ? " (all keys)" : " (optimized)"),
            n, "Mjoints/s", [&] {
              t += kFrame;
              if (t >= kDuration) t -= kDuration;
              volatile float vt = t;
              job.ratio = vt / kDuration;
              job.Run();
              keep(local);
            });
    }

    // Pose at 0.7 s (all keys).
    SamplingJob::Context ctx(c.all_keys->num_tracks());
    SamplingJob sj;
    sj.animation = c.all_keys.get();
    sj.context = &ctx;
    sj.ratio = 0.7f / kDuration;
    sj.output = ozz::make_span(local);
    if (!sj.Run()) std::abort();
    {  // Sanity: on a key time, the sampled rotations are the generated keys.
      std::vector<ozz::math::SoaTransform> on_key(skel.num_soa_joints());
      SamplingJob::Context kc(c.all_keys->num_tracks());
      SamplingJob kj = sj;
      kj.context = &kc;
      kj.ratio = (20.f / kKeyRate) / kDuration;
      kj.output = ozz::make_span(on_key);
      if (!kj.Run()) std::abort();
      float worst = 0.f;
      for (int j = 0; j < n; ++j) {
        const ozz::math::SoaQuaternion& q = on_key[j / 4].rotation;
        float v[4][4];
        ozz::math::StorePtrU(q.x, v[0]);
        ozz::math::StorePtrU(q.y, v[1]);
        ozz::math::StorePtrU(q.z, v[2]);
        ozz::math::StorePtrU(q.w, v[3]);
        const ozz::math::Quaternion& e = c.key20[j];
        float d = v[0][j % 4] * e.x + v[1][j % 4] * e.y + v[2][j % 4] * e.z +
                  v[3][j % 4] * e.w;
        worst = std::max(worst, 1.f - std::fabs(d));
      }
      std::printf("# sampling check: max 1-|dot| vs generated key 20: %.2e\n", worst);
    }
    LocalToModelJob l2m;
    l2m.skeleton = &skel;
    l2m.input = ozz::make_span(local);
    l2m.output = ozz::make_span(models);
    bench("local_to_model/" + std::to_string(n), n, "Mjoints/s", [&] {
      l2m.Run();
      keep(models);
    });
    if (!l2m.Run()) std::abort();

    // Additive layer (the Rust benchmark's blend_additive row).
    {
      std::vector<ozz::math::SoaTransform> blended(skel.num_soa_joints());
      BlendingJob::Layer base, additive;
      base.weight = 1.f;
      base.transform = ozz::make_span(local);
      additive.weight = 0.5f;
      additive.transform = ozz::make_span(local);
      BlendingJob bj;
      bj.layers = ozz::span<const BlendingJob::Layer>(&base, 1);
      bj.additive_layers = ozz::span<const BlendingJob::Layer>(&additive, 1);
      bj.rest_pose = skel.joint_rest_poses();
      bj.output = ozz::make_span(blended);
      if (!bj.Run()) std::abort();
      bench("blend_additive/" + std::to_string(n), n, "Mjoints/s", [&] {
        bj.Run();
        keep(blended);
      });
    }
    if (n == kSizes[0]) {  // IK rows, as gom's on the first size only.
      const ozz::math::Float4x4& start = models[c.to_ozz[1]];
      const ozz::math::Float4x4& mid = models[c.to_ozz[2]];
      const ozz::math::Float4x4& end = models[c.to_ozz[3]];
      ozz::math::SimdQuaternion q0, q1;
      bool reached = false;
      IKTwoBoneJob ik;
      ik.target = end.cols[3] + ozz::math::simd_float4::Load(0.05f, 0.02f, -0.03f, 0.f);
      ik.pole_vector = ozz::math::simd_float4::z_axis();
      ik.mid_axis = ozz::math::simd_float4::x_axis();
      ik.soften = 0.97f;
      ik.start_joint = &start;
      ik.mid_joint = &mid;
      ik.end_joint = &end;
      ik.start_joint_correction = &q0;
      ik.mid_joint_correction = &q1;
      ik.reached = &reached;
      if (!ik.Run()) std::abort();
      bench("ik/two_bone", 1, "Msolves/s", [&] {
        ik.Run();
        keep(q0);
        keep(q1);
      });
      IKAimJob aim;
      aim.target = ozz::math::simd_float4::Load(1.f, 2.f, 3.f, 0.f);
      aim.offset = ozz::math::simd_float4::Load(0.f, 0.1f, 0.f, 0.f);
      aim.joint = &start;
      aim.joint_correction = &q0;
      aim.reached = &reached;
      if (!aim.Run()) std::abort();
      bench("ik/aim", 1, "Msolves/s", [&] {
        aim.Run();
        keep(q0);
      });
    }

    // Skinning palette: model * inverse(rest model).
    std::vector<ozz::math::Float4x4> rest_models(skel.num_joints());
    LocalToModelJob rj;
    rj.skeleton = &skel;
    rj.input = skel.joint_rest_poses();
    rj.output = ozz::make_span(rest_models);
    if (!rj.Run()) std::abort();
    std::vector<ozz::math::Float4x4> palette(skel.num_joints());
    for (int j = 0; j < skel.num_joints(); ++j)
      palette[j] = models[j] * ozz::math::Invert(rest_models[j]);

    std::vector<float> out_p(3 * kVertices), out_n(3 * kVertices);
    ozz::geometry::SkinningJob sk;
    sk.vertex_count = kVertices;
    sk.influences_count = 4;
    sk.joint_matrices = ozz::make_span(palette);
    sk.joint_indices = ozz::make_span(c.indices);
    sk.joint_indices_stride = 4 * sizeof(uint16_t);
    sk.joint_weights = ozz::make_span(c.weights);
    sk.joint_weights_stride = 3 * sizeof(float);
    sk.in_positions = ozz::make_span(c.positions);
    sk.in_positions_stride = 3 * sizeof(float);
    sk.in_normals = ozz::make_span(c.normals);
    sk.in_normals_stride = 3 * sizeof(float);
    sk.out_positions = ozz::make_span(out_p);
    sk.out_positions_stride = 3 * sizeof(float);
    sk.out_normals = ozz::make_span(out_n);
    sk.out_normals_stride = 3 * sizeof(float);
    if (!sk.Run()) std::abort();
    // Sanity: the pose moves the mesh, normals stay (about) unit.
    double moved = 0, nerr = 0;
    for (int i = 0; i < kVertices; ++i) {
      float dx = out_p[3 * i] - c.positions[3 * i];
      float dy = out_p[3 * i + 1] - c.positions[3 * i + 1];
      float dz = out_p[3 * i + 2] - c.positions[3 * i + 2];
      moved += std::sqrt(dx * dx + dy * dy + dz * dz);
      float l = std::sqrt(out_n[3 * i] * out_n[3 * i] + out_n[3 * i + 1] * out_n[3 * i + 1] +
                          out_n[3 * i + 2] * out_n[3 * i + 2]);
      nerr = std::max(nerr, static_cast<double>(std::fabs(l - 1.f)));
    }
    std::printf("# skinning check: mean displacement %.3f, max |normal|-1 %.3f\n",
                moved / kVertices, nerr);
    bench("skinning/rigid/" + std::to_string(n), kVertices, "Mverts/s", [&] {
      sk.Run();
      keep(out_p);
    });
  }
  return 0;
}
