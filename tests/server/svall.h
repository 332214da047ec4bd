/*
 * tests/server/svall.h -- every header of src/server/, for the tests.
 *
 * Design note
 *   The tests drive the server's layers directly (a feature's command,
 *   the core's reply, the base's cvars), so they see all of them; the
 *   module's own files each include only their layer's headers
 *   (scripts/check-layers.sh).
 */
#ifndef QWD_TESTS_SVALL_H
#define QWD_TESTS_SVALL_H

#include "../../src/server/features.h"

#include "../../src/server/autopool.h"
#include "../../src/server/bans.h"
#include "../../src/server/compat.h"
#include "../../src/server/demo.h"
#include "../../src/server/downloads.h"
#include "../../src/server/logfile.h"
#include "../../src/server/master.h"
#include "../../src/server/match_votes.h"
#include "../../src/server/overload.h"
#include "../../src/server/profcmd.h"
#include "../../src/server/rcon.h"
#include "../../src/server/record.h"

#endif
