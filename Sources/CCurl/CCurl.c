#include "CCurl.h"

#include <stdio.h>
#include <string.h>

#if defined(__linux__)

#include <dlfcn.h>
#include <errno.h>
#include <sys/socket.h>

// libcurl's own types, as far as this file uses them.
typedef struct {
    int msg;  // CURLMSG_DONE is 1
    void *easy_handle;
    union {
        void *whatever;
        int result;
    } data;
} ds_curl_message;

typedef struct {
    int age;
    const char *version;
    unsigned int version_num;
    const char *host;
    int features;
    const char *ssl_version;
} ds_curl_version_info;

// struct curl_blob (7.71.0); CURL_BLOB_COPY is 1: libcurl keeps a copy of the bytes.
typedef struct {
    void *data;
    size_t len;
    unsigned int flags;
} ds_curl_blob;

static int (*global_init)(long);
static ds_curl_version_info *(*version_info)(int);
static void *(*multi_init)(void);
static int (*multi_cleanup)(void *);
static int (*multi_add_handle)(void *, void *);
static int (*multi_remove_handle)(void *, void *);
static int (*multi_perform)(void *, int *);
static int (*multi_poll)(void *, void *, unsigned int, int, int *);
static int (*multi_wakeup)(void *);
static int (*multi_setopt)(void *, int, ...);
static ds_curl_message *(*multi_info_read)(void *, int *);
static void *(*easy_init)(void);
static void (*easy_cleanup)(void *);
static int (*easy_setopt)(void *, int, ...);
static int (*easy_getinfo)(void *, int, ...);
static int (*easy_pause)(void *, int);
static const char *(*easy_strerror)(int);
static void *(*slist_append)(void *, const char *);
static void (*slist_free_all)(void *);
static ds_curl_version_info *loaded_version;

#define DS_FIND(library, pointer, name)                                                   \
    do {                                                                                  \
        *(void **)(&pointer) = dlsym(library, name);                                      \
        if (pointer == NULL) {                                                            \
            snprintf(error, error_capacity, "%s has no %s", path ? path : "libcurl", name); \
            return 0;                                                                     \
        }                                                                                 \
    } while (0)

int ds_curl_load(const char *path, char *error, size_t error_capacity) {
    void *library = NULL;
    if (path != NULL) {
        library = dlopen(path, RTLD_NOW | RTLD_LOCAL);
    } else {
        library = dlopen("libcurl.so.4", RTLD_NOW | RTLD_LOCAL);
        if (library == NULL) library = dlopen("libcurl-gnutls.so.4", RTLD_NOW | RTLD_LOCAL);
    }
    if (library == NULL) {
        const char *reason = dlerror();
        snprintf(error, error_capacity, "%s", reason ? reason : "libcurl.so.4 was not found");
        return 0;
    }
    DS_FIND(library, global_init, "curl_global_init");
    DS_FIND(library, version_info, "curl_version_info");
    DS_FIND(library, multi_init, "curl_multi_init");
    DS_FIND(library, multi_cleanup, "curl_multi_cleanup");
    DS_FIND(library, multi_add_handle, "curl_multi_add_handle");
    DS_FIND(library, multi_remove_handle, "curl_multi_remove_handle");
    DS_FIND(library, multi_perform, "curl_multi_perform");
    DS_FIND(library, multi_poll, "curl_multi_poll");
    DS_FIND(library, multi_wakeup, "curl_multi_wakeup");
    DS_FIND(library, multi_setopt, "curl_multi_setopt");
    DS_FIND(library, multi_info_read, "curl_multi_info_read");
    DS_FIND(library, easy_init, "curl_easy_init");
    DS_FIND(library, easy_cleanup, "curl_easy_cleanup");
    DS_FIND(library, easy_setopt, "curl_easy_setopt");
    DS_FIND(library, easy_getinfo, "curl_easy_getinfo");
    DS_FIND(library, easy_pause, "curl_easy_pause");
    DS_FIND(library, easy_strerror, "curl_easy_strerror");
    DS_FIND(library, slist_append, "curl_slist_append");
    DS_FIND(library, slist_free_all, "curl_slist_free_all");
    // CURLVERSION_NOW is ignored by libcurl; `age` says which fields exist.
    loaded_version = version_info(10);
    if (loaded_version == NULL || loaded_version->version_num < 0x074400) {
        snprintf(error, error_capacity, "libcurl %s is older than 7.68.0",
                 loaded_version ? loaded_version->version : "(unknown)");
        return 0;
    }
    // CURL_GLOBAL_ALL; thread-safe since 7.84.0, and FoundationNetworking may have done it.
    if (global_init(3) != 0) {
        snprintf(error, error_capacity, "curl_global_init failed");
        return 0;
    }
    return 1;
}

const char *ds_curl_version(void) { return loaded_version ? loaded_version->version : ""; }
unsigned ds_curl_version_number(void) { return loaded_version ? loaded_version->version_num : 0; }
int ds_curl_features(void) { return loaded_version ? loaded_version->features : 0; }
const char *ds_curl_ssl_version(void) {
    return loaded_version && loaded_version->ssl_version ? loaded_version->ssl_version : "";
}

ds_curlm *ds_curl_multi_init(void) { return (ds_curlm *)multi_init(); }
void ds_curl_multi_cleanup(ds_curlm *multi) { multi_cleanup(multi); }
int ds_curl_multi_add(ds_curlm *multi, ds_curl *easy) { return multi_add_handle(multi, easy); }
int ds_curl_multi_remove(ds_curlm *multi, ds_curl *easy) { return multi_remove_handle(multi, easy); }
int ds_curl_multi_perform(ds_curlm *multi, int *running) { return multi_perform(multi, running); }
int ds_curl_multi_poll(ds_curlm *multi, int timeout_ms, int *fd_count) {
    return multi_poll(multi, NULL, 0, timeout_ms, fd_count);
}
int ds_curl_multi_wakeup(ds_curlm *multi) { return multi_wakeup(multi); }
int ds_curl_multi_setopt_long(ds_curlm *multi, int option, long value) {
    return multi_setopt(multi, option, value);
}
int ds_curl_multi_next_done(ds_curlm *multi, ds_curl **easy, int *result) {
    int left = 0;
    ds_curl_message *message;
    while ((message = multi_info_read(multi, &left)) != NULL) {
        if (message->msg == 1) {
            *easy = (ds_curl *)message->easy_handle;
            *result = message->data.result;
            return 1;
        }
    }
    return 0;
}

ds_curl *ds_curl_easy_init(void) { return (ds_curl *)easy_init(); }
void ds_curl_easy_cleanup(ds_curl *easy) { easy_cleanup(easy); }
int ds_curl_easy_setopt_long(ds_curl *easy, int option, long value) { return easy_setopt(easy, option, value); }
int ds_curl_easy_setopt_pointer(ds_curl *easy, int option, const void *value) {
    return easy_setopt(easy, option, value);
}
int ds_curl_easy_setopt_callback(ds_curl *easy, int option, ds_curl_data_callback callback) {
    return easy_setopt(easy, option, callback);
}
// struct curl_sockaddr, what libcurl's socket callback is given.
typedef struct {
    int family;
    int socktype;
    int protocol;
    unsigned int addrlen;
    struct sockaddr addr;
} ds_curl_sockaddr;

// CURLOPT_OPENSOCKETFUNCTION's callback: socket(2) as libcurl calls it, its errno kept.
static int open_socket(void *context, int purpose, ds_curl_sockaddr *address) {
    (void)purpose;
    int descriptor = socket(address->family, address->socktype, address->protocol);
    if (descriptor < 0) *(int *)context = errno;
    return descriptor;
}

int ds_curl_easy_record_socket_errors(ds_curl *easy, int *error) {
    int result = easy_setopt(easy, 20163 /* CURLOPT_OPENSOCKETFUNCTION */, open_socket);
    if (result != 0) return result;
    return easy_setopt(easy, 10164 /* CURLOPT_OPENSOCKETDATA */, error);
}
int ds_curl_easy_setopt_blob(ds_curl *easy, int option, const void *bytes, size_t count) {
    ds_curl_blob blob = {(void *)bytes, count, 1};
    return easy_setopt(easy, option, &blob);
}
int ds_curl_easy_setopt_offset(ds_curl *easy, int option, int64_t value) {
    // curl_off_t is a 64-bit integer on every platform libcurl supports.
    return easy_setopt(easy, option, (long long)value);
}
int ds_curl_easy_getinfo_long(ds_curl *easy, int info, long *value) { return easy_getinfo(easy, info, value); }
int ds_curl_easy_getinfo_string(ds_curl *easy, int info, const char **value) {
    return easy_getinfo(easy, info, value);
}
int ds_curl_easy_pause(ds_curl *easy, int bitmask) { return easy_pause(easy, bitmask); }
const char *ds_curl_easy_strerror(int code) { return easy_strerror(code); }

ds_curl_slist *ds_curl_slist_append(ds_curl_slist *list, const char *line) {
    return (ds_curl_slist *)slist_append(list, line);
}
void ds_curl_slist_free_all(ds_curl_slist *list) { slist_free_all(list); }

#else

// Apple platforms keep URLSession: libcurl is never loaded, and nothing else is called.
int ds_curl_load(const char *path, char *error, size_t error_capacity) {
    (void)path;
    snprintf(error, error_capacity, "the libcurl transport is for Linux");
    return 0;
}
const char *ds_curl_version(void) { return ""; }
unsigned ds_curl_version_number(void) { return 0; }
int ds_curl_features(void) { return 0; }
const char *ds_curl_ssl_version(void) { return ""; }
ds_curlm *ds_curl_multi_init(void) { return NULL; }
void ds_curl_multi_cleanup(ds_curlm *multi) { (void)multi; }
int ds_curl_multi_add(ds_curlm *multi, ds_curl *easy) { (void)multi; (void)easy; return -1; }
int ds_curl_multi_remove(ds_curlm *multi, ds_curl *easy) { (void)multi; (void)easy; return -1; }
int ds_curl_multi_perform(ds_curlm *multi, int *running) { (void)multi; *running = 0; return -1; }
int ds_curl_multi_poll(ds_curlm *multi, int timeout_ms, int *fd_count) {
    (void)multi; (void)timeout_ms; *fd_count = 0; return -1;
}
int ds_curl_multi_wakeup(ds_curlm *multi) { (void)multi; return -1; }
int ds_curl_multi_setopt_long(ds_curlm *multi, int option, long value) {
    (void)multi; (void)option; (void)value; return -1;
}
int ds_curl_multi_next_done(ds_curlm *multi, ds_curl **easy, int *result) {
    (void)multi; (void)easy; (void)result; return 0;
}
ds_curl *ds_curl_easy_init(void) { return NULL; }
void ds_curl_easy_cleanup(ds_curl *easy) { (void)easy; }
int ds_curl_easy_setopt_long(ds_curl *easy, int option, long value) { (void)easy; (void)option; (void)value; return -1; }
int ds_curl_easy_setopt_pointer(ds_curl *easy, int option, const void *value) {
    (void)easy; (void)option; (void)value; return -1;
}
int ds_curl_easy_setopt_callback(ds_curl *easy, int option, ds_curl_data_callback callback) {
    (void)easy; (void)option; (void)callback; return -1;
}
int ds_curl_easy_setopt_offset(ds_curl *easy, int option, int64_t value) {
    (void)easy; (void)option; (void)value; return -1;
}
int ds_curl_easy_setopt_blob(ds_curl *easy, int option, const void *bytes, size_t count) {
    (void)easy; (void)option; (void)bytes; (void)count; return -1;
}
int ds_curl_easy_record_socket_errors(ds_curl *easy, int *error) { (void)easy; (void)error; return -1; }
int ds_curl_easy_getinfo_long(ds_curl *easy, int info, long *value) { (void)easy; (void)info; (void)value; return -1; }
int ds_curl_easy_getinfo_string(ds_curl *easy, int info, const char **value) {
    (void)easy; (void)info; (void)value; return -1;
}
int ds_curl_easy_pause(ds_curl *easy, int bitmask) { (void)easy; (void)bitmask; return -1; }
const char *ds_curl_easy_strerror(int code) { (void)code; return ""; }
ds_curl_slist *ds_curl_slist_append(ds_curl_slist *list, const char *line) { (void)list; (void)line; return NULL; }
void ds_curl_slist_free_all(ds_curl_slist *list) { (void)list; }

#endif
