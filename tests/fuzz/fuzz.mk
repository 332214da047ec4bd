# tests/fuzz/fuzz.mk -- build the libFuzzer targets (make -f tests/fuzz/fuzz.mk).
#
# Design note: the fuzzers need clang's libFuzzer and coverage
# instrumentation in every function they reach, so the library is compiled
# again here with clang from its sources (src/*/*.c, without the server's
# main), not taken from the gcc-built libqwd.a.  The objects go into an
# archive so that a target links only the modules it reaches.  Every object
# carries ASan and UBSan with -fno-sanitize-recover=all: any undefined
# behaviour stops the run and libFuzzer saves the input.
# The targets' own files are held to the house warnings with -Werror; the
# library's files get the same warnings without -Werror, so a warning only
# clang emits never blocks fuzzing (the gcc build is where they are fixed).
#   build/fuzz/fuzz_bsp        bsp_load_mem and the walkers over its result
#   build/fuzz/fuzz_entities   ent_parse / ent_value / ent_free
#   build/fuzz/mkseeds         writes the synthetic seed inputs (run.sh)
#   build/fuzz/fuzz_oob        connectionless packets (sv_connectionless)
#   build/fuzz/fuzz_game       a connected client's packets and the reply
#   build/fuzz/fuzz_client     the client library's qwc_receive
#   build/fuzz/fuzz_stringcmd  fuzz_game.c again (-DFUZZ_STRINGCMDS): text
#                              lines as in-game string commands
#   build/fuzz/fuzz_console    server.cfg / console / rcon command lines
#   build/fuzz/fuzz_mapsrc     qwmap's .map reader and compiler; its
#                              objects are tools/qwmap's, instrumented too
#   build/fuzz/fuzz_actions    the action-file reader (src/common/actions.c)
#   build/fuzz/fuzz_metrics    the metrics endpoint's own parts: label
#                              escaping, a page line, the request dispatch
#   build/fuzz/fuzz_agones     the Agones sidecar's answers (src/agones/parse.c)
#   build/fuzz/fuzz_match      the match layer's settings (match_set) and
#                              the players' match commands' words
#   build/fuzz/mkpackets       packet seeds from a real in-process session
# The packet targets and mkpackets share tests/fuzz/netfix.c (a server on a
# real map, clients in lockstep with it).  mkpackets links the same
# instrumented library without libFuzzer's main: the coverage callbacks
# then come from the ASan runtime and do nothing.
# Everything is built with FUZZING_BUILD_MODE_UNSAFE_FOR_PRODUCTION (the
# libFuzzer convention): name resolution is then numeric only, so a line
# such as "setmaster somename" fails at once instead of waiting on DNS.

FUZZ_BUILD ?= build/fuzz
FUZZ_CC    ?= clang

SAN     := -fsanitize=fuzzer,address,undefined -fno-sanitize-recover=all
WARN    := -Wall -Wextra -Wshadow -Wstrict-prototypes -Wmissing-prototypes \
           -Wvla -Wformat=2 -Wno-format-nonliteral
BASE    := -std=c11 -D_GNU_SOURCE -DFUZZING_BUILD_MODE_UNSAFE_FOR_PRODUCTION -g -O1 -fno-omit-frame-pointer -Iinclude \
           $(shell pkg-config --cflags libbsd 2>/dev/null)
LIBS    := $(shell pkg-config --libs libbsd libmd libpcap nettle libmicrohttpd libcurl jansson liburing 2>/dev/null) -lm

LIB_SRC := $(filter-out src/server/main.c,$(sort $(wildcard src/*/*.c)))
LIB_OBJ := $(LIB_SRC:%.c=$(FUZZ_BUILD)/%.o)
LIB     := $(FUZZ_BUILD)/libqwd-fuzz.a
TARGETS := $(FUZZ_BUILD)/fuzz_bsp $(FUZZ_BUILD)/fuzz_entities \
           $(FUZZ_BUILD)/fuzz_actions $(FUZZ_BUILD)/fuzz_metrics \
           $(FUZZ_BUILD)/fuzz_agones \
           $(FUZZ_BUILD)/fuzz_match
NET_TARGETS := $(FUZZ_BUILD)/fuzz_oob $(FUZZ_BUILD)/fuzz_game \
               $(FUZZ_BUILD)/fuzz_client $(FUZZ_BUILD)/fuzz_console
TOOL_TARGETS := $(FUZZ_BUILD)/fuzz_mapsrc
# the tools' own files a tool target reaches (their main.c left out)
QWMAP_OBJ := $(patsubst %.c,$(FUZZ_BUILD)/%.o,$(filter-out tools/qwmap/main.c,$(wildcard tools/qwmap/*.c)))
NETFIX  := $(FUZZ_BUILD)/tests/fuzz/netfix.o

.PHONY: all
.SECONDARY:
all: $(TARGETS) $(NET_TARGETS) $(FUZZ_BUILD)/fuzz_stringcmd $(TOOL_TARGETS) \
	$(FUZZ_BUILD)/mkseeds $(FUZZ_BUILD)/mkpackets

$(FUZZ_BUILD)/src/%.o: src/%.c
	@mkdir -p $(dir $@)
	$(FUZZ_CC) $(SAN) $(BASE) $(WARN) -MMD -MP -c $< -o $@

$(FUZZ_BUILD)/tests/fuzz/%.o: tests/fuzz/%.c
	@mkdir -p $(dir $@)
	$(FUZZ_CC) $(SAN) $(BASE) $(WARN) -Werror -MMD -MP -c $< -o $@

$(FUZZ_BUILD)/tools/%.o: tools/%.c
	@mkdir -p $(dir $@)
	$(FUZZ_CC) $(SAN) $(BASE) $(WARN) -MMD -MP -c $< -o $@

$(FUZZ_BUILD)/tests/fuzz/fuzz_stringcmd.o: tests/fuzz/fuzz_game.c
	@mkdir -p $(dir $@)
	$(FUZZ_CC) $(SAN) $(BASE) $(WARN) -Werror -DFUZZ_STRINGCMDS -MMD -MP -c $< -o $@

$(LIB): $(LIB_OBJ)
	@rm -f $@
	$(AR) rcs $@ $^

$(FUZZ_BUILD)/fuzz_%: $(FUZZ_BUILD)/tests/fuzz/fuzz_%.o $(LIB)
	$(FUZZ_CC) $(SAN) -o $@ $< $(LIB) $(LIBS)

# the packet targets: their own object, the shared fixture, the library
$(NET_TARGETS): $(FUZZ_BUILD)/fuzz_%: $(FUZZ_BUILD)/tests/fuzz/fuzz_%.o $(NETFIX) $(LIB)
	$(FUZZ_CC) $(SAN) -o $@ $(filter %.o,$^) $(LIB) $(LIBS)

$(FUZZ_BUILD)/fuzz_stringcmd: $(FUZZ_BUILD)/tests/fuzz/fuzz_stringcmd.o $(NETFIX) $(LIB)
	$(FUZZ_CC) $(SAN) -o $@ $(filter %.o,$^) $(LIB) $(LIBS)

$(FUZZ_BUILD)/fuzz_mapsrc: $(FUZZ_BUILD)/tests/fuzz/fuzz_mapsrc.o $(QWMAP_OBJ) $(LIB)
	$(FUZZ_CC) $(SAN) -o $@ $(filter %.o,$^) $(LIB) $(LIBS)

$(FUZZ_BUILD)/mkpackets: $(FUZZ_BUILD)/tests/fuzz/mkpackets.o $(NETFIX) $(LIB)
	$(FUZZ_CC) -fsanitize=address,undefined -o $@ $(filter %.o,$^) $(LIB) $(LIBS)

# the seed writer is an ordinary program: no libFuzzer main, no library
$(FUZZ_BUILD)/mkseeds: tests/fuzz/mkseeds.c
	@mkdir -p $(dir $@)
	$(FUZZ_CC) $(BASE) $(WARN) -Werror -o $@ $<

-include $(LIB_OBJ:.o=.d) $(TARGETS:$(FUZZ_BUILD)/%=$(FUZZ_BUILD)/tests/fuzz/%.d) \
	$(NET_TARGETS:$(FUZZ_BUILD)/%=$(FUZZ_BUILD)/tests/fuzz/%.d) \
	$(NETFIX:.o=.d) $(FUZZ_BUILD)/tests/fuzz/mkpackets.d \
	$(QWMAP_OBJ:.o=.d) \
	$(TOOL_TARGETS:$(FUZZ_BUILD)/%=$(FUZZ_BUILD)/tests/fuzz/%.d) \
	$(FUZZ_BUILD)/tests/fuzz/fuzz_stringcmd.d
