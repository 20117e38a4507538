/* Additive clips, IK and local to model below a bone from C, built with
 * -fsanitize=address,undefined by tests/c_programs.rs. Task lines (expected values are
 * the Rust runtime's for the same inputs; poses are clip CLIP at TIME, looped):
 *
 *   A FILE CLIP ADDITIVE KIND TIME REFCLIP|-      gom_clip_additive_reference
 *   D FILE CLIP ADDCLIP TIME WEIGHT MASKED N (10 floats)*N
 *                                                 gom_blend_additive (mask: bone i
 *                                                 weighs (i % 3) / 2)
 *   K FILE CLIP TIME START MID END T3 P3 AXIS3 WEIGHT SOFTEN TWIST REACHED N (16)*N
 *                                                 gom_two_bone_ik: local and model out
 *   I FILE CLIP TIME BONE T3 F3 U3 O3 P3 TWIST WEIGHT REACHED N (16)*N   gom_aim_ik
 *   L FILE CLIP TIME BONE                         gom_local_to_model_from = the full
 *                                                 gom_local_to_model, bit for bit
 *   N FILE                                        NULLs, counts, ranges, overlaps
 */
#include "common.h"

/* Clip `clip` at `time` (looped): local transforms and model matrices, malloc'ed. */
static void pose_of(const gom_asset* a, uint32_t clip, float time, gom_transform** local,
                    float** model) {
    uint32_t n = gom_bone_count(a);
    *local = (gom_transform*)malloc((n ? n : 1) * sizeof(gom_transform));
    *model = (float*)malloc((n ? n : 1) * 16 * sizeof(float));
    gom_sampler* s = gom_sampler_create(a, clip, NULL);
    CHECK(s != NULL);
    CHECK_CODE(gom_sample(s, time, 1, *local, n), GOM_OK);
    CHECK_CODE(gom_local_to_model(a, *local, *model, n), GOM_OK);
    gom_sampler_free(s);
}

static void read3(words* w, float* v) {
    for (int i = 0; i < 3; i++) v[i] = next_float(w);
}

static void task_reference(words* w, gom_asset* a) {
    uint32_t clip = (uint32_t)next_int(w);
    int additive = (int)next_int(w);
    uint32_t kind = (uint32_t)next_int(w);
    float time = next_float(w);
    const char* ref = next_word(w);
    CHECK(gom_clip_is_additive(a, clip) == additive);
    gom_additive_reference r;
    CHECK_CODE(gom_clip_additive_reference(a, clip, &r), GOM_OK);
    CHECK(r.kind == kind && r.time == time);
    if (strcmp(ref, "-") == 0)
        CHECK(r.clip_name == NULL);
    else
        CHECK(r.clip_name && strcmp(r.clip_name, ref) == 0);
}

static void task_blend(words* w, gom_asset* a) {
    uint32_t clip = (uint32_t)next_int(w), add = (uint32_t)next_int(w);
    float time = next_float(w), weight = next_float(w);
    int masked = (int)next_int(w);
    uint32_t n = (uint32_t)next_int(w);
    CHECK(n == gom_bone_count(a));
    gom_transform *base, *delta, *out = (gom_transform*)malloc((n ? n : 1) * sizeof(gom_transform));
    float *model, *dmodel, *mask = (float*)malloc((n ? n : 1) * sizeof(float));
    pose_of(a, clip, time, &base, &model);
    pose_of(a, add, time, &delta, &dmodel);
    for (uint32_t i = 0; i < n; i++) mask[i] = (float)(i % 3) / 2.0f;
    CHECK_CODE(gom_blend_additive(a, base, delta, weight, masked ? mask : NULL, out, n), GOM_OK);
    for (uint32_t i = 0; i < n; i++) {
        float want[10];
        for (int c = 0; c < 10; c++) want[c] = next_float(w);
        CHECK(within(out[i].translation, want, 3, 1e-6f, "blended translation"));
        CHECK(within(out[i].rotation, want + 3, 4, 1e-6f, "blended rotation"));
        CHECK(within(out[i].scale, want + 7, 3, 1e-6f, "blended scale"));
    }
    /* Weight 0 is the base exactly. */
    CHECK_CODE(gom_blend_additive(a, base, delta, 0.0f, NULL, out, n), GOM_OK);
    CHECK(memcmp(out, base, n * sizeof(gom_transform)) == 0);
    free(base), free(delta), free(out), free(model), free(dmodel), free(mask);
}

/* Compares `model` with the N matrices the task line lists. */
static void expect_model(words* w, const float* model, uint32_t n, const char* what) {
    CHECK((uint32_t)next_int(w) == n);
    for (uint32_t i = 0; i < n; i++) {
        float want[16];
        for (int c = 0; c < 16; c++) want[c] = next_float(w);
        CHECK(within(model + 16 * i, want, 16, 1e-5f, what));
    }
}

/* Model matrices of `local` by the full pass, to compare with an in-place update. */
static void check_consistent(const gom_asset* a, const gom_transform* local, const float* model) {
    uint32_t n = gom_bone_count(a);
    float* full = (float*)malloc((n ? n : 1) * 16 * sizeof(float));
    CHECK_CODE(gom_local_to_model(a, local, full, n), GOM_OK);
    CHECK(within(model, full, 16 * (size_t)n, 1e-5f, "IK model against local to model"));
    free(full);
}

static void task_two_bone(words* w, gom_asset* a) {
    uint32_t clip = (uint32_t)next_int(w);
    float time = next_float(w);
    uint32_t start = (uint32_t)next_int(w), mid = (uint32_t)next_int(w), end = (uint32_t)next_int(w);
    gom_two_bone_ik_params p;
    read3(w, p.target), read3(w, p.pole), read3(w, p.mid_axis);
    p.weight = next_float(w), p.soften = next_float(w), p.twist = next_float(w);
    int want_reached = (int)next_int(w);
    uint32_t n = gom_bone_count(a);
    gom_transform* local;
    float* model;
    pose_of(a, clip, time, &local, &model);
    int32_t reached = -1;
    CHECK_CODE(gom_two_bone_ik(a, start, mid, end, &p, local, model, n, &reached), GOM_OK);
    CHECK(reached == want_reached);
    expect_model(w, model, n, "two-bone IK model");
    check_consistent(a, local, model);
    /* Reached: the end joint is at the target (row 3 of its matrix). */
    if (reached) CHECK(within(model + 16 * end + 12, p.target, 3, 1e-3f, "end joint"));
    free(local), free(model);
}

static void task_aim(words* w, gom_asset* a) {
    uint32_t clip = (uint32_t)next_int(w);
    float time = next_float(w);
    uint32_t bone = (uint32_t)next_int(w);
    gom_aim_ik_params p;
    read3(w, p.target), read3(w, p.forward), read3(w, p.up), read3(w, p.offset), read3(w, p.pole);
    p.twist = next_float(w), p.weight = next_float(w);
    int want_reached = (int)next_int(w);
    uint32_t n = gom_bone_count(a);
    gom_transform* local;
    float* model;
    pose_of(a, clip, time, &local, &model);
    int32_t reached = -1;
    CHECK_CODE(gom_aim_ik(a, bone, &p, local, model, n, &reached), GOM_OK);
    CHECK(reached == want_reached);
    expect_model(w, model, n, "aim IK model");
    check_consistent(a, local, model);
    free(local), free(model);
}

static void task_from(words* w, gom_asset* a) {
    uint32_t clip = (uint32_t)next_int(w);
    float time = next_float(w);
    uint32_t bone = (uint32_t)next_int(w), n = gom_bone_count(a);
    gom_transform* local;
    float *model, *full = (float*)malloc((n ? n : 1) * 16 * sizeof(float));
    pose_of(a, clip, time, &local, &model);
    /* Turn the bone a quarter about z, then update below it only. */
    local[bone].rotation[0] = 0, local[bone].rotation[1] = 0;
    local[bone].rotation[2] = 0.70710678f, local[bone].rotation[3] = 0.70710678f;
    CHECK_CODE(gom_local_to_model_from(a, bone, local, model, n), GOM_OK);
    CHECK_CODE(gom_local_to_model(a, local, full, n), GOM_OK);
    CHECK(memcmp(model, full, (size_t)n * 16 * sizeof(float)) == 0);
    free(local), free(model), free(full);
}

static void task_null(gom_asset* a) {
    uint32_t n = gom_bone_count(a), cc = gom_clip_count(a);
    gom_transform* local;
    float* model;
    pose_of(a, 0, 0.1f, &local, &model);
    gom_transform* out = (gom_transform*)malloc((n + 1) * sizeof(gom_transform));
    gom_additive_reference r;
    gom_two_bone_ik_params tp = {{0, 1, 0}, {1, 0, 0}, {0, 0, 1}, 1, 1, 0};
    gom_aim_ik_params ap = {{0, 1, 1}, {0, 1, 0}, {1, 0, 0}, {0, 0, 0}, {0, 0, 1}, 0, 1};
    int32_t reached;
    CHECK(gom_clip_is_additive(NULL, 0) == 0);
    CHECK(gom_clip_is_additive(a, cc) == 0);
    CHECK_CODE(gom_clip_additive_reference(NULL, 0, &r), GOM_E_NULL);
    CHECK_CODE(gom_clip_additive_reference(a, cc, &r), GOM_E_RANGE);
    CHECK_CODE(gom_clip_additive_reference(a, 0, NULL), GOM_E_NULL);
    CHECK_CODE(gom_blend_additive(NULL, local, local, 1, NULL, out, n), GOM_E_NULL);
    CHECK_CODE(gom_blend_additive(a, local, local, 1, NULL, out, n + 1), GOM_E_COUNT);
    CHECK_CODE(gom_blend_additive(a, NULL, local, 1, NULL, out, n), GOM_E_NULL);
    CHECK_CODE(gom_blend_additive(a, local, NULL, 1, NULL, out, n), GOM_E_NULL);
    CHECK_CODE(gom_blend_additive(a, local, local, 1, NULL, NULL, n), GOM_E_NULL);
    CHECK_CODE(gom_blend_additive(a, local, out, 1, NULL, out, n), GOM_E_ARGUMENT);
    CHECK_CODE(gom_blend_additive(a, local, local, 1, (float*)out, out, n), GOM_E_ARGUMENT);
    CHECK_CODE(gom_blend_additive(a, local, local, 1, NULL, out + 1, n), GOM_OK);
    /* IK: NULLs, counts, bones out of range, overlapping or misaligned buffers. */
    CHECK_CODE(gom_two_bone_ik(NULL, 1, 2, 3, &tp, local, model, n, &reached), GOM_E_NULL);
    CHECK_CODE(gom_two_bone_ik(a, 1, 2, 3, NULL, local, model, n, &reached), GOM_E_NULL);
    CHECK_CODE(gom_two_bone_ik(a, 1, 2, 3, &tp, NULL, model, n, &reached), GOM_E_NULL);
    CHECK_CODE(gom_two_bone_ik(a, 1, 2, 3, &tp, local, NULL, n, &reached), GOM_E_NULL);
    CHECK_CODE(gom_two_bone_ik(a, 1, 2, 3, &tp, local, model, n - 1, &reached), GOM_E_COUNT);
    CHECK_CODE(gom_two_bone_ik(a, 1, 2, n, &tp, local, model, n, &reached), GOM_E_RANGE);
    CHECK_CODE(gom_two_bone_ik(a, 0xFFFFFFFFu, 2, 3, &tp, local, model, n, NULL), GOM_E_RANGE);
    CHECK_CODE(gom_two_bone_ik(a, 1, 2, 3, &tp, local, (float*)local, n, NULL), GOM_E_ARGUMENT);
    CHECK_CODE(gom_two_bone_ik(a, 1, 2, 3, &tp, local, (float*)((char*)model + 2), n, NULL),
               GOM_E_ARGUMENT);
    CHECK_CODE(gom_aim_ik(NULL, 1, &ap, local, model, n, &reached), GOM_E_NULL);
    CHECK_CODE(gom_aim_ik(a, 1, NULL, local, model, n, &reached), GOM_E_NULL);
    CHECK_CODE(gom_aim_ik(a, n, &ap, local, model, n, &reached), GOM_E_RANGE);
    CHECK_CODE(gom_aim_ik(a, 1, &ap, local, model, n + 1, &reached), GOM_E_COUNT);
    CHECK_CODE(gom_aim_ik(a, 1, &ap, local, model, n, &reached), GOM_OK);
    /* Degenerate inputs give no NaN: a target on the joint, NaN parameters. */
    memcpy(ap.target, model + 16 * 1 + 12, 3 * sizeof(float));
    ap.twist = NAN;
    tp.target[0] = NAN;
    CHECK_CODE(gom_aim_ik(a, 1, &ap, local, model, n, &reached), GOM_OK);
    CHECK_CODE(gom_two_bone_ik(a, 1, 2, 3, &tp, local, model, n, &reached), GOM_OK);
    for (uint32_t i = 0; i < 16 * n; i++) CHECK(isfinite(model[i]));
    CHECK_CODE(gom_local_to_model_from(NULL, 0, local, model, n), GOM_E_NULL);
    CHECK_CODE(gom_local_to_model_from(a, n, local, model, n), GOM_E_RANGE);
    CHECK_CODE(gom_local_to_model_from(a, 0, local, model, n + 1), GOM_E_COUNT);
    CHECK_CODE(gom_local_to_model_from(a, 0, NULL, model, n), GOM_E_NULL);
    CHECK_CODE(gom_local_to_model_from(a, 0, local, NULL, n), GOM_E_NULL);
    CHECK_CODE(gom_local_to_model_from(a, 0, local, (float*)local, n), GOM_E_ARGUMENT);
    gom_error err;
    gom_last_error(&err);
    CHECK(err.code == GOM_E_ARGUMENT && err.message[0]);
    free(local), free(model), free(out);
}

static void task(words* w) {
    const char* kind = next_word(w);
    gom_asset* a = open_or_fail(next_word(w));
    if (!a) return;
    switch (kind[0]) {
        case 'A': task_reference(w, a); break;
        case 'D': task_blend(w, a); break;
        case 'K': task_two_bone(w, a); break;
        case 'I': task_aim(w, a); break;
        case 'L': task_from(w, a); break;
        case 'N': task_null(a); break;
        default: fprintf(stderr, "unknown task %s\n", kind); g_failures++;
    }
    gom_asset_free(a);
}

int main(int argc, char** argv) { return run_task_file(argc, argv, task); }
