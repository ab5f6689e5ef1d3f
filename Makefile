# bindrace — build, test, bench and PGO training. GNU make; run from the repository root.
# `make` (or `make help`) lists the targets. Every target that needs tools runs scripts/setup.sh
# first (once; stamp in build/), so `make test` and `make bench` work on a fresh Debian 12 box.
#
# Native library variants (the binding's cgo files pick one by build tag, see ARCHITECTURE.md):
#   release       build/release/libbindrace.a       -O3, ThinLTO, PGO from pgo/default.profdata,
#                                                     `ld.lld -r` into one relocatable object
#   plain         build/plain/libbindrace.a         -O2, no LTO, no PGO (the control)
#   instrumented  build/instrumented/libbindrace.a  -O2 -fprofile-instr-generate (make pgo)
# Each writes build/<variant>/manifest.json (scripts/manifest.sh).

SHELL := /bin/bash
.SHELLFLAGS := -euo pipefail -c
.DEFAULT_GOAL := help
.DELETE_ON_ERROR:
.SUFFIXES:
MAKEFLAGS += --no-builtin-rules --no-builtin-variables

ROOT := $(patsubst %/,%,$(dir $(abspath $(lastword $(MAKEFILE_LIST)))))
ifneq ($(abspath $(CURDIR)),$(ROOT))
$(error run make from the repository root: make -C $(ROOT) ...)
endif

# Go is in /usr/local/go on our machines; a non-login shell may not have it on PATH.
ifeq ($(shell command -v go 2>/dev/null),)
export PATH := $(PATH):/usr/local/go/bin
endif

# ---- tools and knobs (override on the command line: make build CLANG=clang++-20) -------------
CLANG         ?= clang++-19
LLD           ?= ld.lld-19
LLVM_AR       ?= llvm-ar-19
LLVM_PROFDATA ?= llvm-profdata-19
GO            ?= go
# x86-64-v2 = SSE4.2/SSSE3/POPCNT/CMPXCHG16B: every x86-64 CPU since ~2009 and every cloud/CI
# VM has it, and it gives the parser SSE4.2 string/byte-search instructions. v3 (AVX2) is not
# guaranteed on CI boxes and emulated CPUs, so it is not the default.
MARCH         ?= x86-64-v2
PGO_PROFILE   ?= pgo/default.profdata
# PGO_STRICT=1: a profile that no longer matches the sources (or a source it never saw) is an
# error instead of silently contributing nothing to the changed functions.
PGO_STRICT    ?= 0
LTO_JOBS      ?= $(shell nproc 2>/dev/null || echo 2)
EXTRA_CXXFLAGS ?=
GO_BUILD_FLAGS ?=
GO_TEST_FLAGS  ?= -count=1 -timeout 20m
BENCH_ARGS     ?= --a binding --b uws --profile quick

export BINDRACE_ROOT := $(ROOT)

# ---- sources -------------------------------------------------------------------------------
NATIVE_SRCS := $(sort $(wildcard native/src/*.cc))
# -DNDEBUG everywhere (also instrumented): front-end PGO matches functions by a hash of their
# control flow, so the training build and the release build must preprocess identically.
COMMON_CXXFLAGS := -std=c++20 -fno-exceptions -fno-rtti -fPIC -march=$(MARCH) -DNDEBUG \
                   -Inative/include -Wall -Wextra $(EXTRA_CXXFLAGS)

# ---- release: -O3, ThinLTO, PGO ------------------------------------------------------------
# Warnings policy for the profile: the committed profile lags the sources between retrainings.
# A function whose code changed since training just gets no profile data (clang drops its
# counters), and a new source file gets none at all; both are expected, so those two warnings
# (-Wprofile-instr-out-of-date, -Wprofile-instr-unprofiled) are off by default. Staleness is
# reported instead, precisely, as "profile_stale" in the manifest (source hash at training vs
# now) plus a loud line from make. PGO_STRICT=1 turns both into errors for a release that must
# be built from a fresh profile. A profile of another LLVM version still fails hard, as it should.
ifneq ($(wildcard $(PGO_PROFILE)),)
RELEASE_PGO       := 1
RELEASE_PGO_FLAGS := -fprofile-instr-use=$(PGO_PROFILE) \
  $(if $(filter 1,$(PGO_STRICT)),-Werror=profile-instr-out-of-date -Werror=profile-instr-unprofiled,-Wno-profile-instr-out-of-date -Wno-profile-instr-unprofiled)
RELEASE_PROFILE_DEP := $(PGO_PROFILE)
else
RELEASE_PGO       := 0
RELEASE_PGO_FLAGS :=
RELEASE_PROFILE_DEP :=
endif
RELEASE_CXXFLAGS := $(strip -O3 -flto=thin $(RELEASE_PGO_FLAGS) $(COMMON_CXXFLAGS))
# `ld.lld -r` over the ThinLTO bitcode runs LTO (cross-file inlining) and writes one native
# relocatable object, which links into the cgo binary with the default gcc linker. The PGO data
# travels inside the bitcode (branch weights, entry counts), so the link needs no profile
# argument (lld's --lto-cs-profile-file is only for context-sensitive PGO, not used here).
RELEASE_LDFLAGS := -r --lto-O3 --lto-CGO3 --plugin-opt=mcpu=$(MARCH) --thinlto-jobs=$(LTO_JOBS)

# ---- plain: -O2, no LTO, no PGO (same -march and defines, so it differs only in what's measured)
PLAIN_CXXFLAGS := $(strip -O2 $(COMMON_CXXFLAGS))

# ---- instrumented: -O2 -fprofile-instr-generate ----------------------------------------------
# The profile runtime is folded into the archive with `ld.lld -r -u __llvm_profile_runtime`: on
# Linux the instrumented objects do not reference the runtime (clang's driver normally adds that
# -u), so a plain archive linked by gcc leaves the runtime's initializer out and
# __llvm_profile_write_file() fails with "Filename not set". With it, the binding only has to
# declare `int __llvm_profile_write_file(void);` and call it at shutdown (Go never runs atexit).
INSTR_CXXFLAGS  := $(strip -O2 -fprofile-instr-generate $(COMMON_CXXFLAGS))
INSTR_LDFLAGS   := -r -u __llvm_profile_runtime -u __llvm_profile_write_file
PROFILE_RT       = $(shell $(CLANG) -print-file-name=libclang_rt.profile-x86_64.a)

# Go's build cache does not notice a changed archive named in #cgo LDFLAGS, and would keep
# linking the old one. Stamping the archive's hash into the link (-X; harmless if the binding
# declares no such variable, and readable if it does) makes every library change relink.
GO_NATIVE_ID = -ldflags "-X main.version=$(VERSION) -X github.com/bindrace/bindrace/binding.nativeBuildID=$$(sha256sum $< | cut -c1-64)"
VERSION := $(shell git describe --tags --always --dirty 2>/dev/null || echo dev)

SETUP_STAMP := build/.setup.stamp
UWS_LOCK    := $(wildcard harness/targets/uws/package-lock.json)
# Re-run setup when its inputs change, when the compiler vanished, or node_modules is missing.
SETUP_FORCE := $(if $(shell command -v $(CLANG) 2>/dev/null),,FORCE) \
  $(if $(UWS_LOCK),$(if $(wildcard harness/targets/uws/node_modules/.bindrace-lock.sha256),,FORCE))

.PHONY: help setup build build-plain build-instrumented pgo test vet bench clean FORCE
FORCE:

help: ## list the targets
	@echo "bindrace — make targets (variables: CLANG LLD LLVM_AR LLVM_PROFDATA GO MARCH PGO_PROFILE PGO_STRICT BENCH_ARGS)"
	@grep -E '^[a-zA-Z_-]+:.*## ' $(firstword $(MAKEFILE_LIST)) | sed -E 's/^([a-zA-Z_-]+):.*## (.*)/  \1\t\2/' | expand -t 22

setup: $(SETUP_STAMP) ## install what this machine lacks (scripts/setup.sh; once, stamp in build/)

$(SETUP_STAMP): scripts/setup.sh go.mod go.sum $(UWS_LOCK) $(SETUP_FORCE)
	scripts/setup.sh
	@mkdir -p $(@D) && touch $@

build: build/release/libbindrace.a bin/binding-server bin/bindrace ## release: -O3 ThinLTO+PGO native lib, bin/binding-server, bin/bindrace

build-plain: build/plain/libbindrace.a bin/binding-server-plain ## plain: -O2 native lib, bin/binding-server-plain

build-instrumented: build/instrumented/libbindrace.a bin/binding-server-instrumented ## instrumented lib + server (used by make pgo)

pgo: bin/bindrace bin/binding-server-instrumented ## retrain pgo/default.profdata (scripts/pgo-train.sh)
	LLVM_PROFDATA=$(LLVM_PROFDATA) PGO_OUT=$(PGO_PROFILE) scripts/pgo-train.sh
	@echo "pgo: now 'make build' compiles the release library with the new profile"

vet: | $(SETUP_STAMP) ## go vet (default tags, and the binding with bindrace_release)
	$(GO) vet ./...
	$(GO) vet -tags bindrace_release ./binding/...

test: setup bin/bindrace bin/binding-server bin/binding-server-plain vet ## setup, build the test binaries, go vet, go test
	$(GO) test $(GO_TEST_FLAGS) ./...

bench: setup build build-plain ## quick race: binding vs the pinned upstream uws (override with BENCH_ARGS=...)
	bin/bindrace race $(BENCH_ARGS)

clean: ## remove build/ and bin/ (keeps pgo/default.profdata and node_modules)
	rm -rf build bin

# ---- native objects, one rule set per variant -----------------------------------------------
# $(1) variant, $(2) compile flags, $(3) link/archive description (recorded in flags.txt so a
# change of either rebuilds), $(4) extra prerequisites of every object (the profile).
define VARIANT
$(1)_OBJS := $$(patsubst native/src/%.cc,build/$(1)/obj/%.o,$$(NATIVE_SRCS))
$$($(1)_OBJS): build/$(1)/obj/%.o: native/src/%.cc build/$(1)/flags.txt $(4) | $$(SETUP_STAMP)
	@mkdir -p $$(@D)
	$$(CLANG) $(2) -MMD -MP -c $$< -o $$@
-include $$($(1)_OBJS:.o=.d)
build/$(1)/flags.txt: FORCE
	@mkdir -p $$(@D)
	@printf '%s\n' "$$(CLANG) $(2)" "$(3)" | cmp -s - $$@ || printf '%s\n' "$$(CLANG) $(2)" "$(3)" >$$@
endef
$(eval $(call VARIANT,release,$(RELEASE_CXXFLAGS),$(LLD) $(RELEASE_LDFLAGS) | $(LLVM_AR) rcs,$(RELEASE_PROFILE_DEP)))
$(eval $(call VARIANT,plain,$(PLAIN_CXXFLAGS),$(LLVM_AR) rcs,))
$(eval $(call VARIANT,instrumented,$(INSTR_CXXFLAGS),$(LLD) $(INSTR_LDFLAGS) | $(LLVM_AR) rcs,))

native-sources:
	@[ -n "$(NATIVE_SRCS)" ] || { echo "make: no native/src/*.cc found" >&2; exit 1; }
.PHONY: native-sources

build/release/bindrace.o: $(release_OBJS) build/release/flags.txt | native-sources
	$(LLD) $(RELEASE_LDFLAGS) -o $@ $(release_OBJS)

build/release/libbindrace.a: build/release/bindrace.o
ifeq ($(RELEASE_PGO),0)
	@echo "##########################################################################" >&2
	@echo "## WARNING: $(PGO_PROFILE) not found: release library built WITHOUT PGO" >&2
	@echo "## (recorded in build/release/manifest.json; run 'make pgo' to train one)" >&2
	@echo "##########################################################################" >&2
endif
	rm -f $@ && $(LLVM_AR) rcs $@ $<
	scripts/manifest.sh --variant release --out build/release/manifest.json --lib $@ \
	  --compiler $(CLANG) --cxxflags "$(RELEASE_CXXFLAGS)" --link "$(LLD) $(RELEASE_LDFLAGS) | $(LLVM_AR) rcs" \
	  $(if $(filter 1,$(RELEASE_PGO)),--profile $(PGO_PROFILE),--warning "built without PGO: $(PGO_PROFILE) not found")
	@if grep -q '"profile_stale": true' build/release/manifest.json; then \
	  echo "## WARNING: $(PGO_PROFILE) was trained on other native sources; changed functions get no profile data ('make pgo' retrains)" >&2; fi

build/plain/libbindrace.a: $(plain_OBJS) | native-sources
	rm -f $@ && $(LLVM_AR) rcs $@ $(plain_OBJS)
	scripts/manifest.sh --variant plain --out build/plain/manifest.json --lib $@ \
	  --compiler $(CLANG) --cxxflags "$(PLAIN_CXXFLAGS)" --link "$(LLVM_AR) rcs"

build/instrumented/bindrace.o: $(instrumented_OBJS) build/instrumented/flags.txt | native-sources
	$(LLD) $(INSTR_LDFLAGS) -o $@ $(instrumented_OBJS) $(PROFILE_RT)

build/instrumented/libbindrace.a: build/instrumented/bindrace.o
	rm -f $@ && $(LLVM_AR) rcs $@ $<
	scripts/manifest.sh --variant instrumented --out build/instrumented/manifest.json --lib $@ \
	  --compiler $(CLANG) --cxxflags "$(INSTR_CXXFLAGS)" --link "$(LLD) $(INSTR_LDFLAGS) $(PROFILE_RT) | $(LLVM_AR) rcs"

# ---- Go binaries (go build is incremental itself; FORCE lets it decide) -------------------------
bin/binding-server: build/release/libbindrace.a FORCE | $(SETUP_STAMP)
	$(GO) build $(GO_BUILD_FLAGS) -tags bindrace_release $(GO_NATIVE_ID) -o $@ ./harness/cmd/binding-server

bin/binding-server-plain: build/plain/libbindrace.a FORCE | $(SETUP_STAMP)
	$(GO) build $(GO_BUILD_FLAGS) -tags bindrace_plain $(GO_NATIVE_ID) -o $@ ./harness/cmd/binding-server

bin/binding-server-instrumented: build/instrumented/libbindrace.a FORCE | $(SETUP_STAMP)
	$(GO) build $(GO_BUILD_FLAGS) -tags bindrace_instrumented $(GO_NATIVE_ID) -o $@ ./harness/cmd/binding-server

bin/bindrace: FORCE | $(SETUP_STAMP)
	$(GO) build $(GO_BUILD_FLAGS) -ldflags "-X main.version=$(VERSION)" -o $@ ./harness/cmd/bindrace
