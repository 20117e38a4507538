/* The blend-shape entry points from C, built with -fsanitize=address,undefined by
 * tests/c_programs.rs. Task lines:
 *
 *   T FILE MESH COUNT (NAME DEFAULT)*      targets' names and default weights
 *   W FILE CLIP MESH TIME LOOP COUNT W*    sampled weights (the Rust runtime's)
 *   S FILE CLIP TIME LOOP EXPECTED.obj     morph + skin every mesh = `gom pose`
 *   B FILE EXPECTED.obj                    default weights through gom_morph = the
 *                                          bind pose `gom pose` writes
 *   N FILE                                 NULLs, wrong counts, out-of-range indices
 */
#include "common.h"

static void task_targets(words* w, gom_asset* a) {
    uint32_t mesh = (uint32_t)next_int(w), count = (uint32_t)next_int(w);
    CHECK(gom_mesh_morph_target_count(a, mesh) == count);
    float* got = (float*)malloc((count ? count : 1) * sizeof(float));
    CHECK_CODE(gom_mesh_morph_default_weights(a, mesh, got, count), GOM_OK);
    for (uint32_t k = 0; k < count; k++) {
        const char* name = next_word(w);
        const char* have = gom_mesh_morph_target_name(a, mesh, k);
        CHECK(have && strcmp(have, name) == 0);
        CHECK(got[k] == next_float(w));
    }
    CHECK(gom_mesh_morph_target_name(a, mesh, count) == NULL);
    free(got);
}

static void task_weights(words* w, gom_asset* a) {
    uint32_t clip = (uint32_t)next_int(w), mesh = (uint32_t)next_int(w);
    float time = next_float(w);
    int loop = (int)next_int(w);
    uint32_t count = (uint32_t)next_int(w);
    float want[64], got[64];
    CHECK(count <= 64);
    for (uint32_t k = 0; k < count && k < 64; k++) want[k] = next_float(w);
    gom_error err;
    gom_sampler* s = gom_sampler_create(a, clip, &err);
    CHECK(s != NULL);
    CHECK_CODE(gom_sample_weights(s, mesh, time, loop, got, count), GOM_OK);
    CHECK(within(got, want, count, 1e-6f, "sampled weights"));
    gom_sampler_free(s);
}

/* The weights of mesh `m` at the sampler's clip (the defaults when `s` is NULL),
 * malloc'ed; `*count` receives their number. */
static float* weights_of(const gom_asset* a, const gom_sampler* s, uint32_t m, float time,
                         int loop, uint32_t* count) {
    *count = gom_mesh_morph_target_count(a, m);
    float* wts = (float*)malloc((*count ? *count : 1) * sizeof(float));
    if (s)
        CHECK_CODE(gom_sample_weights(s, m, time, loop, wts, *count), GOM_OK);
    else
        CHECK_CODE(gom_mesh_morph_default_weights(a, m, wts, *count), GOM_OK);
    return wts;
}

static void task_skin(words* w, gom_asset* a) {
    int32_t clip = (int32_t)next_int(w);
    float time = next_float(w);
    int loop = (int)next_int(w);
    const char* expected = next_word(w);
    obj_data want;
    if (!obj_read(expected, &want)) {
        fprintf(stderr, "cannot read %s\n", expected);
        g_failures++;
        return;
    }
    uint32_t n = gom_bone_count(a);
    float* model = (float*)malloc((n ? n : 1) * 16 * sizeof(float));
    CHECK_CODE(pose_model(a, clip, time, loop, model), GOM_OK);
    gom_error err;
    gom_sampler* s = clip >= 0 ? gom_sampler_create(a, (uint32_t)clip, &err) : NULL;
    size_t at_v = 0, at_n = 0;
    for (uint32_t m = 0; m < gom_mesh_count(a); m++) {
        uint32_t vc = gom_mesh_vertex_count(a, m), tc, pn = gom_mesh_palette_size(a, m);
        float* wts = weights_of(a, s, m, time, loop, &tc);
        float* palette = (float*)malloc((pn ? pn : 1) * 16 * sizeof(float));
        float* p = (float*)malloc((vc ? vc : 1) * 3 * sizeof(float));
        float* nr = (float*)malloc((vc ? vc : 1) * 3 * sizeof(float));
        int normals = (gom_mesh_vertex_format(a, m) & GOM_VERTEX_NORMAL) != 0;
        gom_morpher* mo = gom_morpher_create(a, m, &err);
        CHECK(mo != NULL && err.code == GOM_OK);
        CHECK_CODE(gom_palette(a, m, model, palette, pn), GOM_OK);
        /* Twice: the second call restores what the first moved before morphing. */
        for (int pass = 0; pass < 2; pass++)
            CHECK_CODE(gom_morph_skin(mo, tc ? wts : NULL, tc, palette, pn, p,
                                      normals ? nr : NULL, vc),
                       GOM_OK);
        CHECK(at_v + vc <= want.v_count);
        if (at_v + vc <= want.v_count)
            CHECK(within(p, want.v + 3 * at_v, 3 * (size_t)vc, 1e-5f, expected));
        at_v += vc;
        if (normals) {
            CHECK(at_n + vc <= want.vn_count);
            if (at_n + vc <= want.vn_count)
                CHECK(within(nr, want.vn + 3 * at_n, 3 * (size_t)vc, 1e-5f, expected));
            at_n += vc;
        }
        gom_morpher_free(mo);
        free(wts), free(palette), free(p), free(nr);
    }
    CHECK(at_v == want.v_count && at_n == want.vn_count);
    gom_sampler_free(s);
    free(model);
    obj_free(&want);
}

/* gom_morph then the morpher's vertex bytes: with no weight the mesh's own bytes, with
 * the default weights the bind positions `gom pose` writes once taken to model space
 * by the mesh's GBTM (skinning a bind pose moves nothing else but rounding). */
static void task_bind(words* w, gom_asset* a) {
    const char* expected = next_word(w);
    obj_data want;
    if (!obj_read(expected, &want)) {
        g_failures++;
        return;
    }
    size_t at_v = 0;
    for (uint32_t m = 0; m < gom_mesh_count(a); m++) {
        uint32_t vc = gom_mesh_vertex_count(a, m), tc;
        uint32_t stride = gom_mesh_vertex_stride(a, m) / 4;
        float* wts = weights_of(a, NULL, m, 0, 0, &tc);
        float* zero = (float*)calloc(tc ? tc : 1, sizeof(float));
        gom_morpher* mo = gom_morpher_create(a, m, NULL);
        size_t own_size, size;
        const void* own = gom_mesh_vertex_data(a, m, &own_size);
        CHECK_CODE(gom_morph(mo, tc ? zero : NULL, tc), GOM_OK);
        const float* v = (const float*)gom_morpher_vertex_data(mo, &size);
        CHECK(v && size == own_size && memcmp(v, own, size) == 0);
        CHECK_CODE(gom_morph(mo, tc ? wts : NULL, tc), GOM_OK);
        v = (const float*)gom_morpher_vertex_data(mo, &size);
        CHECK(v && size == own_size && at_v + vc <= want.v_count);
        float g[16], p[3];
        CHECK_CODE(gom_mesh_gbtm(a, m, g), GOM_OK);
        for (uint32_t i = 0; v && i < vc && at_v + vc <= want.v_count; i++) {
            const float* q = v + (size_t)i * stride;
            for (int c = 0; c < 3; c++) p[c] = q[0] * g[c] + q[1] * g[4 + c] + q[2] * g[8 + c] + g[12 + c];
            CHECK(within(p, want.v + 3 * (at_v + i), 3, 1e-4f, expected));
        }
        at_v += vc;
        gom_morpher_free(mo);
        free(wts), free(zero);
    }
    obj_free(&want);
}

static void task_null(gom_asset* a) {
    gom_error err;
    uint32_t mc = gom_mesh_count(a), cc = gom_clip_count(a);
    float wts[64], buf[64];
    CHECK(gom_mesh_morph_target_count(NULL, 0) == 0);
    CHECK(gom_mesh_morph_target_count(a, mc) == 0);
    CHECK(gom_mesh_morph_target_name(NULL, 0, 0) == NULL);
    CHECK(gom_mesh_morph_target_name(a, mc, 0) == NULL);
    CHECK_CODE(gom_mesh_morph_default_weights(NULL, 0, wts, 0), GOM_E_NULL);
    CHECK_CODE(gom_mesh_morph_default_weights(a, mc, wts, 0), GOM_E_RANGE);
    CHECK_CODE(gom_sample_weights(NULL, 0, 0, 0, wts, 0), GOM_E_NULL);
    CHECK(gom_morpher_create(NULL, 0, &err) == NULL && err.code == GOM_E_NULL);
    CHECK(gom_morpher_create(a, mc, &err) == NULL && err.code == GOM_E_RANGE && err.message[0]);
    gom_morpher_free(NULL);
    CHECK_CODE(gom_morph(NULL, wts, 0), GOM_E_NULL);
    CHECK_CODE(gom_morph_skin(NULL, wts, 0, buf, 0, buf, NULL, 0), GOM_E_NULL);
    size_t size = 7;
    CHECK(gom_morpher_vertex_data(NULL, &size) == NULL && size == 0);
    for (uint32_t m = 0; m < mc; m++) {
        uint32_t tc = gom_mesh_morph_target_count(a, m), vc = gom_mesh_vertex_count(a, m);
        uint32_t pn = gom_mesh_palette_size(a, m);
        if (tc == 0 || tc >= 64) continue;
        CHECK(gom_mesh_morph_target_name(a, m, tc) == NULL);
        CHECK(gom_mesh_morph_target_name(a, m, 0xFFFFFFFFu) == NULL);
        CHECK_CODE(gom_mesh_morph_default_weights(a, m, wts, tc + 1), GOM_E_COUNT);
        CHECK_CODE(gom_mesh_morph_default_weights(a, m, NULL, tc), GOM_E_NULL);
        /* A misaligned output. */
        CHECK_CODE(gom_mesh_morph_default_weights(a, m, (float*)((char*)buf + 1), tc),
                   GOM_E_ARGUMENT);
        if (cc > 0) {
            gom_sampler* s = gom_sampler_create(a, 0, NULL);
            CHECK_CODE(gom_sample_weights(s, m, 0, 0, wts, tc - 1), GOM_E_COUNT);
            CHECK_CODE(gom_sample_weights(s, mc, 0, 0, wts, tc), GOM_E_RANGE);
            CHECK_CODE(gom_sample_weights(s, m, 0, 0, NULL, tc), GOM_E_NULL);
            /* A non-finite time samples 0. */
            float at0[64];
            CHECK_CODE(gom_sample_weights(s, m, 0.0f, 0, at0, tc), GOM_OK);
            CHECK_CODE(gom_sample_weights(s, m, NAN, 1, wts, tc), GOM_OK);
            CHECK(memcmp(at0, wts, tc * sizeof(float)) == 0);
            gom_sampler_free(s);
        }
        gom_morpher* mo = gom_morpher_create(a, m, &err);
        float* pal = (float*)calloc((size_t)(pn ? pn : 1) * 16, sizeof(float));
        float* out = (float*)malloc((size_t)(vc ? vc : 1) * 3 * sizeof(float));
        float* out2 = (float*)malloc((size_t)(vc ? vc : 1) * 3 * sizeof(float));
        CHECK_CODE(gom_morph(mo, wts, tc + 1), GOM_E_COUNT);
        CHECK_CODE(gom_morph(mo, NULL, tc), GOM_E_NULL);
        CHECK_CODE(gom_morph_skin(mo, wts, tc, pal, pn + 1, out, NULL, vc), GOM_E_COUNT);
        CHECK_CODE(gom_morph_skin(mo, wts, tc, pal, pn, out, NULL, vc + 1), GOM_E_COUNT);
        CHECK_CODE(gom_morph_skin(mo, wts, tc - 1, pal, pn, out, NULL, vc), GOM_E_COUNT);
        CHECK_CODE(gom_morph_skin(mo, wts, tc, NULL, pn, out, NULL, vc), GOM_E_NULL);
        CHECK_CODE(gom_morph_skin(mo, wts, tc, pal, pn, NULL, NULL, vc), GOM_E_NULL);
        /* Outputs that overlap each other or an input. */
        CHECK_CODE(gom_morph_skin(mo, wts, tc, pal, pn, out, out, vc), GOM_E_ARGUMENT);
        CHECK_CODE(gom_morph_skin(mo, out, tc, pal, pn, out, out2, vc), GOM_E_ARGUMENT);
        CHECK_CODE(gom_morph_skin(mo, wts, tc, out, pn, out, out2, vc), GOM_E_ARGUMENT);
        float* copy = (float*)gom_morpher_vertex_data(mo, NULL);
        CHECK(copy != NULL);
        /* An output inside the morpher's own vertices. */
        if (copy) CHECK_CODE(gom_morph_skin(mo, wts, tc, pal, pn, copy, out2, vc), GOM_E_ARGUMENT);
        gom_last_error(&err);
        CHECK(err.code != GOM_OK && err.message[0]);
        free(pal), free(out), free(out2);
        gom_morpher_free(mo);
    }
}

static void task(words* w) {
    const char* kind = next_word(w);
    gom_asset* a = open_or_fail(next_word(w));
    if (!a) return;
    switch (kind[0]) {
        case 'T': task_targets(w, a); break;
        case 'W': task_weights(w, a); break;
        case 'S': task_skin(w, a); break;
        case 'B': task_bind(w, a); break;
        case 'N': task_null(a); break;
        default: fprintf(stderr, "unknown task %s\n", kind); g_failures++;
    }
    gom_asset_free(a);
}

int main(int argc, char** argv) { return run_task_file(argc, argv, task); }
