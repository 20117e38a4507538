/* Helpers shared by the C test programs: checks, file reading, posing, OBJ files
 * (inline, so that a program need not use every one). */
#ifndef GOM_TEST_COMMON_H
#define GOM_TEST_COMMON_H

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gom.h"

static int g_failures = 0;

#define CHECK(cond)                                                          \
    do {                                                                     \
        if (!(cond)) {                                                       \
            fprintf(stderr, "%s:%d: check failed: %s\n", __FILE__, __LINE__, \
                    #cond);                                                  \
            g_failures++;                                                    \
        }                                                                    \
    } while (0)

#define CHECK_CODE(call, code)                                                \
    do {                                                                      \
        int32_t got_ = (call);                                                \
        if (got_ != (code)) {                                                 \
            fprintf(stderr, "%s:%d: %s returned %d, expected %d (%s)\n",      \
                    __FILE__, __LINE__, #call, (int)got_, (int)(code), #code); \
            g_failures++;                                                     \
        }                                                                     \
    } while (0)

/* The whole file at `path` in a buffer of exactly its size (so that the address
 * sanitizer sees any read past it); NULL when it cannot be read. */
static inline unsigned char* read_file(const char* path, size_t* size) {
    FILE* f = fopen(path, "rb");
    if (!f) return NULL;
    fseek(f, 0, SEEK_END);
    long n = ftell(f);
    fseek(f, 0, SEEK_SET);
    unsigned char* buf = (unsigned char*)malloc(n > 0 ? (size_t)n : 1);
    if (buf && n > 0 && fread(buf, 1, (size_t)n, f) != (size_t)n) {
        free(buf);
        buf = NULL;
    }
    fclose(f);
    *size = n > 0 ? (size_t)n : 0;
    return buf;
}

/* Model-space bind matrices computed from the stored bind-local matrices in C:
 * world[i] = local[i] * world[parent] (row vectors). */
static inline void bind_world(const gom_asset* a, float* world) {
    uint32_t n = gom_bone_count(a);
    const float* local = gom_bind_local_matrices(a);
    for (uint32_t i = 0; i < n; i++) {
        const float* l = local + 16 * i;
        int32_t p = gom_bone_parent(a, i);
        if (p < 0) {
            memcpy(world + 16 * i, l, 16 * sizeof(float));
            continue;
        }
        const float* w = world + 16 * (uint32_t)p;
        for (int r = 0; r < 4; r++)
            for (int c = 0; c < 4; c++) {
                float s = 0;
                for (int k = 0; k < 4; k++) s += l[4 * r + k] * w[4 * k + c];
                world[16 * i + 4 * r + c] = s;
            }
    }
}

/* The model-space pose of clip `clip` at `time` into `model` (16 floats per bone);
 * the bind pose when clip < 0. Returns 0 or a GOM_E_* code. */
static inline int32_t pose_model(const gom_asset* a, int32_t clip, float time, int loop,
                          float* model) {
    uint32_t n = gom_bone_count(a);
    if (clip < 0) {
        bind_world(a, model);
        return 0;
    }
    gom_error err;
    gom_sampler* s = gom_sampler_create(a, (uint32_t)clip, &err);
    if (!s) return err.code;
    gom_transform* local = (gom_transform*)malloc((n ? n : 1) * sizeof(gom_transform));
    int32_t rc = gom_sample(s, time, loop, local, n);
    if (rc == 0) rc = gom_local_to_model(a, local, model, n);
    free(local);
    gom_sampler_free(s);
    return rc;
}

/* Skins mesh `m` for the pose `model` into positions (and normals when the mesh has
 * them and `normals` is not NULL). Returns 0 or a GOM_E_* code. */
static inline int32_t skin_mesh(const gom_asset* a, uint32_t m, const float* model,
                         float* positions, float* normals) {
    uint32_t pn = gom_mesh_palette_size(a, m);
    float* palette = (float*)malloc((pn ? pn : 1) * 16 * sizeof(float));
    int32_t rc = gom_palette(a, m, model, palette, pn);
    int has_normals = (gom_mesh_vertex_format(a, m) & GOM_VERTEX_NORMAL) != 0;
    if (rc == 0)
        rc = gom_skin(a, m, palette, pn, positions, has_normals ? normals : NULL,
                      gom_mesh_vertex_count(a, m));
    free(palette);
    return rc;
}

/* Like skin_mesh, with the mesh's blend shapes at the weights of clip `clip` at
 * `time` (the default weights when clip < 0), as `gom pose` applies them. */
static inline int32_t skin_mesh_at(const gom_asset* a, uint32_t m, int32_t clip, float time,
                                   int loop, const float* model, float* positions,
                                   float* normals) {
    uint32_t tc = gom_mesh_morph_target_count(a, m);
    if (tc == 0) return skin_mesh(a, m, model, positions, normals);
    float* w = (float*)malloc(tc * sizeof(float));
    int32_t rc;
    if (clip < 0) {
        rc = gom_mesh_morph_default_weights(a, m, w, tc);
    } else {
        gom_sampler* s = gom_sampler_create(a, (uint32_t)clip, NULL);
        rc = s ? gom_sample_weights(s, m, time, loop, w, tc) : GOM_E_INVALID;
        gom_sampler_free(s);
    }
    uint32_t pn = gom_mesh_palette_size(a, m);
    float* palette = (float*)malloc((pn ? pn : 1) * 16 * sizeof(float));
    gom_morpher* mo = gom_morpher_create(a, m, NULL);
    int has_normals = (gom_mesh_vertex_format(a, m) & GOM_VERTEX_NORMAL) != 0;
    if (rc == 0) rc = gom_palette(a, m, model, palette, pn);
    if (rc == 0)
        rc = gom_morph_skin(mo, w, tc, palette, pn, positions, has_normals ? normals : NULL,
                            gom_mesh_vertex_count(a, m));
    gom_morpher_free(mo);
    free(palette);
    free(w);
    return rc;
}

/* ---- OBJ files written by `gom pose` ------------------------------------------ */

typedef struct {
    float* v;
    size_t v_count;
    float* vn;
    size_t vn_count;
} obj_data;

static inline void obj_free(obj_data* o) {
    free(o->v);
    free(o->vn);
}

/* The "v" and "vn" lines of an OBJ, in order. */
static inline int obj_read(const char* path, obj_data* o) {
    FILE* f = fopen(path, "r");
    if (!f) return 0;
    size_t cap_v = 1024, cap_n = 1024;
    o->v = (float*)malloc(cap_v * 3 * sizeof(float));
    o->vn = (float*)malloc(cap_n * 3 * sizeof(float));
    o->v_count = o->vn_count = 0;
    char line[512];
    while (fgets(line, sizeof line, f)) {
        float x, y, z;
        if (strncmp(line, "v ", 2) == 0 && sscanf(line + 2, "%f %f %f", &x, &y, &z) == 3) {
            if (o->v_count == cap_v) o->v = (float*)realloc(o->v, (cap_v *= 2) * 3 * sizeof(float));
            float* d = o->v + 3 * o->v_count++;
            d[0] = x, d[1] = y, d[2] = z;
        } else if (strncmp(line, "vn ", 3) == 0 &&
                   sscanf(line + 3, "%f %f %f", &x, &y, &z) == 3) {
            if (o->vn_count == cap_n) o->vn = (float*)realloc(o->vn, (cap_n *= 2) * 3 * sizeof(float));
            float* d = o->vn + 3 * o->vn_count++;
            d[0] = x, d[1] = y, d[2] = z;
        }
    }
    fclose(f);
    return 1;
}

static inline int close_enough(const float* got, const float* want, size_t n, const char* what,
                        const char* file) {
    for (size_t i = 0; i < n; i++) {
        if (!(fabsf(got[i] - want[i]) <= 1e-5f)) {
            fprintf(stderr, "%s: %s component %zu is %.9g, gom pose says %.9g\n", file, what, i,
                    got[i], want[i]);
            return 0;
        }
    }
    return 1;
}

/* ---- Task lines: whitespace-separated words ------------------------------------ */

#define MAX_WORDS 8192

typedef struct {
    char* word[MAX_WORDS];
    int n;
    int at;
} words;

/* Splits `line` (changed in place) into words. */
static inline void split_words(char* line, words* w) {
    w->n = w->at = 0;
    for (char* s = strtok(line, " \t\r\n"); s && w->n < MAX_WORDS; s = strtok(NULL, " \t\r\n"))
        w->word[w->n++] = s;
}

/* The next word ("" past the end). */
static inline const char* next_word(words* w) { return w->at < w->n ? w->word[w->at++] : ""; }

/* The next word as a float (exact for the shortest decimal Rust prints). */
static inline float next_float(words* w) { return strtof(next_word(w), NULL); }

/* The next word as an integer. */
static inline long next_int(words* w) { return strtol(next_word(w), NULL, 10); }

/* Opens `path`, counting a failure when it cannot. */
static inline gom_asset* open_or_fail(const char* path) {
    gom_error err;
    gom_asset* a = gom_asset_open_file(path, &err);
    if (!a) {
        fprintf(stderr, "%s: %s\n", path, err.message);
        g_failures++;
    }
    return a;
}

/* Whether `got` and `want` differ by at most `tol` everywhere; says where not. */
static inline int within(const float* got, const float* want, size_t n, float tol,
                         const char* what) {
    for (size_t i = 0; i < n; i++) {
        if (!(fabsf(got[i] - want[i]) <= tol)) {
            fprintf(stderr, "%s: component %zu is %.9g, expected %.9g\n", what, i, got[i],
                    want[i]);
            return 0;
        }
    }
    return 1;
}

/* Runs `task` on every line of the file argv[1]; exits 0 when every check passed. */
static inline int run_task_file(int argc, char** argv, void (*task)(words*)) {
    if (argc != 2) {
        fprintf(stderr, "usage: %s TASKS.txt\n", argv[0]);
        return 2;
    }
    FILE* f = fopen(argv[1], "r");
    if (!f) {
        fprintf(stderr, "cannot read %s\n", argv[1]);
        return 2;
    }
    char* line = NULL;
    size_t cap = 0;
    int count = 0;
    while (getline(&line, &cap, f) > 0) {
        words w;
        split_words(line, &w);
        if (w.n == 0) continue;
        task(&w);
        count++;
    }
    free(line);
    fclose(f);
    fprintf(stderr, "%d tasks, %d failed checks\n", count, g_failures);
    return g_failures == 0 && count > 0 ? 0 : 1;
}

#endif
