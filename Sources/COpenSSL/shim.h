#ifndef PASSKEYD_COPENSSL_SHIM_H
#define PASSKEYD_COPENSSL_SHIM_H
/* Keys, digests, signatures, randomness. Macros and variadics that Swift cannot call get static inline shims here.
 *
 * Ownership rule for every shim below: a returned EVP_PKEY* is owned by the caller (the Swift wrapper frees it with
 * EVP_PKEY_free); everything else a shim allocates is freed inside the shim on every path. Input buffers are only
 * read during the call (OpenSSL copies what it keeps). */
#include <limits.h>
#include <stddef.h>
#include <openssl/crypto.h>
#include <openssl/err.h>
#include <openssl/evp.h>
#include <openssl/core_names.h>
#include <openssl/param_build.h>
#include <openssl/params.h>
#include <openssl/bn.h>
#include <openssl/ec.h>
#include <openssl/rsa.h>
#include <openssl/rand.h>
#include <openssl/obj_mac.h>
#include <openssl/objects.h>
/* i2d_PUBKEY / d2i_PUBKEY and the PKCS#8 helpers are declared here. */
#include <openssl/x509.h>

/* EVP_PKEY_PUBLIC_KEY / EVP_PKEY_KEYPAIR are compound macros that Swift does not import. */
static inline int passkeyd_selection_public_key(void) { return EVP_PKEY_PUBLIC_KEY; }

/* Imports an EC public key from its uncompressed SEC1 encoding (0x04 || x || y) with EVP_PKEY_fromdata.
 * `group_name` is an OpenSSL group name ("prime256v1", "secp384r1", "secp521r1"). OpenSSL's point decoding rejects
 * coordinates >= p and points that are not on the curve, so this returns NULL for them. */
static inline EVP_PKEY *passkeyd_ec_public_key_from_point(const char *group_name,
                                                          const unsigned char *point, size_t point_len) {
    EVP_PKEY *pkey = NULL;
    OSSL_PARAM params[3];
    params[0] = OSSL_PARAM_construct_utf8_string(OSSL_PKEY_PARAM_GROUP_NAME, (char *)group_name, 0);
    params[1] = OSSL_PARAM_construct_octet_string(OSSL_PKEY_PARAM_PUB_KEY, (void *)point, point_len);
    params[2] = OSSL_PARAM_construct_end();
    EVP_PKEY_CTX *ctx = EVP_PKEY_CTX_new_from_name(NULL, "EC", NULL);
    if (ctx == NULL) return NULL;
    if (EVP_PKEY_fromdata_init(ctx) <= 0 || EVP_PKEY_fromdata(ctx, &pkey, EVP_PKEY_PUBLIC_KEY, params) <= 0) {
        pkey = NULL; /* EVP_PKEY_fromdata frees what it allocated on failure */
    }
    EVP_PKEY_CTX_free(ctx);
    return pkey;
}

/* Imports an RSA public key from big-endian modulus and exponent bytes (BIGNUMs through OSSL_PARAM_BLD). */
static inline EVP_PKEY *passkeyd_rsa_public_key_from_components(const unsigned char *n, size_t n_len,
                                                                const unsigned char *e, size_t e_len) {
    EVP_PKEY *pkey = NULL;
    BIGNUM *bn_n = NULL, *bn_e = NULL;
    OSSL_PARAM_BLD *bld = NULL;
    OSSL_PARAM *params = NULL;
    EVP_PKEY_CTX *ctx = NULL;
    if (n_len > INT_MAX || e_len > INT_MAX) return NULL;
    bn_n = BN_bin2bn(n, (int)n_len, NULL);
    bn_e = BN_bin2bn(e, (int)e_len, NULL);
    bld = OSSL_PARAM_BLD_new();
    if (bn_n == NULL || bn_e == NULL || bld == NULL) goto done;
    if (!OSSL_PARAM_BLD_push_BN(bld, OSSL_PKEY_PARAM_RSA_N, bn_n)
        || !OSSL_PARAM_BLD_push_BN(bld, OSSL_PKEY_PARAM_RSA_E, bn_e)) goto done;
    params = OSSL_PARAM_BLD_to_param(bld);
    if (params == NULL) goto done;
    ctx = EVP_PKEY_CTX_new_from_name(NULL, "RSA", NULL);
    if (ctx == NULL) goto done;
    if (EVP_PKEY_fromdata_init(ctx) <= 0 || EVP_PKEY_fromdata(ctx, &pkey, EVP_PKEY_PUBLIC_KEY, params) <= 0) {
        pkey = NULL;
    }
done:
    EVP_PKEY_CTX_free(ctx);
    OSSL_PARAM_free(params);
    OSSL_PARAM_BLD_free(bld);
    BN_free(bn_e);
    BN_free(bn_n);
    return pkey;
}

/* Copies a BIGNUM key parameter (e.g. OSSL_PKEY_PARAM_RSA_N) out as minimal big-endian bytes.
 * With out == NULL returns the needed length; otherwise writes at most out_cap bytes. Returns -1 on failure. */
static inline int passkeyd_pkey_bn_param(const EVP_PKEY *pkey, const char *name, unsigned char *out, size_t out_cap) {
    BIGNUM *bn = NULL;
    int len;
    if (EVP_PKEY_get_bn_param(pkey, name, &bn) != 1 || bn == NULL) return -1;
    len = BN_num_bytes(bn);
    if (out != NULL) {
        if ((size_t)len > out_cap || BN_bn2bin(bn, out) != len) len = -1;
    }
    BN_free(bn);
    return len;
}

/* Key generation with the non-variadic 3.0 API ("EC" + group, "RSA" + bits, or "ED25519"/"ED448"). */
static inline EVP_PKEY *passkeyd_generate_key(const char *type, const char *ec_group, unsigned int rsa_bits) {
    EVP_PKEY *pkey = NULL;
    EVP_PKEY_CTX *ctx = EVP_PKEY_CTX_new_from_name(NULL, type, NULL);
    if (ctx == NULL) return NULL;
    if (EVP_PKEY_keygen_init(ctx) <= 0) goto done;
    if (ec_group != NULL && EVP_PKEY_CTX_set_group_name(ctx, ec_group) <= 0) goto done;
    if (rsa_bits != 0 && EVP_PKEY_CTX_set_rsa_keygen_bits(ctx, (int)rsa_bits) <= 0) goto done;
    if (EVP_PKEY_generate(ctx, &pkey) <= 0) pkey = NULL;
done:
    EVP_PKEY_CTX_free(ctx);
    return pkey;
}

/* DER PKCS#8 PrivateKeyInfo (unencrypted). With out == NULL returns the length; -1 on failure. */
static inline int passkeyd_private_key_to_pkcs8(const EVP_PKEY *pkey, unsigned char *out, size_t out_cap) {
    int len;
    PKCS8_PRIV_KEY_INFO *p8 = EVP_PKEY2PKCS8(pkey);
    if (p8 == NULL) return -1;
    len = i2d_PKCS8_PRIV_KEY_INFO(p8, NULL);
    if (out != NULL && len > 0) {
        unsigned char *cursor = out;
        if ((size_t)len > out_cap || i2d_PKCS8_PRIV_KEY_INFO(p8, &cursor) != len) len = -1;
    }
    PKCS8_PRIV_KEY_INFO_free(p8);
    return len;
}

/* Parses DER PKCS#8 PrivateKeyInfo; NULL on failure or trailing bytes. */
static inline EVP_PKEY *passkeyd_private_key_from_pkcs8(const unsigned char *der, size_t der_len) {
    const unsigned char *cursor = der;
    EVP_PKEY *pkey = NULL;
    if (der_len > LONG_MAX) return NULL;
    PKCS8_PRIV_KEY_INFO *p8 = d2i_PKCS8_PRIV_KEY_INFO(NULL, &cursor, (long)der_len);
    if (p8 == NULL) return NULL;
    if (cursor == der + der_len) pkey = EVP_PKCS82PKEY(p8);
    PKCS8_PRIV_KEY_INFO_free(p8);
    return pkey;
}

/* Parses a DER SubjectPublicKeyInfo; NULL on failure or trailing bytes. */
static inline EVP_PKEY *passkeyd_public_key_from_spki(const unsigned char *der, size_t der_len) {
    const unsigned char *cursor = der;
    EVP_PKEY *pkey;
    if (der_len > LONG_MAX) return NULL;
    pkey = d2i_PUBKEY(NULL, &cursor, (long)der_len);
    if (pkey != NULL && cursor != der + der_len) {
        EVP_PKEY_free(pkey);
        pkey = NULL;
    }
    return pkey;
}

/* DER SubjectPublicKeyInfo of a key. With out == NULL returns the length; -1 on failure. */
static inline int passkeyd_public_key_to_spki(const EVP_PKEY *pkey, unsigned char *out, size_t out_cap) {
    int len = i2d_PUBKEY((EVP_PKEY *)pkey, NULL);
    if (out != NULL && len > 0) {
        unsigned char *cursor = out;
        if ((size_t)len > out_cap || i2d_PUBKEY((EVP_PKEY *)pkey, &cursor) != len) len = -1;
    }
    return len;
}

/* Configures RSASSA-PSS on a signing/verification context: MGF1 with the signature digest, salt length = digest
 * length (RSA_PSS_SALTLEN_DIGEST; on verification the salt length must match exactly). */
static inline int passkeyd_configure_rsa_pss(EVP_PKEY_CTX *pctx, const EVP_MD *md) {
    if (EVP_PKEY_CTX_set_rsa_padding(pctx, RSA_PKCS1_PSS_PADDING) <= 0) return 0;
    if (EVP_PKEY_CTX_set_rsa_pss_saltlen(pctx, RSA_PSS_SALTLEN_DIGEST) <= 0) return 0;
    if (EVP_PKEY_CTX_set_rsa_mgf1_md(pctx, md) <= 0) return 0;
    return 1;
}

/* Explicitly selects RSASSA-PKCS1-v1_5 padding. */
static inline int passkeyd_configure_rsa_pkcs1(EVP_PKEY_CTX *pctx) {
    return EVP_PKEY_CTX_set_rsa_padding(pctx, RSA_PKCS1_PADDING) > 0 ? 1 : 0;
}

#endif
