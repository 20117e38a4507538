/* The C API's test program, built with -fsanitize=address,undefined by the Rust test
 * tests/c_programs.rs. It reads a list of tasks (one per line):
 *
 *   P FILE.gom CLIP TIME LOOP EXPECTED.obj   pose and compare with `gom pose`'s OBJ
 *   N FILE.gom                               NULLs, wrong counts, out-of-range indices
 *   F FILE.gom                               every truncation and 10,000 corruptions
 *   T FILE.gom                               several threads, one shared asset
 *   C FILE.gom                               the ownership contract of gom_asset_open
 *
 * and exits 0 when every check passed. */
#include <math.h>
#include <pthread.h>

#include "common.h"

/* ---- P: poses against gom pose ------------------------------------------------ */

static void task_pose(const char* path, int clip, float time, int loop, const char* expected) {
    gom_error err;
    gom_asset* a = gom_asset_open_file(path, &err);
    if (!a) {
        fprintf(stderr, "%s: %s\n", path, err.message);
        g_failures++;
        return;
    }
    CHECK(err.code == GOM_OK);
    obj_data want;
    if (!obj_read(expected, &want)) {
        fprintf(stderr, "cannot read %s\n", expected);
        g_failures++;
        gom_asset_free(a);
        return;
    }
    uint32_t n = gom_bone_count(a);
    float* model = (float*)malloc((n ? n : 1) * 16 * sizeof(float));
    CHECK_CODE(pose_model(a, clip, time, loop, model), GOM_OK);
    size_t at_v = 0, at_n = 0;
    for (uint32_t m = 0; m < gom_mesh_count(a); m++) {
        uint32_t vc = gom_mesh_vertex_count(a, m);
        float* p = (float*)malloc((vc ? vc : 1) * 3 * sizeof(float));
        float* nr = (float*)malloc((vc ? vc : 1) * 3 * sizeof(float));
        CHECK_CODE(skin_mesh_at(a, m, clip, time, loop, model, p, nr), GOM_OK);
        if (at_v + vc > want.v_count) {
            fprintf(stderr, "%s: more vertices than gom pose wrote\n", path);
            g_failures++;
        } else {
            if (!close_enough(p, want.v + 3 * at_v, 3 * (size_t)vc, "position", path)) g_failures++;
            at_v += vc;
        }
        if (gom_mesh_vertex_format(a, m) & GOM_VERTEX_NORMAL) {
            if (at_n + vc > want.vn_count) {
                fprintf(stderr, "%s: more normals than gom pose wrote\n", path);
                g_failures++;
            } else {
                if (!close_enough(nr, want.vn + 3 * at_n, 3 * (size_t)vc, "normal", path))
                    g_failures++;
                at_n += vc;
            }
        }
        free(p);
        free(nr);
    }
    CHECK(at_v == want.v_count);
    CHECK(at_n == want.vn_count);
    free(model);
    obj_free(&want);
    gom_asset_free(a);
}

/* ---- N: every entry point with NULLs, wrong counts, out-of-range indices ------- */

static void task_null(const char* path) {
    gom_error err;
    memset(&err, 0, sizeof err);
    CHECK(gom_version() == ((GOM_VERSION_MAJOR << 16) | (GOM_VERSION_MINOR << 8) | GOM_VERSION_PATCH));
    CHECK(gom_asset_open(NULL, 16, &err) == NULL && err.code == GOM_E_NULL && err.message[0]);
    CHECK(gom_asset_open_copy(NULL, 16, &err) == NULL && err.code == GOM_E_NULL);
    CHECK(gom_asset_open_file(NULL, &err) == NULL && err.code == GOM_E_NULL);
    CHECK(gom_asset_open_file("/no/such/file.gom", &err) == NULL && err.code == GOM_E_IO);
    CHECK(gom_asset_open_file("/no/such/file.gom", NULL) == NULL);
    CHECK(gom_asset_open("GOMB0001", 8, &err) == NULL && err.code == GOM_E_READ && err.message[0]);
    gom_asset_free(NULL);
    gom_sampler_free(NULL);

    /* NULL assets. */
    CHECK(gom_bone_count(NULL) == 0);
    CHECK(gom_bone_name(NULL, 0) == NULL);
    CHECK(gom_bone_parent(NULL, 0) == -1);
    CHECK(gom_bone_find(NULL, "x") == -1);
    CHECK(gom_mesh_count(NULL) == 0);
    CHECK(gom_mesh_vertex_count(NULL, 0) == 0);
    CHECK(gom_mesh_index_count(NULL, 0) == 0);
    CHECK(gom_clip_count(NULL) == 0);
    CHECK(gom_clip_find(NULL, "x") == -1);
    CHECK(gom_clip_duration(NULL, 0) == 0.0f);
    CHECK(gom_clip_name(NULL, 0) == NULL);
    CHECK(gom_material_count(NULL) == 0);
    CHECK(gom_bind_local_matrices(NULL) == NULL);
    CHECK(gom_sampler_create(NULL, 0, &err) == NULL && err.code == GOM_E_NULL);
    CHECK_CODE(gom_sample(NULL, 0, 0, NULL, 0), GOM_E_NULL);
    CHECK_CODE(gom_local_to_model(NULL, NULL, NULL, 0), GOM_E_NULL);
    CHECK_CODE(gom_palette(NULL, 0, NULL, NULL, 0), GOM_E_NULL);
    CHECK_CODE(gom_skin(NULL, 0, NULL, 0, NULL, NULL, 0), GOM_E_NULL);
    CHECK_CODE(gom_bind_pose(NULL, NULL, 0), GOM_E_NULL);
    size_t size = 123;
    CHECK(gom_mesh_vertex_data(NULL, 0, &size) == NULL && size == 0);
    CHECK(gom_mesh_index_data(NULL, 0, NULL) == NULL);
    gom_last_error(NULL);

    gom_asset* a = gom_asset_open_file(path, &err);
    if (!a) {
        fprintf(stderr, "%s: %s\n", path, err.message);
        g_failures++;
        return;
    }
    uint32_t n = gom_bone_count(a), mc = gom_mesh_count(a), cc = gom_clip_count(a);
    /* Out-of-range indices. */
    CHECK(gom_bone_name(a, n) == NULL);
    CHECK(gom_bone_parent(a, n) == -1);
    CHECK(gom_bone_parent(a, 0xFFFFFFFFu) == -1);
    CHECK(gom_mesh_name(a, mc) == NULL);
    CHECK(gom_mesh_vertex_count(a, mc) == 0);
    CHECK(gom_mesh_index_count(a, mc) == 0);
    CHECK(gom_mesh_vertex_format(a, mc) == 0);
    CHECK(gom_mesh_skinning_method(a, mc) == GOM_SKINNING_LINEAR);
    CHECK(gom_mesh_skinning_method(NULL, 0) == GOM_SKINNING_LINEAR);
    CHECK(gom_mesh_influence_count(a, mc) == 0);
    CHECK(gom_mesh_influence_count(NULL, 0) == 0);
    for (uint32_t m = 0; m < mc; m++) {
        uint32_t k = gom_mesh_influence_count(a, m);
        CHECK(k == ((gom_mesh_vertex_format(a, m) & GOM_VERTEX_SKIN) ? k : 0));
        CHECK(k == 0 || k == 4 || k == 8);
        CHECK(gom_mesh_skinning_method(a, m) <= GOM_SKINNING_BLENDED);
    }
    CHECK(gom_mesh_vertex_stride(a, mc) == 0);
    CHECK(gom_mesh_palette_size(a, mc) == 0);
    CHECK(gom_mesh_attribute_offset(a, 0, 3) == -1); /* two bits */
    CHECK(gom_mesh_vertex_data(a, mc, &size) == NULL && size == 0);
    CHECK(gom_mesh_index_size(a, mc) == 0);
    CHECK(gom_mesh_submesh_count(a, mc) == 0);
    CHECK(gom_mesh_inverse_bind(a, mc) == NULL);
    CHECK(gom_clip_name(a, cc) == NULL);
    CHECK(gom_clip_duration(a, cc) == 0.0f);
    CHECK(gom_clip_find(a, "no clip has this name") == -1);
    CHECK(gom_clip_find(a, NULL) == -1);
    CHECK(gom_bone_find(a, NULL) == -1);
    CHECK(gom_material_name(a, gom_material_count(a)) == NULL);
    CHECK(gom_material_texture(a, gom_material_count(a)) == NULL);
    float rgba[4], g[16];
    CHECK_CODE(gom_material_base_color(a, gom_material_count(a), rgba), GOM_E_RANGE);
    CHECK_CODE(gom_mesh_gbtm(a, mc, g), GOM_E_RANGE);
    gom_submesh sub;
    gom_bounds bounds;
    CHECK_CODE(gom_mesh_bounds(a, mc, &bounds), GOM_E_RANGE);
    CHECK(gom_sampler_create(a, cc, &err) == NULL && err.code == GOM_E_RANGE);
    CHECK(gom_sampler_create(a, cc, NULL) == NULL);
    for (uint32_t c = 0; c < cc; c++) {
        int32_t found = gom_clip_find(a, gom_clip_name(a, c));
        CHECK(found >= 0 && (uint32_t)found <= c);
    }
    for (uint32_t b = 0; b < n; b++) {
        int32_t found = gom_bone_find(a, gom_bone_name(a, b));
        CHECK(found >= 0 && (uint32_t)found <= b);
        CHECK(gom_bone_parent(a, b) < (int32_t)b);
    }

    gom_transform* local = (gom_transform*)calloc(n + 1, sizeof(gom_transform));
    float* model = (float*)calloc((n + 1) * 16, sizeof(float));
    /* Bind pose: wrong count, NULL output. */
    CHECK_CODE(gom_bind_pose(a, local, n + 1), GOM_E_COUNT);
    if (n) CHECK_CODE(gom_bind_pose(a, NULL, n), GOM_E_NULL);
    CHECK_CODE(gom_bind_pose(a, local, n), GOM_OK);
    /* local_to_model. */
    CHECK_CODE(gom_local_to_model(a, local, model, n + 1), GOM_E_COUNT);
    if (n) {
        CHECK_CODE(gom_local_to_model(a, NULL, model, n), GOM_E_NULL);
        CHECK_CODE(gom_local_to_model(a, local, NULL, n), GOM_E_NULL);
        CHECK_CODE(gom_local_to_model(a, local, (float*)local, n), GOM_E_ARGUMENT);
        CHECK_CODE(gom_local_to_model(a, local, model + 1, n), GOM_OK); /* float-aligned */
        CHECK_CODE(gom_local_to_model(a, local, (float*)((char*)model + 1), n), GOM_E_ARGUMENT);
    }
    CHECK_CODE(gom_local_to_model(a, local, model, n), GOM_OK);
    gom_error last;
    CHECK_CODE(gom_local_to_model(a, local, model, n + 7), GOM_E_COUNT);
    gom_last_error(&last);
    CHECK(last.code == GOM_E_COUNT && last.message[0] != 0);
    CHECK_CODE(gom_local_to_model(a, local, model, n), GOM_OK);
    gom_last_error(&last);
    CHECK(last.code == GOM_OK && last.message[0] == 0);

    /* Sampling. */
    if (cc) {
        gom_sampler* s = gom_sampler_create(a, 0, &err);
        CHECK(s != NULL && err.code == GOM_OK);
        CHECK_CODE(gom_sample(s, 0.1f, 1, local, n + 1), GOM_E_COUNT);
        if (n) CHECK_CODE(gom_sample(s, 0.1f, 1, NULL, n), GOM_E_NULL);
        CHECK_CODE(gom_sample(s, NAN, 0, local, n), GOM_OK);
        CHECK_CODE(gom_sample(s, INFINITY, 1, local, n), GOM_OK);
        CHECK_CODE(gom_sample(s, -1e30f, 1, local, n), GOM_OK);
        CHECK_CODE(gom_sample(s, 0.1f, 1, local, n), GOM_OK);
        gom_sampler_free(s);
    }

    /* Palettes and skinning. */
    CHECK_CODE(gom_palette(a, mc, model, model, n), GOM_E_RANGE);
    CHECK_CODE(gom_skin(a, mc, model, n, model, NULL, 0), GOM_E_RANGE);
    for (uint32_t m = 0; m < mc; m++) {
        uint32_t pn = gom_mesh_palette_size(a, m), vc = gom_mesh_vertex_count(a, m);
        int skinned = (gom_mesh_vertex_format(a, m) & GOM_VERTEX_SKIN) != 0;
        CHECK(pn == (skinned ? n : 1));
        float* pal = (float*)calloc((pn + 1) * 16, sizeof(float));
        float* pos = (float*)calloc((vc + 1) * 3, sizeof(float));
        float* nrm = (float*)calloc((vc + 1) * 3, sizeof(float));
        CHECK_CODE(gom_palette(a, m, model, pal, pn + 1), GOM_E_COUNT);
        if (pn) CHECK_CODE(gom_palette(a, m, model, NULL, pn), GOM_E_NULL);
        if (skinned && pn) {
            CHECK_CODE(gom_palette(a, m, NULL, pal, pn), GOM_E_NULL);
            CHECK_CODE(gom_palette(a, m, model, model, pn), GOM_E_ARGUMENT);
        } else {
            CHECK_CODE(gom_palette(a, m, NULL, pal, pn), GOM_OK); /* model not read */
        }
        CHECK_CODE(gom_palette(a, m, model, pal, pn), GOM_OK);
        CHECK_CODE(gom_skin(a, m, pal, pn + 1, pos, NULL, vc), GOM_E_COUNT);
        CHECK_CODE(gom_skin(a, m, pal, pn, pos, NULL, vc + 1), GOM_E_COUNT);
        if (vc) {
            CHECK_CODE(gom_skin(a, m, pal, pn, NULL, NULL, vc), GOM_E_NULL);
            CHECK_CODE(gom_skin(a, m, pal, pn, pos, pos, vc), GOM_E_ARGUMENT);
            CHECK_CODE(gom_skin(a, m, pal, pn, pos + 1, pos, vc), GOM_E_ARGUMENT);
            if (pn) CHECK_CODE(gom_skin(a, m, pal, pn, pal, NULL, vc), GOM_E_ARGUMENT);
        }
        if (pn) CHECK_CODE(gom_skin(a, m, NULL, pn, pos, NULL, vc), GOM_E_NULL);
        int has_normals = (gom_mesh_vertex_format(a, m) & GOM_VERTEX_NORMAL) != 0;
        CHECK_CODE(gom_skin(a, m, pal, pn, pos, nrm, vc), has_normals ? GOM_OK : GOM_E_MISSING);
        CHECK_CODE(gom_skin(a, m, pal, pn, pos, NULL, vc), GOM_OK);
        /* Writing into the asset's own (const) bytes is refused. */
        size_t vsize = 0;
        const void* vdata = gom_mesh_vertex_data(a, m, &vsize);
        if (vc && vdata) CHECK_CODE(gom_skin(a, m, pal, pn, (float*)vdata, NULL, vc), GOM_E_ARGUMENT);
        CHECK(vsize == (size_t)vc * gom_mesh_vertex_stride(a, m));
        CHECK_CODE(gom_mesh_submesh(a, m, gom_mesh_submesh_count(a, m), &sub), GOM_E_RANGE);
        if (gom_mesh_submesh_count(a, m)) CHECK_CODE(gom_mesh_submesh(a, m, 0, NULL), GOM_E_NULL);
        CHECK_CODE(gom_mesh_gbtm(a, m, NULL), GOM_E_NULL);
        CHECK_CODE(gom_mesh_bounds(a, m, NULL), GOM_E_NULL);
        free(pal);
        free(pos);
        free(nrm);
    }
    free(local);
    free(model);
    gom_asset_free(a);
}

/* ---- F: truncations and corruptions ------------------------------------------- */

static uint64_t g_rng = 0x9E3779B97F4A7C15ull;
static uint32_t rng_next(void) {
    g_rng ^= g_rng << 13;
    g_rng ^= g_rng >> 7;
    g_rng ^= g_rng << 17;
    return (uint32_t)(g_rng >> 32);
}

/* Opens `size` bytes at `data`; an error must carry a code and a message; a valid
 * asset is posed and skinned (nothing may crash). Returns 1 when it opened. */
static int open_hostile(const unsigned char* data, size_t size) {
    gom_error err;
    memset(&err, 0x55, sizeof err);
    gom_asset* a = gom_asset_open(data, size, &err);
    if (!a) {
        CHECK(err.code != GOM_OK);
        CHECK(err.message[0] != 0);
        CHECK(memchr(err.message, 0, sizeof err.message) != NULL);
        return 0;
    }
    CHECK(err.code == GOM_OK && err.offset == 0);
    uint32_t n = gom_bone_count(a);
    float* model = (float*)malloc((n ? n : 1) * 16 * sizeof(float));
    for (int32_t c = -1; c < (int32_t)gom_clip_count(a); c++) {
        if (pose_model(a, c, 0.5f * gom_clip_duration(a, c < 0 ? 0 : (uint32_t)c), 1, model) != 0)
            continue;
        for (uint32_t m = 0; m < gom_mesh_count(a); m++) {
            uint32_t vc = gom_mesh_vertex_count(a, m);
            float* p = (float*)malloc((vc ? vc : 1) * 3 * sizeof(float));
            float* nr = (float*)malloc((vc ? vc : 1) * 3 * sizeof(float));
            skin_mesh(a, m, model, p, nr);
            free(p);
            free(nr);
        }
    }
    free(model);
    gom_asset_free(a);
    return 1;
}

static void task_fuzz(const char* path) {
    size_t size = 0;
    unsigned char* orig = read_file(path, &size);
    if (!orig) {
        fprintf(stderr, "cannot read %s\n", path);
        g_failures++;
        return;
    }
    CHECK(open_hostile(orig, size) == 1);
    size_t opened = 0;
    for (size_t len = 0; len < size; len++) {
        unsigned char* cut = (unsigned char*)malloc(len ? len : 1);
        memcpy(cut, orig, len);
        opened += (size_t)open_hostile(cut, len);
        free(cut);
    }
    CHECK(opened == 0); /* every truncation of a GOMB file is refused */
    size_t valid = 0;
    for (int i = 0; i < 10000; i++) {
        unsigned char* bad = (unsigned char*)malloc(size);
        memcpy(bad, orig, size);
        int flips = 1 + (int)(rng_next() % 8);
        for (int k = 0; k < flips; k++) {
            size_t at = rng_next() % size;
            /* Half of the changes aim at the first 1 KiB: header and chunk table. */
            if (k % 2 == 0 && size > 1024) at %= 1024;
            bad[at] = (unsigned char)rng_next();
        }
        valid += (size_t)open_hostile(bad, size);
        free(bad);
    }
    fprintf(stderr, "%s: %zu truncations refused, %zu of 10000 corrupted copies still valid\n",
            path, size, valid);
    free(orig);
}

/* ---- T: threads ---------------------------------------------------------------- */

enum { FRAMES = 24, THREADS = 4 };

typedef struct {
    const gom_asset* asset;
    uint64_t hash[FRAMES];
    int failed;
} thread_job;

static uint64_t hash_floats(uint64_t h, const float* f, size_t n) {
    const unsigned char* b = (const unsigned char*)f;
    for (size_t i = 0; i < n * sizeof(float); i++) h = (h ^ b[i]) * 0x100000001B3ull;
    return h;
}

/* Every frame of every clip, every mesh skinned: one hash per frame. */
static void* run_frames(void* arg) {
    thread_job* job = (thread_job*)arg;
    const gom_asset* a = job->asset;
    uint32_t n = gom_bone_count(a);
    gom_transform* local = (gom_transform*)malloc((n ? n : 1) * sizeof(gom_transform));
    float* model = (float*)malloc((n ? n : 1) * 16 * sizeof(float));
    for (int f = 0; f < FRAMES; f++) job->hash[f] = 0xCBF29CE484222325ull;
    for (uint32_t c = 0; c < gom_clip_count(a); c++) {
        gom_sampler* s = gom_sampler_create(a, c, NULL);
        if (!s) {
            job->failed = 1;
            continue;
        }
        for (int f = 0; f < FRAMES; f++) {
            float t = (float)f / 30.0f;
            if (gom_sample(s, t, 1, local, n) || gom_local_to_model(a, local, model, n)) {
                job->failed = 1;
                continue;
            }
            for (uint32_t m = 0; m < gom_mesh_count(a); m++) {
                uint32_t vc = gom_mesh_vertex_count(a, m);
                float* p = (float*)malloc((vc ? vc : 1) * 3 * sizeof(float));
                float* nr = (float*)malloc((vc ? vc : 1) * 3 * sizeof(float));
                if (skin_mesh(a, m, model, p, nr)) job->failed = 1;
                job->hash[f] = hash_floats(job->hash[f], p, 3 * (size_t)vc);
                if (gom_mesh_vertex_format(a, m) & GOM_VERTEX_NORMAL)
                    job->hash[f] = hash_floats(job->hash[f], nr, 3 * (size_t)vc);
                free(p);
                free(nr);
            }
        }
        gom_sampler_free(s);
    }
    free(local);
    free(model);
    return NULL;
}

static void task_threads(const char* path) {
    gom_error err;
    gom_asset* a = gom_asset_open_file(path, &err);
    if (!a) {
        fprintf(stderr, "%s: %s\n", path, err.message);
        g_failures++;
        return;
    }
    thread_job reference;
    memset(&reference, 0, sizeof reference);
    reference.asset = a;
    run_frames(&reference);
    CHECK(!reference.failed);
    thread_job jobs[THREADS];
    pthread_t threads[THREADS];
    for (int i = 0; i < THREADS; i++) {
        memset(&jobs[i], 0, sizeof jobs[i]);
        jobs[i].asset = a;
        CHECK(pthread_create(&threads[i], NULL, run_frames, &jobs[i]) == 0);
    }
    for (int i = 0; i < THREADS; i++) {
        pthread_join(threads[i], NULL);
        CHECK(!jobs[i].failed);
        CHECK(memcmp(jobs[i].hash, reference.hash, sizeof reference.hash) == 0);
    }
    gom_asset_free(a);
}

/* ---- C: gom_asset_open borrows; gom_asset_open_copy copies --------------------- */

static uint64_t pose_hash(const gom_asset* a) {
    thread_job job;
    memset(&job, 0, sizeof job);
    job.asset = a;
    run_frames(&job);
    CHECK(!job.failed);
    return hash_floats(job.hash[0], (const float*)job.hash, 2 * FRAMES);
}

static int inside(const void* p, const unsigned char* buf, size_t size) {
    const unsigned char* c = (const unsigned char*)p;
    return c >= buf && c < buf + size;
}

static void task_contract(const char* path) {
    size_t size = 0;
    unsigned char* buf = read_file(path, &size); /* malloc: 16-byte aligned */
    if (!buf) {
        fprintf(stderr, "cannot read %s\n", path);
        g_failures++;
        return;
    }
    gom_error err;
    gom_asset* borrowed = gom_asset_open(buf, size, &err);
    gom_asset* copied = gom_asset_open_copy(buf, size, &err);
    CHECK(borrowed && copied);
    if (!borrowed || !copied) return;
    uint64_t want = pose_hash(borrowed);
    CHECK(pose_hash(copied) == want);
    for (uint32_t m = 0; m < gom_mesh_count(borrowed); m++) {
        /* Zero copy: the borrowed asset's arrays are the caller's bytes... */
        if (gom_mesh_vertex_count(borrowed, m)) {
            CHECK(inside(gom_mesh_vertex_data(borrowed, m, NULL), buf, size));
            CHECK(inside(gom_mesh_index_data(borrowed, m, NULL), buf, size));
            CHECK(!inside(gom_mesh_vertex_data(copied, m, NULL), buf, size));
        }
    }
    gom_asset_free(borrowed); /* the bytes must outlive the borrowing asset */
    /* ...while the copying asset works on after the caller's bytes are gone (the
     * address sanitizer reports any read of the freed buffer). */
    memset(buf, 0xAB, size);
    free(buf);
    CHECK(pose_hash(copied) == want);
    gom_asset_free(copied);

    /* Misaligned bytes: still opened (arrays copied) with the same results. */
    unsigned char* raw = read_file(path, &size);
    unsigned char* odd = (unsigned char*)malloc(size + 1);
    memcpy(odd + 1, raw, size);
    gom_asset* shifted = gom_asset_open(odd + 1, size, &err);
    CHECK(shifted != NULL);
    if (shifted) {
        CHECK(pose_hash(shifted) == want);
        gom_asset_free(shifted);
    }
    free(odd);
    free(raw);
}

int main(int argc, char** argv) {
    if (argc != 2) {
        fprintf(stderr, "usage: %s TASKS.txt\n", argv[0]);
        return 2;
    }
    FILE* tasks = fopen(argv[1], "r");
    if (!tasks) {
        fprintf(stderr, "cannot read %s\n", argv[1]);
        return 2;
    }
    char line[4096];
    int count = 0;
    while (fgets(line, sizeof line, tasks)) {
        char kind, file[1024], expected[1024];
        int clip, loop;
        float time;
        if (sscanf(line, "P %1023s %d %f %d %1023s", file, &clip, &time, &loop, expected) == 5) {
            task_pose(file, clip, time, loop, expected);
        } else if (sscanf(line, "%c %1023s", &kind, file) == 2) {
            switch (kind) {
                case 'N': task_null(file); break;
                case 'F': task_fuzz(file); break;
                case 'T': task_threads(file); break;
                case 'C': task_contract(file); break;
                default: fprintf(stderr, "unknown task: %s", line); g_failures++;
            }
        } else {
            continue;
        }
        count++;
    }
    fclose(tasks);
    fprintf(stderr, "%d tasks, %d failed checks\n", count, g_failures);
    return g_failures == 0 && count > 0 ? 0 : 1;
}
