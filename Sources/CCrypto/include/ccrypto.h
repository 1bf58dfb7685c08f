#ifndef CCRYPTO_H
#define CCRYPTO_H

#include <stddef.h>
#include <stdint.h>

/// A thin layer over OpenSSL's libcrypto: one call per primitive HomeKit's pairing and sessions
/// use, on plain byte buffers, so Swift never handles an OpenSSL object. Each returns 1 on
/// success and 0 on failure (a bad key, a forged tag, out of memory).

/// `n` bytes from the system's CSPRNG.
int ccrypto_random(uint8_t *out, size_t n);

/// SHA-512 (64 bytes out) and SHA-1 (20 bytes out; only for RFC 5054's SRP test vector).
int ccrypto_sha512(const uint8_t *in, size_t n, uint8_t *out);

/// RFC 4648 base64 with padding (EVP_EncodeBlock) of `n` bytes into `out`, which holds at least
/// 4 * ((n + 2) / 3) + 1 bytes; returns the length written, without the final NUL.
int ccrypto_base64(const uint8_t *in, size_t n, char *out);
int ccrypto_sha1(const uint8_t *in, size_t n, uint8_t *out);

/// HKDF with SHA-512 (RFC 5869), `out_len` bytes.
int ccrypto_hkdf_sha512(const uint8_t *key, size_t key_len, const uint8_t *salt, size_t salt_len,
                        const uint8_t *info, size_t info_len, uint8_t *out, size_t out_len);

/// ChaCha20-Poly1305 (RFC 8439): a 32-byte key, a 12-byte nonce. `seal` writes `in_len + 16`
/// bytes (the ciphertext, then the tag); `open` takes the same and writes `in_len - 16` bytes,
/// failing when the tag does not match.
int ccrypto_chacha_seal(const uint8_t *key, const uint8_t *nonce, const uint8_t *aad, size_t aad_len,
                        const uint8_t *in, size_t in_len, uint8_t *out);
int ccrypto_chacha_open(const uint8_t *key, const uint8_t *nonce, const uint8_t *aad, size_t aad_len,
                        const uint8_t *in, size_t in_len, uint8_t *out);

/// Ed25519 from a 32-byte seed: its public key (32 bytes), a signature (64 bytes), a check.
int ccrypto_ed25519_public(const uint8_t *seed, uint8_t *public_key);
int ccrypto_ed25519_sign(const uint8_t *seed, const uint8_t *msg, size_t msg_len, uint8_t *signature);
int ccrypto_ed25519_verify(const uint8_t *public_key, const uint8_t *msg, size_t msg_len, const uint8_t *signature);

/// X25519: the public key of a 32-byte secret, and the shared secret with a peer's public key
/// (fails for a peer key that gives the all-zero secret).
int ccrypto_x25519_public(const uint8_t *secret, uint8_t *public_key);
int ccrypto_x25519_shared(const uint8_t *secret, const uint8_t *peer, uint8_t *shared);

/// Modular arithmetic on big-endian unsigned numbers (SRP-6a's), results left-padded with zeros
/// to `out_len` bytes (at least the modulus's length): base^exp mod m, a*b mod m, a+b mod m.
int ccrypto_mod_exp(const uint8_t *base, size_t base_len, const uint8_t *exp, size_t exp_len,
                    const uint8_t *mod, size_t mod_len, uint8_t *out, size_t out_len);
int ccrypto_mod_mul(const uint8_t *a, size_t a_len, const uint8_t *b, size_t b_len,
                    const uint8_t *mod, size_t mod_len, uint8_t *out, size_t out_len);
int ccrypto_mod_add(const uint8_t *a, size_t a_len, const uint8_t *b, size_t b_len,
                    const uint8_t *mod, size_t mod_len, uint8_t *out, size_t out_len);

#endif
