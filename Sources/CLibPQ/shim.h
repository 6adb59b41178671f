#ifndef PASSKEYD_CLIBPQ_SHIM_H
#define PASSKEYD_CLIBPQ_SHIM_H
#include <libpq-fe.h>

/* PG_DIAG_* are character-literal macros, which Swift does not import: expose the ones LibPQ reads. */
static inline int clibpq_diag_sqlstate(void) { return PG_DIAG_SQLSTATE; }
static inline int clibpq_diag_message_primary(void) { return PG_DIAG_MESSAGE_PRIMARY; }
static inline int clibpq_diag_constraint_name(void) { return PG_DIAG_CONSTRAINT_NAME; }

/* A notice receiver that drops NOTICE/WARNING messages instead of libpq's default print to stderr. */
static inline void clibpq_ignore_notice(void *arg, const PGresult *res) {
    (void)arg;
    (void)res;
}

static inline void clibpq_silence_notices(PGconn *conn) {
    PQsetNoticeReceiver(conn, clibpq_ignore_notice, NULL);
}
#endif
