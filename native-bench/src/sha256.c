/*
 * sha256.c - SHA-256 of FIPS 180-4 (§4.1.2 functions, §4.2.2 constants, §5.1.1 padding, §5.3.3
 * initial value, §6.2.2 computation), one-shot over bytes in memory: the digest of the stored form
 * of a long name (FORMAT §1.1). Written from the standard; internal (hmi_), not exported.
 * Twin of the JDK's MessageDigest "SHA-256", which the Java library uses.
 *
 * Tested by tests/test_format.c against the standard's examples ("", "abc", the 448- and 896-bit
 * messages, one million 'a') and against Python's hashlib for every length 0..200
 * (src/test/resources/vectors/sha256.txt, made by src/test/resources/vectors/make_vectors.py).
 *
 * Section references (§n) are to docs/FORMAT.md unless they name FIPS 180-4. No atomics here.
 */
#define _GNU_SOURCE 1
#define HM_LIBRARY_SOURCE 1 /* this file is part of the library: hm_internal.h declares its internals */

#include "hm_internal.h"

#include <string.h>

/* FIPS 180-4 §4.2.2: the first 32 bits of the fractional parts of the cube roots of the first 64 primes. */
static const uint32_t K[64] = {
    0x428a2f98, 0x71374491, 0xb5c0fbcf, 0xe9b5dba5, 0x3956c25b, 0x59f111f1, 0x923f82a4, 0xab1c5ed5,
    0xd807aa98, 0x12835b01, 0x243185be, 0x550c7dc3, 0x72be5d74, 0x80deb1fe, 0x9bdc06a7, 0xc19bf174,
    0xe49b69c1, 0xefbe4786, 0x0fc19dc6, 0x240ca1cc, 0x2de92c6f, 0x4a7484aa, 0x5cb0a9dc, 0x76f988da,
    0x983e5152, 0xa831c66d, 0xb00327c8, 0xbf597fc7, 0xc6e00bf3, 0xd5a79147, 0x06ca6351, 0x14292967,
    0x27b70a85, 0x2e1b2138, 0x4d2c6dfc, 0x53380d13, 0x650a7354, 0x766a0abb, 0x81c2c92e, 0x92722c85,
    0xa2bfe8a1, 0xa81a664b, 0xc24b8b70, 0xc76c51a3, 0xd192e819, 0xd6990624, 0xf40e3585, 0x106aa070,
    0x19a4c116, 0x1e376c08, 0x2748774c, 0x34b0bcb5, 0x391c0cb3, 0x4ed8aa4a, 0x5b9cca4f, 0x682e6ff3,
    0x748f82ee, 0x78a5636f, 0x84c87814, 0x8cc70208, 0x90befffa, 0xa4506ceb, 0xbef9a3f7, 0xc67178f2,
};

static inline uint32_t rotr(uint32_t x, unsigned n) { return x >> n | x << (32 - n); }

static inline uint32_t load_be32(const unsigned char *p) {
    return (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 | (uint32_t)p[2] << 8 | (uint32_t)p[3];
}

static inline void store_be32(unsigned char *p, uint32_t v) {
    p[0] = (unsigned char)(v >> 24);
    p[1] = (unsigned char)(v >> 16);
    p[2] = (unsigned char)(v >> 8);
    p[3] = (unsigned char)v;
}

/* FIPS 180-4 §6.2.2: one 64-byte block M into the hash value H. */
static void compress(uint32_t H[8], const unsigned char M[64]) {
    uint32_t W[64];
    for (int t = 0; t < 16; t++) W[t] = load_be32(M + 4 * t);
    for (int t = 16; t < 64; t++) {
        uint32_t s0 = rotr(W[t - 15], 7) ^ rotr(W[t - 15], 18) ^ (W[t - 15] >> 3);  /* sigma0 */
        uint32_t s1 = rotr(W[t - 2], 17) ^ rotr(W[t - 2], 19) ^ (W[t - 2] >> 10);   /* sigma1 */
        W[t] = s1 + W[t - 7] + s0 + W[t - 16];
    }
    uint32_t a = H[0], b = H[1], c = H[2], d = H[3], e = H[4], f = H[5], g = H[6], h = H[7];
    for (int t = 0; t < 64; t++) {
        uint32_t S1 = rotr(e, 6) ^ rotr(e, 11) ^ rotr(e, 25);   /* Sigma1 */
        uint32_t ch = (e & f) ^ (~e & g);                        /* Ch */
        uint32_t T1 = h + S1 + ch + K[t] + W[t];
        uint32_t S0 = rotr(a, 2) ^ rotr(a, 13) ^ rotr(a, 22);   /* Sigma0 */
        uint32_t maj = (a & b) ^ (a & c) ^ (b & c);              /* Maj */
        uint32_t T2 = S0 + maj;
        h = g; g = f; f = e; e = d + T1;
        d = c; c = b; b = a; a = T1 + T2;
    }
    H[0] += a; H[1] += b; H[2] += c; H[3] += d; H[4] += e; H[5] += f; H[6] += g; H[7] += h;
}

void hmi_sha256(const void *data, size_t len, unsigned char out[HMI_SHA256_BYTES]) {
    /* FIPS 180-4 §5.3.3: the first 32 bits of the fractional parts of the square roots of the first 8 primes. */
    uint32_t H[8] = {0x6a09e667, 0xbb67ae85, 0x3c6ef372, 0xa54ff53a, 0x510e527f, 0x9b05688c, 0x1f83d9ab, 0x5be0cd19};
    const unsigned char *p = data;
    size_t whole = len / 64;
    for (size_t i = 0; i < whole; i++) compress(H, p + 64 * i);
    /* §5.1.1 padding: the rest, a 1 bit, zeros, then the message length in bits as a big-endian
       64-bit number, ending on a block boundary (one block, or two when fewer than 9 bytes remain). */
    unsigned char tail[128];
    size_t rest = len - 64 * whole;
    memset(tail, 0, sizeof tail);
    if (rest) memcpy(tail, p + 64 * whole, rest);
    tail[rest] = 0x80;
    size_t tail_len = rest + 9 <= 64 ? 64 : 128;
    uint64_t bits = (uint64_t)len << 3; /* a name is far below 2^61 bytes: no overflow */
    store_be32(tail + tail_len - 8, (uint32_t)(bits >> 32));
    store_be32(tail + tail_len - 4, (uint32_t)bits);
    compress(H, tail);
    if (tail_len == 128) compress(H, tail + 64);
    for (int i = 0; i < 8; i++) store_be32(out + 4 * i, H[i]);
}
