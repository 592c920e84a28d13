// libpq for the store layer. PG_DIAG_SQLSTATE is a char literal macro.
#ifndef SWITCHBOARD_CLIBPQ_SHIM_H
#define SWITCHBOARD_CLIBPQ_SHIM_H
#include <libpq-fe.h>

static inline int clibpq_PG_DIAG_SQLSTATE(void) { return PG_DIAG_SQLSTATE; }
static inline int clibpq_PG_DIAG_MESSAGE_PRIMARY(void) { return PG_DIAG_MESSAGE_PRIMARY; }
#endif
