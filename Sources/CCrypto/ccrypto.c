#include "ccrypto.h"

#include <openssl/bn.h>
#include <openssl/core_names.h>
#include <openssl/evp.h>
#include <openssl/kdf.h>
#include <openssl/params.h>
#include <openssl/rand.h>

int ccrypto_random(uint8_t *out, size_t n) {
    return n == 0 || RAND_bytes(out, (int)n) == 1;
}

static int digest(const EVP_MD *md, const uint8_t *in, size_t n, uint8_t *out) {
    unsigned int len = 0;
    return EVP_Digest(in, n, out, &len, md, NULL) == 1;
}

int ccrypto_sha512(const uint8_t *in, size_t n, uint8_t *out) { return digest(EVP_sha512(), in, n, out); }
int ccrypto_sha1(const uint8_t *in, size_t n, uint8_t *out) { return digest(EVP_sha1(), in, n, out); }

int ccrypto_base64(const uint8_t *in, size_t n, char *out) { return EVP_EncodeBlock((unsigned char *)out, in, (int)n); }

int ccrypto_hkdf_sha512(const uint8_t *key, size_t key_len, const uint8_t *salt, size_t salt_len,
                        const uint8_t *info, size_t info_len, uint8_t *out, size_t out_len) {
    EVP_KDF *kdf = EVP_KDF_fetch(NULL, "HKDF", NULL);
    if (!kdf) return 0;
    EVP_KDF_CTX *ctx = EVP_KDF_CTX_new(kdf);
    EVP_KDF_free(kdf);
    if (!ctx) return 0;
    OSSL_PARAM params[] = {
        OSSL_PARAM_construct_utf8_string(OSSL_KDF_PARAM_DIGEST, "SHA512", 0),
        OSSL_PARAM_construct_octet_string(OSSL_KDF_PARAM_KEY, (void *)key, key_len),
        OSSL_PARAM_construct_octet_string(OSSL_KDF_PARAM_SALT, (void *)salt, salt_len),
        OSSL_PARAM_construct_octet_string(OSSL_KDF_PARAM_INFO, (void *)info, info_len),
        OSSL_PARAM_construct_end(),
    };
    int ok = EVP_KDF_derive(ctx, out, out_len, params) == 1;
    EVP_KDF_CTX_free(ctx);
    return ok;
}

static int chacha(int seal, const uint8_t *key, const uint8_t *nonce, const uint8_t *aad, size_t aad_len,
                  const uint8_t *in, size_t in_len, uint8_t *out) {
    if (!seal && in_len < 16) return 0;
    size_t body = seal ? in_len : in_len - 16;
    EVP_CIPHER_CTX *ctx = EVP_CIPHER_CTX_new();
    if (!ctx) return 0;
    int len = 0, ok = EVP_CipherInit_ex(ctx, EVP_chacha20_poly1305(), NULL, NULL, NULL, seal) == 1
        && EVP_CIPHER_CTX_ctrl(ctx, EVP_CTRL_AEAD_SET_IVLEN, 12, NULL) == 1
        && EVP_CipherInit_ex(ctx, NULL, NULL, key, nonce, seal) == 1
        && (aad_len == 0 || EVP_CipherUpdate(ctx, NULL, &len, aad, (int)aad_len) == 1)
        && (body == 0 || EVP_CipherUpdate(ctx, out, &len, in, (int)body) == 1);
    if (ok && !seal) ok = EVP_CIPHER_CTX_ctrl(ctx, EVP_CTRL_AEAD_SET_TAG, 16, (void *)(in + body)) == 1;
    ok = ok && EVP_CipherFinal_ex(ctx, out + body, &len) == 1;
    if (ok && seal) ok = EVP_CIPHER_CTX_ctrl(ctx, EVP_CTRL_AEAD_GET_TAG, 16, out + body) == 1;
    EVP_CIPHER_CTX_free(ctx);
    return ok;
}

int ccrypto_chacha_seal(const uint8_t *key, const uint8_t *nonce, const uint8_t *aad, size_t aad_len,
                        const uint8_t *in, size_t in_len, uint8_t *out) {
    return chacha(1, key, nonce, aad, aad_len, in, in_len, out);
}

int ccrypto_chacha_open(const uint8_t *key, const uint8_t *nonce, const uint8_t *aad, size_t aad_len,
                        const uint8_t *in, size_t in_len, uint8_t *out) {
    return chacha(0, key, nonce, aad, aad_len, in, in_len, out);
}

static int raw_public(int type, const uint8_t *secret, uint8_t *public_key) {
    EVP_PKEY *key = EVP_PKEY_new_raw_private_key(type, NULL, secret, 32);
    size_t len = 32;
    int ok = key && EVP_PKEY_get_raw_public_key(key, public_key, &len) == 1 && len == 32;
    EVP_PKEY_free(key);
    return ok;
}

int ccrypto_ed25519_public(const uint8_t *seed, uint8_t *public_key) { return raw_public(EVP_PKEY_ED25519, seed, public_key); }
int ccrypto_x25519_public(const uint8_t *secret, uint8_t *public_key) { return raw_public(EVP_PKEY_X25519, secret, public_key); }

int ccrypto_ed25519_sign(const uint8_t *seed, const uint8_t *msg, size_t msg_len, uint8_t *signature) {
    EVP_PKEY *key = EVP_PKEY_new_raw_private_key(EVP_PKEY_ED25519, NULL, seed, 32);
    EVP_MD_CTX *ctx = EVP_MD_CTX_new();
    size_t len = 64;
    int ok = key && ctx && EVP_DigestSignInit(ctx, NULL, NULL, NULL, key) == 1
        && EVP_DigestSign(ctx, signature, &len, msg, msg_len) == 1 && len == 64;
    EVP_MD_CTX_free(ctx);
    EVP_PKEY_free(key);
    return ok;
}

int ccrypto_ed25519_verify(const uint8_t *public_key, const uint8_t *msg, size_t msg_len, const uint8_t *signature) {
    EVP_PKEY *key = EVP_PKEY_new_raw_public_key(EVP_PKEY_ED25519, NULL, public_key, 32);
    EVP_MD_CTX *ctx = EVP_MD_CTX_new();
    int ok = key && ctx && EVP_DigestVerifyInit(ctx, NULL, NULL, NULL, key) == 1
        && EVP_DigestVerify(ctx, signature, 64, msg, msg_len) == 1;
    EVP_MD_CTX_free(ctx);
    EVP_PKEY_free(key);
    return ok;
}

int ccrypto_x25519_shared(const uint8_t *secret, const uint8_t *peer, uint8_t *shared) {
    EVP_PKEY *mine = EVP_PKEY_new_raw_private_key(EVP_PKEY_X25519, NULL, secret, 32);
    EVP_PKEY *theirs = EVP_PKEY_new_raw_public_key(EVP_PKEY_X25519, NULL, peer, 32);
    EVP_PKEY_CTX *ctx = mine ? EVP_PKEY_CTX_new(mine, NULL) : NULL;
    size_t len = 32;
    // OpenSSL refuses a peer key that yields the all-zero secret (RFC 7748's check).
    int ok = ctx && theirs && EVP_PKEY_derive_init(ctx) == 1 && EVP_PKEY_derive_set_peer(ctx, theirs) == 1
        && EVP_PKEY_derive(ctx, shared, &len) == 1 && len == 32;
    EVP_PKEY_CTX_free(ctx);
    EVP_PKEY_free(theirs);
    EVP_PKEY_free(mine);
    return ok;
}

enum { MOD_EXP, MOD_MUL, MOD_ADD };

static int mod_op(int op, const uint8_t *a, size_t a_len, const uint8_t *b, size_t b_len,
                  const uint8_t *mod, size_t mod_len, uint8_t *out, size_t out_len) {
    BN_CTX *ctx = BN_CTX_new();
    BIGNUM *x = BN_bin2bn(a, (int)a_len, NULL), *y = BN_bin2bn(b, (int)b_len, NULL);
    BIGNUM *m = BN_bin2bn(mod, (int)mod_len, NULL), *r = BN_new();
    int ok = ctx && x && y && m && r && !BN_is_zero(m);
    if (ok) {
        switch (op) {
        case MOD_EXP:
            BN_set_flags(y, BN_FLG_CONSTTIME);  // the exponent is a secret
            ok = BN_mod_exp(r, x, y, m, ctx) == 1;
            break;
        case MOD_MUL: ok = BN_mod_mul(r, x, y, m, ctx) == 1; break;
        default: ok = BN_mod_add(r, x, y, m, ctx) == 1; break;
        }
    }
    ok = ok && BN_bn2binpad(r, out, (int)out_len) == (int)out_len;
    BN_clear_free(r);
    BN_free(m);
    BN_clear_free(y);
    BN_clear_free(x);
    BN_CTX_free(ctx);
    return ok;
}

int ccrypto_mod_exp(const uint8_t *base, size_t base_len, const uint8_t *exp, size_t exp_len,
                    const uint8_t *mod, size_t mod_len, uint8_t *out, size_t out_len) {
    return mod_op(MOD_EXP, base, base_len, exp, exp_len, mod, mod_len, out, out_len);
}

int ccrypto_mod_mul(const uint8_t *a, size_t a_len, const uint8_t *b, size_t b_len,
                    const uint8_t *mod, size_t mod_len, uint8_t *out, size_t out_len) {
    return mod_op(MOD_MUL, a, a_len, b, b_len, mod, mod_len, out, out_len);
}

int ccrypto_mod_add(const uint8_t *a, size_t a_len, const uint8_t *b, size_t b_len,
                    const uint8_t *mod, size_t mod_len, uint8_t *out, size_t out_len) {
    return mod_op(MOD_ADD, a, a_len, b, b_len, mod, mod_len, out, out_len);
}
