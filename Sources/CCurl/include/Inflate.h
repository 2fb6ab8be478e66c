// zlib's inflate, loaded at run time, for the libcurl transport's compressed bodies.
//
// libcurl's own decoder writes every decoded byte of a network read before it returns, and keeps
// what a paused transfer cannot take in memory: a body compressed 1,000 to 1 makes a 16 KiB read
// into 16 MB held (measured: "Out of memory" and 250 MB for 1 GiB of gzipped zeros). Downstream
// decodes itself instead, a bounded piece at a time, so that a transfer the disk holds back holds
// back its compressed bytes only.
//
// zlib is loaded as libcurl is (libcurl links `libz.so.1`, so it is on every Linux machine with
// Swift; its headers are not); `z_stream` is declared here as zlib.h has it since 1.0 (its ABI).
// On other platforms this compiles to stubs that report zlib as not loaded (URLSession decodes).
#ifndef DOWNSTREAM_INFLATE_H
#define DOWNSTREAM_INFLATE_H

#include <stddef.h>

/// A decoding stream: gzip or zlib (found from the first bytes), or raw deflate.
typedef struct ds_inflater ds_inflater;

/// What ``ds_inflater_run`` did.
enum {
    /// It went as far as it could: all the input was read, or the output is full.
    DS_INFLATE_PROGRESS = 0,
    /// The compressed stream ended (a gzip member's trailer was checked).
    DS_INFLATE_END = 1,
    /// The bytes are not a stream of the format asked for, or are damaged.
    DS_INFLATE_DATA_ERROR = -1,
    /// zlib could not get memory, or could not be loaded.
    DS_INFLATE_FAILURE = -2,
};

/// Loads zlib, once (thread-safe). Returns 1 when it is usable; else 0, with the reason in `error`.
int ds_zlib_load(char *error, size_t error_capacity);

/// A new stream; `raw` 1 for raw deflate, 0 for gzip or zlib. NULL without memory or zlib.
ds_inflater *ds_inflater_create(int raw);
void ds_inflater_destroy(ds_inflater *inflater);
/// Starts a new stream of the same format (the next member of a gzip file).
int ds_inflater_reset(ds_inflater *inflater);

/// Decodes from `input` into `output`; `consumed` and `produced` say how many bytes of each.
int ds_inflater_run(ds_inflater *inflater, const void *input, size_t input_count, size_t *consumed, void *output,
                    size_t output_capacity, size_t *produced);

/// zlib's words for the last error of `inflater`, or "".
const char *ds_inflater_message(ds_inflater *inflater);

#endif
