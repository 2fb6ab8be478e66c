#include "Inflate.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#if defined(__linux__)

#include <dlfcn.h>
#include <pthread.h>

// zlib.h's z_stream (uInt is unsigned int, uLong unsigned long), unchanged since zlib 1.0.
typedef struct {
    const unsigned char *next_in;
    unsigned int avail_in;
    unsigned long total_in;
    unsigned char *next_out;
    unsigned int avail_out;
    unsigned long total_out;
    const char *msg;
    void *state;
    void *zalloc;
    void *zfree;
    void *opaque;
    int data_type;
    unsigned long adler;
    unsigned long reserved;
} ds_z_stream;

struct ds_inflater {
    ds_z_stream stream;
    int raw;
};

static const char *(*zlib_version)(void);
static int (*inflate_init2)(ds_z_stream *, int, const char *, int);
static int (*inflate_step)(ds_z_stream *, int);
static int (*inflate_end)(ds_z_stream *);
static int (*inflate_reset)(ds_z_stream *);

static pthread_once_t load_once = PTHREAD_ONCE_INIT;
static char load_error[256];
static int loaded;

static void load(void) {
    void *library = dlopen("libz.so.1", RTLD_NOW | RTLD_LOCAL);
    if (library == NULL) {
        const char *reason = dlerror();
        snprintf(load_error, sizeof load_error, "%s", reason ? reason : "libz.so.1 was not found");
        return;
    }
    *(void **)(&zlib_version) = dlsym(library, "zlibVersion");
    *(void **)(&inflate_init2) = dlsym(library, "inflateInit2_");
    *(void **)(&inflate_step) = dlsym(library, "inflate");
    *(void **)(&inflate_end) = dlsym(library, "inflateEnd");
    *(void **)(&inflate_reset) = dlsym(library, "inflateReset");
    if (!zlib_version || !inflate_init2 || !inflate_step || !inflate_end || !inflate_reset) {
        snprintf(load_error, sizeof load_error, "libz.so.1 lacks an inflate entry point");
        return;
    }
    if (zlib_version()[0] != '1') {
        snprintf(load_error, sizeof load_error, "zlib %s is not version 1", zlib_version());
        return;
    }
    loaded = 1;
}

int ds_zlib_load(char *error, size_t error_capacity) {
    pthread_once(&load_once, load);
    if (!loaded) snprintf(error, error_capacity, "%s", load_error);
    return loaded;
}

ds_inflater *ds_inflater_create(int raw) {
    pthread_once(&load_once, load);
    if (!loaded) return NULL;
    ds_inflater *inflater = calloc(1, sizeof *inflater);
    if (inflater == NULL) return NULL;
    inflater->raw = raw;
    // 15: the largest window; +32 finds gzip or zlib from the header; negative: raw deflate.
    if (inflate_init2(&inflater->stream, raw ? -15 : 15 + 32, zlib_version(), (int)sizeof(ds_z_stream)) != 0) {
        free(inflater);
        return NULL;
    }
    return inflater;
}

void ds_inflater_destroy(ds_inflater *inflater) {
    if (inflater == NULL) return;
    inflate_end(&inflater->stream);
    free(inflater);
}

int ds_inflater_reset(ds_inflater *inflater) { return inflate_reset(&inflater->stream) == 0 ? 0 : -1; }

int ds_inflater_run(ds_inflater *inflater, const void *input, size_t input_count, size_t *consumed, void *output,
                    size_t output_capacity, size_t *produced) {
    ds_z_stream *stream = &inflater->stream;
    // uInt counts: at most 1 GiB a call, which callers never come near.
    unsigned int in = input_count > (1u << 30) ? (1u << 30) : (unsigned int)input_count;
    unsigned int out = output_capacity > (1u << 30) ? (1u << 30) : (unsigned int)output_capacity;
    stream->next_in = input;
    stream->avail_in = in;
    stream->next_out = output;
    stream->avail_out = out;
    // Z_NO_FLUSH (0): zlib decides; it stops when the input is read or the output full.
    int status = inflate_step(stream, 0);
    *consumed = in - stream->avail_in;
    *produced = out - stream->avail_out;
    switch (status) {
    case 0:   // Z_OK
    case -5:  // Z_BUF_ERROR: no progress possible now (more input or room needed); not an error
        return DS_INFLATE_PROGRESS;
    case 1:  // Z_STREAM_END
        return DS_INFLATE_END;
    case 2:   // Z_NEED_DICT: a preset dictionary HTTP never has
    case -3:  // Z_DATA_ERROR
        return DS_INFLATE_DATA_ERROR;
    default:  // Z_STREAM_ERROR, Z_MEM_ERROR
        return DS_INFLATE_FAILURE;
    }
}

const char *ds_inflater_message(ds_inflater *inflater) {
    return inflater && inflater->stream.msg ? inflater->stream.msg : "";
}

#else

// Apple platforms keep URLSession, which decodes bodies itself: zlib is never loaded here.
int ds_zlib_load(char *error, size_t error_capacity) {
    snprintf(error, error_capacity, "the libcurl transport's decoder is for Linux");
    return 0;
}
ds_inflater *ds_inflater_create(int raw) { (void)raw; return NULL; }
void ds_inflater_destroy(ds_inflater *inflater) { (void)inflater; }
int ds_inflater_reset(ds_inflater *inflater) { (void)inflater; return -1; }
int ds_inflater_run(ds_inflater *inflater, const void *input, size_t input_count, size_t *consumed, void *output,
                    size_t output_capacity, size_t *produced) {
    (void)inflater; (void)input; (void)input_count; (void)output; (void)output_capacity;
    *consumed = 0;
    *produced = 0;
    return DS_INFLATE_FAILURE;
}
const char *ds_inflater_message(ds_inflater *inflater) { (void)inflater; return ""; }

#endif
