/* Helpers shared by the C test programs: checks, file reading, posing. */
#ifndef GOM_TEST_COMMON_H
#define GOM_TEST_COMMON_H

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
static unsigned char* read_file(const char* path, size_t* size) {
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
static void bind_world(const gom_asset* a, float* world) {
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
static int32_t pose_model(const gom_asset* a, int32_t clip, float time, int loop,
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
static int32_t skin_mesh(const gom_asset* a, uint32_t m, const float* model,
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

#endif
