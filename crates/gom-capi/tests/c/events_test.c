/* Float tracks and events from C, built with -fsanitize=address,undefined by
 * tests/c_programs.rs. Task lines (expected values are the Rust runtime's):
 *
 *   F FILE CLIP TRACK NAME COMPONENTS TIME LOOP V*   gom_sample_float_track
 *   V FILE CLIP EVENT TIME NAME PAYLOAD|-            gom_clip_event
 *   E FILE CLIP FROM TO LOOP COUNT INDEX*            gom_events_between, and the
 *                                                    same span cut in two calls
 *   N FILE                                           NULLs, counts, ranges
 */
#include "common.h"

static void task_float(words* w, gom_asset* a) {
    uint32_t clip = (uint32_t)next_int(w), track = (uint32_t)next_int(w);
    const char* name = next_word(w);
    uint32_t components = (uint32_t)next_int(w);
    float time = next_float(w);
    int loop = (int)next_int(w);
    float want[4] = {0}, got[4] = {0};
    for (uint32_t c = 0; c < components && c < 4; c++) want[c] = next_float(w);
    const char* have = gom_clip_float_track_name(a, clip, track);
    CHECK(have && strcmp(have, name) == 0);
    CHECK(gom_clip_float_track_find(a, clip, name) == (int32_t)track);
    CHECK(gom_clip_float_track_components(a, clip, track) == components);
    CHECK_CODE(gom_sample_float_track(a, clip, track, time, loop, got, components), GOM_OK);
    CHECK(within(got, want, components, 1e-6f, name));
}

static void task_event(words* w, gom_asset* a) {
    uint32_t clip = (uint32_t)next_int(w), index = (uint32_t)next_int(w);
    float time = next_float(w);
    const char* name = next_word(w);
    const char* payload = next_word(w);
    gom_event e;
    CHECK_CODE(gom_clip_event(a, clip, index, &e), GOM_OK);
    CHECK(e.time == time && e.name && strcmp(e.name, name) == 0);
    if (strcmp(payload, "-") == 0)
        CHECK(e.payload == NULL);
    else
        CHECK(e.payload && strcmp(e.payload, payload) == 0);
}

static void task_between(words* w, gom_asset* a) {
    uint32_t clip = (uint32_t)next_int(w);
    float from = next_float(w), to = next_float(w);
    int loop = (int)next_int(w);
    uint32_t count = (uint32_t)next_int(w), want[256], got[256], n = 12345;
    CHECK(count <= 256);
    for (uint32_t i = 0; i < count && i < 256; i++) want[i] = (uint32_t)next_int(w);
    /* Count first, then fetch. */
    CHECK_CODE(gom_events_between(a, clip, from, to, loop, NULL, 0, &n), GOM_OK);
    CHECK(n == count);
    CHECK_CODE(gom_events_between(a, clip, from, to, loop, got, 256, &n), GOM_OK);
    CHECK(n == count && memcmp(got, want, count * sizeof(uint32_t)) == 0);
    /* Too small a buffer: the first ones, the full count, GOM_E_COUNT. */
    if (count > 1) {
        uint32_t few[1];
        CHECK_CODE(gom_events_between(a, clip, from, to, loop, few, 1, &n), GOM_E_COUNT);
        CHECK(n == count && few[0] == want[0]);
    }
    /* The same span in two calls crosses the same events, each once. */
    float mid = from + 0.37f * (to - from);
    uint32_t first = 0, second = 0;
    CHECK_CODE(gom_events_between(a, clip, from, mid, loop, got, 256, &first), GOM_OK);
    CHECK(first <= 256);
    if (first <= 256)
        CHECK_CODE(gom_events_between(a, clip, mid, to, loop, got + first, 256 - first, &second),
                   GOM_OK);
    CHECK(first + second == count && memcmp(got, want, count * sizeof(uint32_t)) == 0);
}

static void task_null(gom_asset* a) {
    uint32_t cc = gom_clip_count(a), n, idx[4];
    float v[4];
    gom_event e;
    CHECK(gom_clip_float_track_count(NULL, 0) == 0);
    CHECK(gom_clip_float_track_count(a, cc) == 0);
    CHECK(gom_clip_float_track_name(NULL, 0, 0) == NULL);
    CHECK(gom_clip_float_track_name(a, cc, 0) == NULL);
    CHECK(gom_clip_float_track_find(NULL, 0, "blink") == -1);
    CHECK(gom_clip_float_track_find(a, cc, "blink") == -1);
    CHECK(gom_clip_float_track_find(a, 0, NULL) == -1);
    CHECK(gom_clip_float_track_find(a, 0, "no such track") == -1);
    CHECK(gom_clip_float_track_components(a, cc, 0) == 0);
    CHECK(gom_clip_event_count(NULL, 0) == 0);
    CHECK(gom_clip_event_count(a, cc) == 0);
    CHECK_CODE(gom_sample_float_track(NULL, 0, 0, 0, 0, v, 1), GOM_E_NULL);
    CHECK_CODE(gom_sample_float_track(a, cc, 0, 0, 0, v, 1), GOM_E_RANGE);
    CHECK_CODE(gom_clip_event(NULL, 0, 0, &e), GOM_E_NULL);
    CHECK_CODE(gom_clip_event(a, cc, 0, &e), GOM_E_RANGE);
    CHECK_CODE(gom_events_between(NULL, 0, 0, 1, 0, NULL, 0, &n), GOM_E_NULL);
    CHECK_CODE(gom_events_between(a, cc, 0, 1, 0, NULL, 0, &n), GOM_E_RANGE);
    for (uint32_t c = 0; c < cc; c++) {
        uint32_t tc = gom_clip_float_track_count(a, c), ec = gom_clip_event_count(a, c);
        CHECK(gom_clip_float_track_name(a, c, tc) == NULL);
        CHECK(gom_clip_float_track_components(a, c, tc) == 0);
        CHECK_CODE(gom_sample_float_track(a, c, tc, 0, 0, v, 1), GOM_E_RANGE);
        CHECK_CODE(gom_clip_event(a, c, ec, &e), GOM_E_RANGE);
        CHECK_CODE(gom_clip_event(a, c, 0xFFFFFFFFu, &e), GOM_E_RANGE);
        if (tc > 0) {
            uint32_t k = gom_clip_float_track_components(a, c, 0);
            CHECK_CODE(gom_sample_float_track(a, c, 0, 0, 0, v, k + 1), GOM_E_COUNT);
            CHECK_CODE(gom_sample_float_track(a, c, 0, 0, 0, NULL, k), GOM_E_NULL);
            /* A non-finite time samples 0. */
            float at0[4];
            CHECK_CODE(gom_sample_float_track(a, c, 0, 0.0f, 0, at0, k), GOM_OK);
            CHECK_CODE(gom_sample_float_track(a, c, 0, INFINITY, 1, v, k), GOM_OK);
            CHECK(memcmp(at0, v, k * sizeof(float)) == 0);
        }
        if (ec > 0) {
            CHECK_CODE(gom_clip_event(a, c, 0, NULL), GOM_E_NULL);
            float d = gom_clip_duration(a, c);
            CHECK_CODE(gom_events_between(a, c, -1, d, 0, NULL, 0, NULL), GOM_E_NULL);
            CHECK_CODE(gom_events_between(a, c, -1, d, 0, NULL, 4, &n), GOM_E_NULL);
            CHECK_CODE(gom_events_between(a, c, -1, d, 0, idx, 4, idx), GOM_E_ARGUMENT);
            /* Nothing crossed: equal or non-finite times. */
            CHECK_CODE(gom_events_between(a, c, 0.5f, 0.5f, 1, idx, 4, &n), GOM_OK);
            CHECK(n == 0);
            CHECK_CODE(gom_events_between(a, c, NAN, 1, 1, idx, 4, &n), GOM_OK);
            CHECK(n == 0);
            /* A huge span counts the last laps only, without a buffer. */
            CHECK_CODE(gom_events_between(a, c, -1, 1e30f, 1, NULL, 0, &n), GOM_OK);
        }
    }
}

static void task(words* w) {
    const char* kind = next_word(w);
    gom_asset* a = open_or_fail(next_word(w));
    if (!a) return;
    switch (kind[0]) {
        case 'F': task_float(w, a); break;
        case 'V': task_event(w, a); break;
        case 'E': task_between(w, a); break;
        case 'N': task_null(a); break;
        default: fprintf(stderr, "unknown task %s\n", kind); g_failures++;
    }
    gom_asset_free(a);
}

int main(int argc, char** argv) { return run_task_file(argc, argv, task); }
