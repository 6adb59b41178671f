#ifndef PASSKEYD_COPENSSL_SHIM_H
#define PASSKEYD_COPENSSL_SHIM_H
/* Keys, digests, signatures, randomness. Macros and variadics that Swift cannot call get static inline shims here. */
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
#endif
