/* gom_pose: open a .gom file, list its bones and clips, sample a clip, skin every
 * mesh on the CPU and write the posed model as OBJ: the same answer as
 * `gom pose FILE --clip NAME --time S [--loop] -o OUT.obj`.
 *
 *   gom_pose MODEL.gom [--clip NAME] [--time SECONDS] [--loop] -o OUT.obj
 *
 * Build: cargo build --release -p gom-capi && make -C examples/c (see docs/c-api.md). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gom.h"

static void usage(void) {
    fprintf(stderr, "usage: gom_pose MODEL.gom [--clip NAME] [--time SECONDS] [--loop] -o OUT.obj\n");
}

/* Lists the skeleton and the clips on stdout. */
static void list(const gom_asset* a) {
    printf("%u bones\n", gom_bone_count(a));
    for (uint32_t b = 0; b < gom_bone_count(a); b++)
        printf("  %u %s (parent %d)\n", b, gom_bone_name(a, b), gom_bone_parent(a, b));
    printf("%u clips\n", gom_clip_count(a));
    for (uint32_t c = 0; c < gom_clip_count(a); c++)
        printf("  %u %s: %g s\n", c, gom_clip_name(a, c), gom_clip_duration(a, c));
}

/* The model-space pose (16 floats per bone): clip `clip` at `time`, or the bind pose
 * when clip < 0. */
static int pose(const gom_asset* a, int32_t clip, float time, int loop, float* model) {
    uint32_t n = gom_bone_count(a);
    gom_transform* local = (gom_transform*)malloc((n ? n : 1) * sizeof(gom_transform));
    int32_t rc;
    if (clip < 0) {
        rc = gom_bind_pose(a, local, n);
    } else {
        gom_error err;
        gom_sampler* s = gom_sampler_create(a, (uint32_t)clip, &err);
        if (!s) {
            fprintf(stderr, "gom_sampler_create: %s\n", err.message);
            free(local);
            return err.code;
        }
        rc = gom_sample(s, time, loop, local, n);
        gom_sampler_free(s);
    }
    if (rc == GOM_OK) rc = gom_local_to_model(a, local, model, n);
    free(local);
    return rc;
}

/* One mesh skinned with `model` and written as an OBJ group; `base` is the OBJ index
 * of the mesh's first vertex. */
static int write_mesh(FILE* out, const gom_asset* a, uint32_t m, const float* model, size_t base) {
    uint32_t vc = gom_mesh_vertex_count(a, m), pn = gom_mesh_palette_size(a, m);
    uint32_t format = gom_mesh_vertex_format(a, m);
    int has_n = (format & GOM_VERTEX_NORMAL) != 0, has_uv = (format & GOM_VERTEX_UV0) != 0;
    float* palette = (float*)malloc((pn ? pn : 1) * 16 * sizeof(float));
    float* positions = (float*)malloc((vc ? vc : 1) * 3 * sizeof(float));
    float* normals = (float*)malloc((vc ? vc : 1) * 3 * sizeof(float));
    int32_t rc = gom_palette(a, m, model, palette, pn);
    if (rc == GOM_OK) rc = gom_skin(a, m, palette, pn, positions, has_n ? normals : NULL, vc);
    if (rc != GOM_OK) {
        gom_error err;
        gom_last_error(&err);
        fprintf(stderr, "mesh %u: %s\n", m, err.message);
    } else {
        /* OBJ group names: whitespace and control characters become '_'. */
        fprintf(out, "g ");
        const char* name = gom_mesh_name(a, m);
        for (const char* c = name; *c; c++) {
            unsigned char u = (unsigned char)*c;
            fputc(u <= ' ' || u == 0x7F ? '_' : *c, out);
        }
        if (!*name) fprintf(out, "mesh");
        fputc('\n', out);
        for (uint32_t v = 0; v < vc; v++)
            fprintf(out, "v %.9g %.9g %.9g\n", positions[3 * v], positions[3 * v + 1],
                    positions[3 * v + 2]);
        if (has_uv) {
            /* UVs straight from the vertex bytes a GPU would get. */
            const unsigned char* bytes = (const unsigned char*)gom_mesh_vertex_data(a, m, NULL);
            uint32_t stride = gom_mesh_vertex_stride(a, m);
            int32_t at = gom_mesh_attribute_offset(a, m, GOM_VERTEX_UV0);
            for (uint32_t v = 0; v < vc; v++) {
                float uv[2];
                memcpy(uv, bytes + (size_t)v * stride + at, sizeof uv);
                fprintf(out, "vt %.9g %.9g\n", uv[0], 1.0f - uv[1]);
            }
        }
        if (has_n)
            for (uint32_t v = 0; v < vc; v++)
                fprintf(out, "vn %.9g %.9g %.9g\n", normals[3 * v], normals[3 * v + 1],
                        normals[3 * v + 2]);
        const unsigned char* ib = (const unsigned char*)gom_mesh_index_data(a, m, NULL);
        uint32_t isize = gom_mesh_index_size(a, m), ic = gom_mesh_index_count(a, m);
        for (uint32_t i = 0; i + 2 < ic; i += 3) {
            fprintf(out, "f");
            for (uint32_t k = 0; k < 3; k++) {
                uint32_t index = 0;
                if (isize == 2) {
                    uint16_t x;
                    memcpy(&x, ib + (size_t)(i + k) * 2, 2);
                    index = x;
                } else {
                    memcpy(&index, ib + (size_t)(i + k) * 4, 4);
                }
                size_t o = index + base;
                if (has_uv && has_n) fprintf(out, " %zu/%zu/%zu", o, o, o);
                else if (has_uv) fprintf(out, " %zu/%zu", o, o);
                else if (has_n) fprintf(out, " %zu//%zu", o, o);
                else fprintf(out, " %zu", o);
            }
            fputc('\n', out);
        }
    }
    free(palette);
    free(positions);
    free(normals);
    return rc;
}

int main(int argc, char** argv) {
    const char *path = NULL, *clip_name = NULL, *out_path = NULL;
    float time = 0.0f;
    int loop = 0;
    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "--clip") && i + 1 < argc) clip_name = argv[++i];
        else if (!strcmp(argv[i], "--time") && i + 1 < argc) time = strtof(argv[++i], NULL);
        else if (!strcmp(argv[i], "--loop")) loop = 1;
        else if (!strcmp(argv[i], "-o") && i + 1 < argc) out_path = argv[++i];
        else if (!path && argv[i][0] != '-') path = argv[i];
        else {
            usage();
            return 2;
        }
    }
    if (!path || !out_path) {
        usage();
        return 2;
    }
    if (gom_version() >> 16 != GOM_VERSION_MAJOR) {
        fprintf(stderr, "gom.h and libgom differ in major version\n");
        return 2;
    }
    gom_error err;
    gom_asset* a = gom_asset_open_file(path, &err);
    if (!a) {
        fprintf(stderr, "%s (error %d at byte %llu)\n", err.message, err.code,
                (unsigned long long)err.offset);
        return 2;
    }
    list(a);
    int32_t clip = -1;
    if (clip_name) {
        clip = gom_clip_find(a, clip_name);
        if (clip < 0) {
            fprintf(stderr, "no clip named \"%s\"\n", clip_name);
            gom_asset_free(a);
            return 2;
        }
    }
    uint32_t n = gom_bone_count(a);
    float* model = (float*)malloc((n ? n : 1) * 16 * sizeof(float));
    int rc = pose(a, clip, time, loop, model);
    FILE* out = rc == GOM_OK ? fopen(out_path, "w") : NULL;
    if (out) {
        fprintf(out, "# gom_pose (libgom %u.%u.%u)\n", gom_version() >> 16,
                (gom_version() >> 8) & 0xFF, gom_version() & 0xFF);
        size_t base = 1;
        for (uint32_t m = 0; m < gom_mesh_count(a) && rc == GOM_OK; m++) {
            rc = write_mesh(out, a, m, model, base);
            base += gom_mesh_vertex_count(a, m);
        }
        if (fclose(out) != 0) rc = GOM_E_IO;
    } else if (rc == GOM_OK) {
        fprintf(stderr, "cannot write %s\n", out_path);
        rc = GOM_E_IO;
    }
    free(model);
    gom_asset_free(a);
    if (rc == GOM_OK) fprintf(stderr, "wrote %s\n", out_path);
    return rc == GOM_OK ? 0 : 1;
}
