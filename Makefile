# qwd -- build, test, run.
#
# Design note: one plain Makefile.  Every src/<module>/*.c goes into
# libqwd.a (the server's main and each tool's main link against it); every
# tests/<module>/ folder becomes one cmocka program, build/tests/test_<module>.
# BUILD selects the output folder, so the sanitizer build (make check) lives
# beside the normal one and never mixes objects with it.
# Missing build dependencies are installed by scripts/deps.sh (Debian).

BUILD   ?= build
CC      ?= gcc
PKGS    := libbsd libmd cmocka libpcap nettle
# pkg-config may not exist before deps.sh has run: guard every call
PKG_CFLAGS = $(shell pkg-config --cflags $(PKGS) 2>/dev/null)
PKG_LIBS   = $(shell pkg-config --libs libbsd libmd libpcap nettle 2>/dev/null)
CMOCKA_LIBS = $(shell pkg-config --libs cmocka 2>/dev/null)

WARN    := -Wall -Wextra -Werror -Wshadow -Wstrict-prototypes \
           -Wmissing-prototypes -Wvla -Wformat=2 -Wno-format-nonliteral
CFLAGS  ?= -O2 -g
CFLAGS  += -std=c11 -D_GNU_SOURCE $(WARN) -Iinclude -Itests $(PKG_CFLAGS) $(EXTRA_CFLAGS)
LDFLAGS += $(EXTRA_LDFLAGS)
LDLIBS  += $(PKG_LIBS) -lm

SAN_FLAGS := -fsanitize=address,undefined -fno-sanitize-recover=all \
             -fno-omit-frame-pointer

LIB_SRC  := $(sort $(wildcard src/*/*.c))
LIB_SRC  := $(filter-out src/server/main.c,$(LIB_SRC))
LIB_OBJ  := $(LIB_SRC:%.c=$(BUILD)/%.o)
LIB      := $(BUILD)/libqwd.a

TOOLS     := $(notdir $(wildcard tools/*))
TOOL_BINS := $(foreach t,$(TOOLS),$(if $(wildcard tools/$(t)/*.c),$(BUILD)/$(t)))

TEST_MODULES := $(filter-out fuzz,$(notdir $(patsubst %/,%,$(dir $(wildcard tests/*/*.c)))))
TEST_MODULES := $(sort $(TEST_MODULES))
TEST_BINS    := $(TEST_MODULES:%=$(BUILD)/tests/test_%)

DEPS_STAMP := build/.deps-ok

.PHONY: all deps tools tests test check run-tests interop bench fuzz fuzz-build run clean maps install FORCE
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
	$(CC) $(CFLAGS) $(EXTRA_DEFS) -MMD -MP -c $< -o $@

# the bundled maps are found next to the build, wherever qwd is started
# from; the tests also find their sources (maps/*.map)
MAPDIR := $(CURDIR)/build/maps
$(BUILD)/src/server/level.o: EXTRA_DEFS := -DQWD_MAPDIR='"$(MAPDIR)"'
$(BUILD)/tests/harness.o: EXTRA_DEFS := -DQWD_MAPDIR='"$(MAPDIR)"' \
	-DQWD_MAPSRC='"$(CURDIR)/maps"'

$(BUILD)/qwd: $(BUILD)/src/server/main.o $(LIB)
	$(CC) $(LDFLAGS) -o $@ $< $(LIB) $(LDLIBS)

$(LIB): $(LIB_OBJ)
	@rm -f $@
	$(AR) rcs $@ $^

# one program per tools/<name>/ folder, from all the .c files in it
define tool_rule
$(BUILD)/$(1): $(patsubst %.c,$(BUILD)/%.o,$(wildcard tools/$(1)/*.c)) $(LIB)
	$$(CC) $$(LDFLAGS) -o $$@ $$(filter %.o,$$^) $(LIB) $$(LDLIBS)
endef
$(foreach t,$(TOOLS),$(eval $(call tool_rule,$(t))))

# one test program per tests/<module>/ folder, with the shared harness main
define test_rule
$(BUILD)/tests/test_$(1): $(patsubst %.c,$(BUILD)/%.o,$(wildcard tests/$(1)/*.c)) \
		$(BUILD)/tests/harness.o $(LIB)
	$$(CC) $$(LDFLAGS) -o $$@ $$(filter %.o,$$^) $(LIB) $$(LDLIBS) $$(CMOCKA_LIBS)
endef
$(foreach m,$(TEST_MODULES),$(eval $(call test_rule,$(m))))

tools: $(TOOL_BINS)
tests: $(TEST_BINS)

# Run every test program; scripts/run-tests.sh prints the totals line.
# The tests start qwd and the tools as children, on the bundled maps.
run-tests: $(TEST_BINS) $(BUILD)/qwd $(TOOL_BINS) maps
	@sh scripts/run-tests.sh $(BUILD) $(TEST_BINS)

# make check: the whole suite under AddressSanitizer and UBSan.
check: | $(DEPS_STAMP)
	@$(MAKE) --no-print-directory BUILD=build/san \
		EXTRA_CFLAGS="$(SAN_FLAGS)" EXTRA_LDFLAGS="$(SAN_FLAGS)" run-tests

# make test: the suite as built for use, again under the sanitizers, then
# the interoperability tests against real peers (scripts/test-all.sh).
test: | $(DEPS_STAMP)
	@$(MAKE) --no-print-directory all
	@MAKE="$(MAKE)" sh scripts/test-all.sh

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

-include $(shell find build -name '*.d' 2>/dev/null)
