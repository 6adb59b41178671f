#ifndef PASSKEYD_COPENSSL_X509_SHIM_H
#define PASSKEYD_COPENSSL_X509_SHIM_H
/* X.509 parsing, chain verification and (for tests) issuance. */
#include <openssl/x509.h>
#include <openssl/x509v3.h>
#include <openssl/x509_vfy.h>
#include <openssl/pem.h>
#include <openssl/asn1.h>
#include <openssl/bio.h>
#include <openssl/err.h>
#include <openssl/crypto.h>

/*
 * Static inline shims for what OpenSSL 3 provides only as macros (typed stack functions, OPENSSL_free, ...).
 * Every name here starts with `passkeyd_x509_` so that it cannot collide with the shims in shim.h.
 * Ownership is unchanged from the wrapped macro: read the OpenSSL documentation of the macro.
 */

/* MARK: STACK_OF(X509) */

static inline STACK_OF(X509) *passkeyd_x509_sk_X509_new_null(void) { return sk_X509_new_null(); }

/* Pushes `x` without taking a new reference: the stack owns whatever reference the caller hands over. */
static inline int passkeyd_x509_sk_X509_push(STACK_OF(X509) *sk, X509 *x) { return sk_X509_push(sk, x); }

static inline int passkeyd_x509_sk_X509_num(const STACK_OF(X509) *sk) { return sk_X509_num(sk); }

/* Borrowed pointer: valid while the stack holds its reference. */
static inline X509 *passkeyd_x509_sk_X509_value(const STACK_OF(X509) *sk, int i) { return sk_X509_value(sk, i); }

/* Frees the stack and drops one reference on each element (X509_free). Accepts NULL. */
static inline void passkeyd_x509_sk_X509_pop_free(STACK_OF(X509) *sk) { sk_X509_pop_free(sk, X509_free); }

/* MARK: STACK_OF(GENERAL_NAME) (GENERAL_NAMES) */

static inline GENERAL_NAMES *passkeyd_x509_sk_GENERAL_NAME_new_null(void) { return sk_GENERAL_NAME_new_null(); }

/* Transfers ownership of `gn` to the stack on success (returns > 0). */
static inline int passkeyd_x509_sk_GENERAL_NAME_push(GENERAL_NAMES *sk, GENERAL_NAME *gn) {
    return sk_GENERAL_NAME_push(sk, gn);
}

static inline int passkeyd_x509_sk_GENERAL_NAME_num(const GENERAL_NAMES *sk) { return sk_GENERAL_NAME_num(sk); }

static inline GENERAL_NAME *passkeyd_x509_sk_GENERAL_NAME_value(const GENERAL_NAMES *sk, int i) {
    return sk_GENERAL_NAME_value(sk, i);
}

/* MARK: STACK_OF(ASN1_OBJECT) (EXTENDED_KEY_USAGE) */

static inline STACK_OF(ASN1_OBJECT) *passkeyd_x509_sk_ASN1_OBJECT_new_null(void) { return sk_ASN1_OBJECT_new_null(); }

/* Transfers ownership of `obj` to the stack on success (returns > 0). */
static inline int passkeyd_x509_sk_ASN1_OBJECT_push(STACK_OF(ASN1_OBJECT) *sk, ASN1_OBJECT *obj) {
    return sk_ASN1_OBJECT_push(sk, obj);
}

static inline int passkeyd_x509_sk_ASN1_OBJECT_num(const STACK_OF(ASN1_OBJECT) *sk) { return sk_ASN1_OBJECT_num(sk); }

static inline ASN1_OBJECT *passkeyd_x509_sk_ASN1_OBJECT_value(const STACK_OF(ASN1_OBJECT) *sk, int i) {
    return sk_ASN1_OBJECT_value(sk, i);
}

/* Frees the stack and every object in it. Accepts NULL. */
static inline void passkeyd_x509_sk_ASN1_OBJECT_pop_free(STACK_OF(ASN1_OBJECT) *sk) {
    sk_ASN1_OBJECT_pop_free(sk, ASN1_OBJECT_free);
}

/* MARK: BASIC_CONSTRAINTS field access (keeps struct layout out of Swift) */

static inline int passkeyd_x509_basic_constraints_ca(const BASIC_CONSTRAINTS *bc) { return bc->ca != 0; }

/* Returns 1 and stores the value when pathLenConstraint is present, non-negative and fits in a long; 0 when
 * absent; -1 when present but negative or out of range. */
static inline int passkeyd_x509_basic_constraints_pathlen(const BASIC_CONSTRAINTS *bc, long *out) {
    if (bc->pathlen == NULL) return 0;
    int64_t v = 0;
    if (ASN1_INTEGER_get_int64(&v, bc->pathlen) != 1 || v < 0 || v > 0x7fffffffL) return -1;
    *out = (long)v;
    return 1;
}

/* MARK: memory and errors */

static inline void passkeyd_x509_OPENSSL_free(void *p) { OPENSSL_free(p); }

/* 1 when `e` (an ERR_peek_* code) means "no further PEM block in the input". */
static inline int passkeyd_x509_err_is_pem_no_start_line(unsigned long e) {
    return ERR_GET_LIB(e) == ERR_LIB_PEM && ERR_GET_REASON(e) == PEM_R_NO_START_LINE;
}

#endif
