// The platform's block functions for Downstream's digests, which keep their own buffering,
// padding and state (saved with a download's record, so a relaunch goes on hashing).
//
// Hashes: each function folds whole blocks into a state given as the algorithm's words, with the
// values FIPS 180-4 and RFC 1321 define (no byte order of their own: the state of the Swift code
// as it is). On Linux they come from libcrypto, loaded at run time as libcurl loads it
// (`libcrypto.so.3`, else `libcrypto.so.1.1`), through the low-level functions of openssl/sha.h
// and openssl/md5.h, whose contexts are declared here as those headers have had them since
// OpenSSL 0.9.8 (their ABI). On Apple platforms they come from CommonCrypto (in libSystem). The
// library compresses with the CPU's instructions where it has them (SHA extensions, AVX2, ARMv8
// crypto).
//
// CRCs: CRC-32C with the CPU's instruction (SSE 4.2 on x86_64, the CRC extension on ARMv8) where
// it has it; CRC-32 with zlib's `crc32` on Linux (libcurl links `libz.so.1`).
//
// Every function returns 0 without doing anything where the platform lacks what it needs: the
// caller then does the work in Swift.
#ifndef DOWNSTREAM_DIGESTS_H
#define DOWNSTREAM_DIGESTS_H

#include <stddef.h>
#include <stdint.h>

/// Loads the hash library, once (thread-safe). Returns 1 when every hash function below is
/// there; else 0, with the reason in `error`.
int ds_hashes_load(char *error, size_t error_capacity);

/// Folds `count` blocks of 64 bytes (SHA-256, SHA-1, MD5) or 128 bytes (SHA-512, SHA-384) at
/// `blocks` into `state`. Returns 1, or 0 when the library is not loaded (`state` unchanged).
int ds_sha256_blocks(uint32_t state[8], const void *blocks, size_t count);
int ds_sha1_blocks(uint32_t state[5], const void *blocks, size_t count);
int ds_md5_blocks(uint32_t state[4], const void *blocks, size_t count);
int ds_sha512_blocks(uint64_t state[8], const void *blocks, size_t count);

/// Continues the CRC-32C `*crc` (the value of the bytes before, 0 for none) over `count` bytes.
/// Returns 1, or 0 when the CPU has no CRC-32C instruction (`*crc` unchanged).
int ds_crc32c(uint32_t *crc, const void *bytes, size_t count);
/// The same for CRC-32 (IEEE), with zlib; 0 when zlib is not loaded.
int ds_crc32(uint32_t *crc, const void *bytes, size_t count);

#endif
