# qwd -- build, test, run.
#
# Design note: one plain Makefile.  Every src/<module>/*.c goes into
# libqwd.a (the server's main and each tool's main link against it);
# tools/lib/*.c, the pieces the tools share and the server does not use,
# go into libqwtools.a, linked by every tool; every other tools/<name>/
# folder is one program.  Every tests/<module>/ folder becomes one cmocka
# program, build/tests/test_<module>; a module that is a tool (tests/qwbots
# for tools/qwbots) links that tool's files but its main.c, so a test
# reaches what the tool's header declares and nothing else.
# BUILD selects the output folder, so the sanitizer build (make check) lives
# beside the normal one and never mixes objects with it.
# The environment's choices are honoured: CC (make's built-in default, cc,
# becomes gcc, the compiler the warnings below are tuned for; an explicit
# CC=clang from the environment or the command line stays), CPPFLAGS,
# CFLAGS (default -O2 -g; the project's own flags are kept apart in
# QWD_CFLAGS, so `make CFLAGS=-O0` still finds the headers), LDFLAGS and
# LDLIBS.  -Itests is given to the tests' objects only.
# Missing build dependencies are installed by scripts/deps.sh (Debian).

BUILD   ?= build
ifeq ($(origin CC),default)
CC      := gcc
endif
PKGS    := libbsd libmd cmocka libpcap nettle libmicrohttpd libcurl jansson liburing
# pkg-config may not exist before deps.sh has run: guard every call
PKG_CFLAGS = $(shell pkg-config --cflags $(PKGS) 2>/dev/null)
PKG_LIBS   = $(shell pkg-config --libs libbsd libmd libpcap nettle libmicrohttpd libcurl jansson liburing 2>/dev/null)
CMOCKA_LIBS = $(shell pkg-config --libs cmocka 2>/dev/null)

WARN    := -Wall -Wextra -Werror -Wshadow -Wstrict-prototypes \
           -Wmissing-prototypes -Wvla -Wformat=2 -Wno-format-nonliteral
CFLAGS  ?= -O2 -g
QWD_CFLAGS = -std=c11 -D_GNU_SOURCE $(WARN) -Iinclude $(PKG_CFLAGS)
QWD_LIBS   = $(PKG_LIBS) -lm
# the flags of one object: the project's, the environment's, the build's
# (EXTRA_*: the sanitizers of make check) and the folder's (DIR_CFLAGS)
COMPILE = $(CC) $(QWD_CFLAGS) $(CPPFLAGS) $(CFLAGS) $(EXTRA_CFLAGS) $(DIR_CFLAGS)
LINK    = $(CC) $(LDFLAGS) $(EXTRA_LDFLAGS)

SAN_FLAGS := -fsanitize=address,undefined -fno-sanitize-recover=all \
             -fno-omit-frame-pointer
TSAN_FLAGS := -fsanitize=thread -fno-omit-frame-pointer

LIB_SRC  := $(sort $(wildcard src/*/*.c))
LIB_SRC  := $(filter-out src/server/main.c,$(LIB_SRC))
LIB_OBJ  := $(LIB_SRC:%.c=$(BUILD)/%.o)
LIB      := $(BUILD)/libqwd.a

# tools/lib is the tools' library, not a tool
TOOLS     := $(filter-out lib,$(notdir $(wildcard tools/*)))
TOOL_BINS := $(foreach t,$(TOOLS),$(if $(wildcard tools/$(t)/*.c),$(BUILD)/$(t)))
TLIB_SRC  := $(sort $(wildcard tools/lib/*.c))
TLIB      := $(BUILD)/libqwtools.a
# a tool's objects, and those a test program links (all but main.c)
tool_objs      = $(patsubst %.c,$(BUILD)/%.o,$(wildcard tools/$(1)/*.c))
tool_test_objs = $(patsubst %.c,$(BUILD)/%.o,$(filter-out tools/$(1)/main.c,$(wildcard tools/$(1)/*.c)))

TEST_MODULES := $(filter-out fuzz,$(notdir $(patsubst %/,%,$(dir $(wildcard tests/*/*.c)))))
TEST_MODULES := $(sort $(TEST_MODULES))
TEST_BINS    := $(TEST_MODULES:%=$(BUILD)/tests/test_%)

DEPS_STAMP := build/.deps-ok

.PHONY: all deps tools tests test check check-build tsan tsan-build run-tests test-programs list-tests layers interop bench fuzz fuzz-build run clean maps install FORCE
.SECONDARY:

all: $(LIB) $(BUILD)/qwd $(TOOL_BINS) maps

# --- the project's maps: maps/*.map compiled by tools/qwmap into build/maps/
MAP_SRC := $(wildcard maps/*.map)
MAP_BSP := $(MAP_SRC:maps/%.map=build/maps/%.bsp)
maps: $(MAP_BSP)
build/maps/%.bsp: maps/%.map build/qwmap
	@mkdir -p $(dir $@)
	build/qwmap $< $@
ifneq ($(BUILD),build)
build/qwmap: FORCE
	@$(MAKE) --no-print-directory BUILD=build EXTRA_CFLAGS= EXTRA_LDFLAGS= build/qwmap
endif
FORCE:

# --- dependencies -------------------------------------------------------
deps: $(DEPS_STAMP)
$(DEPS_STAMP): scripts/deps.sh
	@sh scripts/deps.sh build
	@mkdir -p $(dir $@) && touch $@

# --- library, tools, tests ---------------------------------------------
$(BUILD)/%.o: %.c | $(DEPS_STAMP)
	@mkdir -p $(dir $@)
	$(COMPILE) $(EXTRA_DEFS) -MMD -MP -c $< -o $@

# where each kind of object finds its headers beyond include/
$(BUILD)/tools/%.o: DIR_CFLAGS := -Itools/lib
$(BUILD)/tests/%.o: DIR_CFLAGS := -Itests -Itools/lib

# the bundled maps are found next to the build, wherever qwd is started
# from; the tests also find their sources (maps/*.map)
MAPDIR := $(CURDIR)/build/maps
$(BUILD)/src/server/level.o: EXTRA_DEFS := -DQWD_MAPDIR='"$(MAPDIR)"'
# the Agones tests start the sidecar stand-in from the source tree
$(BUILD)/tests/agones/%.o: EXTRA_DEFS := -DQWD_SRCDIR='"$(CURDIR)"'
$(BUILD)/tests/harness.o: EXTRA_DEFS := -DQWD_MAPDIR='"$(MAPDIR)"' \
	-DQWD_MAPSRC='"$(CURDIR)/maps"'

$(BUILD)/qwd: $(BUILD)/src/server/main.o $(LIB)
	$(LINK) -o $@ $< $(LIB) $(QWD_LIBS) $(LDLIBS)

$(LIB): $(LIB_OBJ)
	@rm -f $@
	$(AR) rcs $@ $^

$(TLIB): $(TLIB_SRC:%.c=$(BUILD)/%.o)
	@rm -f $@
	$(AR) rcs $@ $^

# one program per tools/<name>/ folder, from all the .c files in it
define tool_rule
$(BUILD)/$(1): $(call tool_objs,$(1)) $(TLIB) $(LIB)
	$$(LINK) -o $$@ $$(filter %.o,$$^) $(TLIB) $(LIB) $$(QWD_LIBS) $$(LDLIBS)
endef
$(foreach t,$(TOOLS),$(eval $(call tool_rule,$(t))))

# one test program per tests/<module>/ folder, with the shared harness
# main; a module named after a tool with a main.c links that tool's other
# files, and TEST_TOOLS_<module> names more (the game's scenario maps are
# .map text compiled in memory by the map compiler); TEST_SRC_<module>
# names another test folder's files it links (the server's "stats" and
# "counters" commands run on the profiler's fake PMU; its light-style test
# writes its map with the game's scenario helpers)
TEST_TOOLS_game := qwmap
TEST_TOOLS_server := qwmap
TEST_SRC_server := tests/prof/fake_pmu.c tests/game/scenario.c
# the match layer's tests drive a game as tests/game does, and read the
# statistics' JSON back with jansson (TEST_LIBS_<module>: libraries a
# test program links beyond the project's)
TEST_TOOLS_match := qwmap
TEST_SRC_match := tests/game/scenario.c
TEST_LIBS_match = $(shell pkg-config --libs jansson 2>/dev/null)
test_tools = $(if $(wildcard tools/$(1)/main.c),$(1)) $(TEST_TOOLS_$(1))
define test_rule
$(BUILD)/tests/test_$(1): $(patsubst %.c,$(BUILD)/%.o,$(wildcard tests/$(1)/*.c) $(TEST_SRC_$(1))) \
		$(foreach t,$(call test_tools,$(1)),$(call tool_test_objs,$(t))) \
		$(BUILD)/tests/harness.o $(TLIB) $(LIB)
	$$(LINK) -o $$@ $$(filter %.o,$$^) $(TLIB) $(LIB) $$(QWD_LIBS) $$(LDLIBS) $$(CMOCKA_LIBS) $$(TEST_LIBS_$(1))
endef
$(foreach m,$(TEST_MODULES),$(eval $(call test_rule,$(m))))

tools: $(TOOL_BINS)
tests: $(TEST_BINS)

# Run every test program (what they need: the server, the tools, the
# bundled maps, which the tests start as children); scripts/suite.py runs
# them on every core, a cmocka group a job, and prints the totals line.
# list-tests names the programs, for the runner.
test-programs: $(TEST_BINS) $(BUILD)/qwd $(TOOL_BINS) maps
run-tests: test-programs
	@python3 scripts/suite.py programs $(BUILD) $(TEST_BINS)
list-tests:
	@echo $(TEST_BINS)

# make check: the whole suite under AddressSanitizer and UBSan, the
# server's self-checks on (QWD_SELF_CHECK: its caches against fresh work);
# check-build only builds its programs (not the maps, which the plain
# build makes: make test runs it beside the plain build and its tests).
SAN_MAKE = $(MAKE) --no-print-directory BUILD=build/san \
	EXTRA_CFLAGS="$(SAN_FLAGS) -DQWD_SELF_CHECK" EXTRA_LDFLAGS="$(SAN_FLAGS)"
check-build: | $(DEPS_STAMP)
	@$(SAN_MAKE) $(TEST_BINS:$(BUILD)/%=build/san/%) build/san/qwd \
		$(TOOL_BINS:$(BUILD)/%=build/san/%)
check: check-build
	@$(SAN_MAKE) run-tests

# make tsan: the worker threads under ThreadSanitizer, into build/tsan
# (with the server's self-checks, as make check): the pool's tests and
# parallel framebench runs (scripts/tsan.sh); any report fails.
TSAN_BINS := build/tsan/tests/test_pool build/tsan/framebench
tsan-build: | $(DEPS_STAMP)
	@$(MAKE) --no-print-directory BUILD=build/tsan \
		EXTRA_CFLAGS="$(TSAN_FLAGS) -DQWD_SELF_CHECK" EXTRA_LDFLAGS="$(TSAN_FLAGS)" \
		$(TSAN_BINS)
tsan: tsan-build maps
	@sh scripts/tsan.sh build/tsan

# make test: everything, on every core (scripts/suite.py): the layering,
# the programs as built for use and again under the sanitizers, the
# worker threads under ThreadSanitizer, the Python tools' tests, the
# interoperability tests against real peers; each job's time, the ten
# slowest, and the totals.  The runner builds (make -jN) itself.
test: | $(DEPS_STAMP)
	@MAKE="$(MAKE)" BUILD="$(BUILD)" python3 scripts/suite.py test

# every #include against the layering (also the first stage of make test)
layers:
	@sh scripts/check-layers.sh

# only the tests against real peers (ezQuake, MVDSV, qstat)
interop: all
	@for t in tests/interop/*.sh; do sh $$t $(BUILD) || exit 1; done

# --- benchmarks and fuzzing ---------------------------------------------
bench: $(BUILD)/worldbench $(BUILD)/gamebench
	@sh scripts/bench.sh $(BUILD)

FUZZ_SECONDS ?= 600
fuzz-build: | $(DEPS_STAMP)
	@sh scripts/deps.sh fuzz
	@$(MAKE) --no-print-directory -f tests/fuzz/fuzz.mk
fuzz: fuzz-build
	@sh tests/fuzz/run.sh $(FUZZ_SECONDS)

# --- running ------------------------------------------------------------
run: all
	@sh scripts/run.sh $(BUILD) $(ARGS)

# make install [PREFIX=/usr/local] [DESTDIR=...]: the server, its tools
# and the bundled maps (qwd finds them in ../share/qwd/maps beside itself)
PREFIX ?= /usr/local
INSTALL_TOOLS := qwbots qwmap bspinfo qwcap
install: all
	install -d $(DESTDIR)$(PREFIX)/bin $(DESTDIR)$(PREFIX)/share/qwd/maps \
		$(DESTDIR)$(PREFIX)/share/doc/qwd
	install -m 755 $(BUILD)/qwd $(DESTDIR)$(PREFIX)/bin/qwd
	for t in $(INSTALL_TOOLS); do install -m 755 $(BUILD)/$$t $(DESTDIR)$(PREFIX)/bin/$$t; done
	install -m 644 build/maps/*.bsp $(DESTDIR)$(PREFIX)/share/qwd/maps/
	install -m 644 README.md LICENSE docs/*.md $(DESTDIR)$(PREFIX)/share/doc/qwd/

clean:
	rm -rf build

# the dependency files of this BUILD only: the sanitizer builds under
# build/ are written while the plain tests run make (make test)
-include $(shell find $(BUILD)/src $(BUILD)/tools $(BUILD)/tests -name '*.d' 2>/dev/null)
