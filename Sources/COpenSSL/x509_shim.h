#ifndef PASSKEYD_COPENSSL_X509_SHIM_H
#define PASSKEYD_COPENSSL_X509_SHIM_H
/* X.509 parsing, chain verification and (for tests) issuance. */
#include <openssl/x509.h>
#include <openssl/x509v3.h>
#include <openssl/x509_vfy.h>
#include <openssl/pem.h>
#include <openssl/asn1.h>
#include <openssl/bio.h>
#endif
