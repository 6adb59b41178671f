#ifndef PASSKEYD_CLIBCBOR_SHIM_H
#define PASSKEYD_CLIBCBOR_SHIM_H
#include <cbor.h>
#endif
