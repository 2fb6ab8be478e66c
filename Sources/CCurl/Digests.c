#include "Digests.h"

#include <pthread.h>
#include <stdio.h>
#include <string.h>

// MARK: - Hashes

#if defined(__linux__)

#include <dlfcn.h>

// The contexts of openssl/sha.h and openssl/md5.h (SHA_LONG and MD5_LONG are unsigned int,
// SHA_LONG64 unsigned long long), unchanged since OpenSSL 0.9.8. Their *_Update functions keep
// `h` (SHA-1's h0..h4, MD5's A..D) as the words' values, count bits in Nl and Nh (unused here:
// the caller pads), and with `num` 0 hand whole blocks straight to the block function (the
// assembly one that uses the SHA extensions or AVX2 where the CPU has them).
typedef struct {
    unsigned int h[8];
    unsigned int Nl, Nh;
    unsigned int data[16];
    unsigned int num, md_len;
} ds_sha256_ctx;

typedef struct {
    unsigned int h[5];  // h0, h1, h2, h3, h4
    unsigned int Nl, Nh;
    unsigned int data[16];
    unsigned int num;
} ds_sha1_ctx;

typedef struct {
    unsigned int h[4];  // A, B, C, D
    unsigned int Nl, Nh;
    unsigned int data[16];
    unsigned int num;
} ds_md5_ctx;

typedef struct {
    unsigned long long h[8];
    unsigned long long Nl, Nh;
    union {
        unsigned long long d[16];
        unsigned char p[128];
    } u;
    unsigned int num, md_len;
} ds_sha512_ctx;

static int (*sha256_update)(ds_sha256_ctx *, const void *, size_t);
static int (*sha1_update)(ds_sha1_ctx *, const void *, size_t);
static int (*md5_update)(ds_md5_ctx *, const void *, size_t);
static int (*sha512_update)(ds_sha512_ctx *, const void *, size_t);

static pthread_once_t hashes_once = PTHREAD_ONCE_INIT;
static char hashes_error[256];
static int hashes_loaded;

static void load_hashes(void) {
    // libcurl's TLS library on Debian and Ubuntu (OpenSSL 3), then OpenSSL 1.1's name.
    const char *name = "libcrypto.so.3";
    void *library = dlopen(name, RTLD_NOW | RTLD_LOCAL);
    if (library == NULL) {
        name = "libcrypto.so.1.1";
        library = dlopen(name, RTLD_NOW | RTLD_LOCAL);
    }
    if (library == NULL) {
        snprintf(hashes_error, sizeof hashes_error, "neither libcrypto.so.3 nor libcrypto.so.1.1 was found");
        return;
    }
    *(void **)(&sha256_update) = dlsym(library, "SHA256_Update");
    *(void **)(&sha1_update) = dlsym(library, "SHA1_Update");
    *(void **)(&md5_update) = dlsym(library, "MD5_Update");
    *(void **)(&sha512_update) = dlsym(library, "SHA512_Update");
    if (!sha256_update || !sha1_update || !md5_update || !sha512_update) {
        snprintf(hashes_error, sizeof hashes_error, "%s lacks SHA256_Update, SHA1_Update, MD5_Update or SHA512_Update",
                 name);
        return;
    }
    hashes_loaded = 1;
}

static int hashes_ready(void) {
    pthread_once(&hashes_once, load_hashes);
    return hashes_loaded;
}

int ds_hashes_load(char *error, size_t error_capacity) {
    if (!hashes_ready()) snprintf(error, error_capacity, "%s", hashes_error);
    return hashes_loaded;
}

int ds_sha256_blocks(uint32_t state[8], const void *blocks, size_t count) {
    if (!hashes_ready()) return 0;
    ds_sha256_ctx context = {.md_len = 32};
    memcpy(context.h, state, sizeof context.h);
    sha256_update(&context, blocks, count * 64);
    memcpy(state, context.h, sizeof context.h);
    return 1;
}

int ds_sha1_blocks(uint32_t state[5], const void *blocks, size_t count) {
    if (!hashes_ready()) return 0;
    ds_sha1_ctx context = {.num = 0};
    memcpy(context.h, state, sizeof context.h);
    sha1_update(&context, blocks, count * 64);
    memcpy(state, context.h, sizeof context.h);
    return 1;
}

int ds_md5_blocks(uint32_t state[4], const void *blocks, size_t count) {
    if (!hashes_ready()) return 0;
    ds_md5_ctx context = {.num = 0};
    memcpy(context.h, state, sizeof context.h);
    md5_update(&context, blocks, count * 64);
    memcpy(state, context.h, sizeof context.h);
    return 1;
}

int ds_sha512_blocks(uint64_t state[8], const void *blocks, size_t count) {
    if (!hashes_ready()) return 0;
    ds_sha512_ctx context = {.md_len = 64};
    memcpy(context.h, state, sizeof context.h);
    sha512_update(&context, blocks, count * 128);
    memcpy(state, context.h, sizeof context.h);
    return 1;
}

#elif defined(__APPLE__)

// CommonCrypto's contexts are public structs whose hash words are the words' values (its
// *_Init copies the initial values in; its *_Final writes them big-endian, MD5's little-endian).
// With the byte count a multiple of the block size, *_Update hands whole blocks to corecrypto's
// block function. CC_MD5 and CC_SHA1 are deprecated for security (since iOS 13): here they only
// check what arrived against what a server published.
#include <CommonCrypto/CommonDigest.h>

int ds_hashes_load(char *error, size_t error_capacity) {
    (void)error;
    (void)error_capacity;
    return 1;
}

// CC_LONG counts: at most 1 GiB a call.
#define DS_EACH_PIECE(count, block, body)                                                   \
    do {                                                                                    \
        const unsigned char *bytes = blocks;                                                \
        size_t left = (count);                                                              \
        while (left > 0) {                                                                  \
            size_t taken = left > ((size_t)1 << 30) / (block) ? ((size_t)1 << 30) / (block) : left; \
            CC_LONG length = (CC_LONG)(taken * (block));                                    \
            body;                                                                           \
            bytes += taken * (block);                                                       \
            left -= taken;                                                                  \
        }                                                                                   \
    } while (0)

int ds_sha256_blocks(uint32_t state[8], const void *blocks, size_t count) {
    CC_SHA256_CTX context;
    memset(&context, 0, sizeof context);
    memcpy(context.hash, state, sizeof context.hash);
    DS_EACH_PIECE(count, 64, CC_SHA256_Update(&context, bytes, length));
    memcpy(state, context.hash, sizeof context.hash);
    return 1;
}

#pragma clang diagnostic push
#pragma clang diagnostic ignored "-Wdeprecated-declarations"

int ds_sha1_blocks(uint32_t state[5], const void *blocks, size_t count) {
    CC_SHA1_CTX context;
    memset(&context, 0, sizeof context);
    context.h0 = state[0];
    context.h1 = state[1];
    context.h2 = state[2];
    context.h3 = state[3];
    context.h4 = state[4];
    DS_EACH_PIECE(count, 64, CC_SHA1_Update(&context, bytes, length));
    state[0] = context.h0;
    state[1] = context.h1;
    state[2] = context.h2;
    state[3] = context.h3;
    state[4] = context.h4;
    return 1;
}

int ds_md5_blocks(uint32_t state[4], const void *blocks, size_t count) {
    CC_MD5_CTX context;
    memset(&context, 0, sizeof context);
    context.A = state[0];
    context.B = state[1];
    context.C = state[2];
    context.D = state[3];
    DS_EACH_PIECE(count, 64, CC_MD5_Update(&context, bytes, length));
    state[0] = context.A;
    state[1] = context.B;
    state[2] = context.C;
    state[3] = context.D;
    return 1;
}

#pragma clang diagnostic pop

int ds_sha512_blocks(uint64_t state[8], const void *blocks, size_t count) {
    CC_SHA512_CTX context;
    memset(&context, 0, sizeof context);
    memcpy(context.hash, state, sizeof context.hash);
    DS_EACH_PIECE(count, 128, CC_SHA512_Update(&context, bytes, length));
    memcpy(state, context.hash, sizeof context.hash);
    return 1;
}

#else

int ds_hashes_load(char *error, size_t error_capacity) {
    snprintf(error, error_capacity, "no hash library is known on this platform");
    return 0;
}
int ds_sha256_blocks(uint32_t state[8], const void *blocks, size_t count) {
    (void)state; (void)blocks; (void)count;
    return 0;
}
int ds_sha1_blocks(uint32_t state[5], const void *blocks, size_t count) {
    (void)state; (void)blocks; (void)count;
    return 0;
}
int ds_md5_blocks(uint32_t state[4], const void *blocks, size_t count) {
    (void)state; (void)blocks; (void)count;
    return 0;
}
int ds_sha512_blocks(uint64_t state[8], const void *blocks, size_t count) {
    (void)state; (void)blocks; (void)count;
    return 0;
}

#endif

// MARK: - CRC-32C

#if defined(__x86_64__)

static pthread_once_t crc32c_once = PTHREAD_ONCE_INIT;
static int crc32c_supported;

static void check_crc32c(void) { crc32c_supported = __builtin_cpu_supports("sse4.2"); }

// SSE 4.2's crc32 computes CRC-32C (Castagnoli), reflected, without the inversions.
__attribute__((target("sse4.2"))) static uint32_t crc32c_instruction(uint32_t crc, const unsigned char *bytes,
                                                                        size_t count) {
    uint64_t value = crc;
    while (count >= 8) {
        uint64_t word;
        memcpy(&word, bytes, 8);
        value = __builtin_ia32_crc32di(value, word);
        bytes += 8;
        count -= 8;
    }
    uint32_t result = (uint32_t)value;
    while (count > 0) {
        result = __builtin_ia32_crc32qi(result, *bytes);
        bytes += 1;
        count -= 1;
    }
    return result;
}

#elif defined(__aarch64__) && (defined(__linux__) || defined(__APPLE__))

#if defined(__linux__)
#include <sys/auxv.h>
#else
#include <sys/sysctl.h>
#endif

static pthread_once_t crc32c_once = PTHREAD_ONCE_INIT;
static int crc32c_supported;

static void check_crc32c(void) {
#if defined(__linux__)
    crc32c_supported = (getauxval(AT_HWCAP) & (1UL << 7)) != 0;  // HWCAP_CRC32
#else
    int value = 0;
    size_t size = sizeof value;
    crc32c_supported = sysctlbyname("hw.optional.armv8_crc32", &value, &size, NULL, 0) == 0 && value == 1;
#endif
}

// ARMv8's CRC32C instructions, reflected, without the inversions.
__attribute__((target("crc"))) static uint32_t crc32c_instruction(uint32_t crc, const unsigned char *bytes,
                                                                     size_t count) {
    while (count >= 8) {
        uint64_t word;
        memcpy(&word, bytes, 8);
        crc = __builtin_arm_crc32cd(crc, word);
        bytes += 8;
        count -= 8;
    }
    while (count > 0) {
        crc = __builtin_arm_crc32cb(crc, *bytes);
        bytes += 1;
        count -= 1;
    }
    return crc;
}

#else
#define DS_NO_CRC32C_INSTRUCTION 1
#endif

int ds_crc32c(uint32_t *crc, const void *bytes, size_t count) {
#if defined(DS_NO_CRC32C_INSTRUCTION)
    (void)crc; (void)bytes; (void)count;
    return 0;
#else
    pthread_once(&crc32c_once, check_crc32c);
    if (!crc32c_supported) return 0;
    *crc = ~crc32c_instruction(~*crc, bytes, count);
    return 1;
#endif
}

// MARK: - CRC-32

#if defined(__linux__)

static unsigned long (*zlib_crc32)(unsigned long, const unsigned char *, unsigned int);
static pthread_once_t zlib_once = PTHREAD_ONCE_INIT;

static void load_zlib_crc32(void) {
    void *library = dlopen("libz.so.1", RTLD_NOW | RTLD_LOCAL);
    if (library != NULL) *(void **)(&zlib_crc32) = dlsym(library, "crc32");
}

int ds_crc32(uint32_t *crc, const void *bytes, size_t count) {
    pthread_once(&zlib_once, load_zlib_crc32);
    if (zlib_crc32 == NULL) return 0;
    // uInt counts: at most 1 GiB a call. zlib's CRC takes and gives the inverted value, as ours.
    const unsigned char *next = bytes;
    unsigned long value = *crc;
    while (count > 0) {
        unsigned int taken = count > ((size_t)1 << 30) ? (1u << 30) : (unsigned int)count;
        value = zlib_crc32(value, next, taken);
        next += taken;
        count -= taken;
    }
    *crc = (uint32_t)value;
    return 1;
}

#else

int ds_crc32(uint32_t *crc, const void *bytes, size_t count) {
    (void)crc; (void)bytes; (void)count;
    return 0;
}

#endif
