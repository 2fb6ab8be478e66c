// The few libcurl entry points Downstream's libcurl transport needs, loaded at run time.
//
// libcurl's headers are not part of a Swift toolchain, and Downstream must not link libcurl at
// build time: FoundationNetworking links `libcurl.so.4` already, so the library is on every Linux
// machine where Downstream runs, but its development files are not. This target declares what it
// uses itself (the option and info numbers are libcurl's ABI and never change), loads the library
// with dlopen, and wraps the variadic functions (curl_easy_setopt, curl_easy_getinfo,
// curl_multi_setopt) in functions with one argument type each, which Swift can call.
//
// On other platforms it compiles to stubs that report libcurl as not loaded.
#ifndef DOWNSTREAM_CCURL_H
#define DOWNSTREAM_CCURL_H

#include <stddef.h>
#include <stdint.h>

#include "Digests.h"
#include "Inflate.h"

/// An easy handle (`CURL *`), a multi handle (`CURLM *`), a header list (`struct curl_slist *`).
typedef struct ds_curl ds_curl;
typedef struct ds_curlm ds_curlm;
typedef struct ds_curl_slist ds_curl_slist;

/// libcurl's write and header callback.
typedef size_t (*ds_curl_data_callback)(char *data, size_t size, size_t count, void *context);

/// Loads libcurl from `path`, or, when `path` is NULL, by its usual names (`libcurl.so.4`, then
/// Debian's `libcurl-gnutls.so.4`), and initialises it. Returns 1 when every entry point was found
/// and the version is recent enough (7.68.0: `curl_multi_poll` and `curl_multi_wakeup`); else 0,
/// with the reason in `error`. Call once; not thread-safe.
int ds_curl_load(const char *path, char *error, size_t error_capacity);

/// libcurl's version text ("7.88.1"), and as a number (0xMMmmpp); its feature bits; its TLS
/// library ("OpenSSL/3.0.11"), empty without one.
const char *ds_curl_version(void);
unsigned ds_curl_version_number(void);
int ds_curl_features(void);
const char *ds_curl_ssl_version(void);

ds_curlm *ds_curl_multi_init(void);
void ds_curl_multi_cleanup(ds_curlm *multi);
int ds_curl_multi_add(ds_curlm *multi, ds_curl *easy);
int ds_curl_multi_remove(ds_curlm *multi, ds_curl *easy);
int ds_curl_multi_perform(ds_curlm *multi, int *running);
int ds_curl_multi_poll(ds_curlm *multi, int timeout_ms, int *fd_count);
/// The only call that may come from any thread: makes the driver's poll return.
int ds_curl_multi_wakeup(ds_curlm *multi);
int ds_curl_multi_setopt_long(ds_curlm *multi, int option, long value);
/// The next transfer that finished: returns 1 with its handle and result code, or 0 when there is
/// none.
int ds_curl_multi_next_done(ds_curlm *multi, ds_curl **easy, int *result);

ds_curl *ds_curl_easy_init(void);
void ds_curl_easy_cleanup(ds_curl *easy);
int ds_curl_easy_setopt_long(ds_curl *easy, int option, long value);
int ds_curl_easy_setopt_pointer(ds_curl *easy, int option, const void *value);
int ds_curl_easy_setopt_callback(ds_curl *easy, int option, ds_curl_data_callback callback);
int ds_curl_easy_setopt_offset(ds_curl *easy, int option, int64_t value);
/// Sets a blob option (a `struct curl_blob`, 7.71.0): libcurl copies the `count` bytes.
int ds_curl_easy_setopt_blob(ds_curl *easy, int option, const void *bytes, size_t count);
/// Makes `easy`'s sockets with socket(2), as libcurl does, through its socket callback
/// (`CURLOPT_OPENSOCKETFUNCTION`), and stores the `errno` of one that could not be made in
/// `*error`: libcurl reports that as "Couldn't connect" without saying why (EMFILE: the process
/// has no descriptor left). `error` must live as long as the handle.
int ds_curl_easy_record_socket_errors(ds_curl *easy, int *error);
int ds_curl_easy_getinfo_long(ds_curl *easy, int info, long *value);
int ds_curl_easy_getinfo_string(ds_curl *easy, int info, const char **value);
int ds_curl_easy_pause(ds_curl *easy, int bitmask);
const char *ds_curl_easy_strerror(int code);

ds_curl_slist *ds_curl_slist_append(ds_curl_slist *list, const char *line);
void ds_curl_slist_free_all(ds_curl_slist *list);

#endif
