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
GO_TEST_LONG_FLAGS ?= -count=1 -timeout 30m
BENCH_ARGS     ?= --a binding --b uws --profile quick

export BINDRACE_ROOT := $(ROOT)

# The untagged binding compiles native/src through binding/native_unity.cc, but Go's build cache
# keys only on files in the package directory, so an edited core would be tested stale. A hash
# of the native sources in the cgo preprocessor flags makes every change recompile (the source
# hash of scripts/source-hash.sh, the one the build manifests and the harness record).
NATIVE_SRC_HASH := $(shell scripts/source-hash.sh native/src native/include | cut -c1-16)
export CGO_CPPFLAGS := -DBINDRACE_NATIVE_SRC=$(NATIVE_SRC_HASH)

# ---- sources -------------------------------------------------------------------------------
NATIVE_SRCS := $(sort $(wildcard native/src/*.cc))
# -DNDEBUG everywhere (also instrumented): front-end PGO matches functions by a hash of their
# control flow, so the training build and the release build must preprocess identically.
# -gline-tables-only: line tables, no other debug info, and no change to the code generated;
# cachegrind's by-file view (docs/counters.md) needs them to put inlined helpers under their file.
# DWARF 4: valgrind 3.19 (Debian 12) gives up on clang 19's default DWARF 5.
COMMON_CXXFLAGS := -std=c++20 -fno-exceptions -fno-rtti -fPIC -march=$(MARCH) -DNDEBUG \
                   -gline-tables-only -gdwarf-4 -Inative/include -Wall -Wextra $(EXTRA_CXXFLAGS)

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

# The build's identity (variant, library, PGO profile and source hashes, from its manifest) is
# stamped into the binary (binding.NativeBuild, `binding-server --build-info`), so a binary says
# what it links; and since Go's build cache does not notice a changed archive named in #cgo
# LDFLAGS, the changed stamp is also what makes every library change relink.
GO_NATIVE_ID = -ldflags "-X main.version=$(VERSION) -X 'github.com/bindrace/bindrace/binding.nativeBuild=$$(scripts/manifest.sh --stamp $(<D)/manifest.json)'"
VERSION := $(shell git describe --tags --always --dirty 2>/dev/null || echo dev)

SETUP_STAMP := build/.setup.stamp
UWS_LOCK    := $(wildcard harness/targets/uws/package-lock.json)
# Re-run setup when its inputs change, when the compiler vanished, or node_modules is missing.
SETUP_FORCE := $(if $(shell command -v $(CLANG) 2>/dev/null),,FORCE) \
  $(if $(UWS_LOCK),$(if $(wildcard harness/targets/uws/node_modules/.bindrace-lock.sha256),,FORCE))

.PHONY: help setup build build-plain build-instrumented pgo baseline test test-all test-long test-uring vet lint lint-go lint-workflows bench clean FORCE
FORCE:

help: ## list the targets
	@echo "bindrace — make targets (variables: CLANG LLD LLVM_AR LLVM_PROFDATA CLANG_TIDY GO MARCH PGO_PROFILE PGO_STRICT BENCH_ARGS)"
	@grep -E '^[a-zA-Z_-]+:.*## ' $(firstword $(MAKEFILE_LIST)) | sed -E 's/^([a-zA-Z_-]+):.*## (.*)/  \1\t\2/' | expand -t 22

setup: $(SETUP_STAMP) ## install what this machine lacks (scripts/setup.sh; once, stamp in build/)

$(SETUP_STAMP): scripts/setup.sh go.mod go.sum $(UWS_LOCK) $(SETUP_FORCE)
	scripts/setup.sh
	@mkdir -p $(@D) && touch $@

build: build/release/libbindrace.a bin/binding-server bin/go-server bin/bindrace ## release: -O3 ThinLTO+PGO native lib, bin/binding-server, bin/go-server, bin/bindrace

build-plain: build/plain/libbindrace.a bin/binding-server-plain ## plain: -O2 native lib, bin/binding-server-plain

build-instrumented: build/instrumented/libbindrace.a bin/binding-server-instrumented ## instrumented lib + server (used by make pgo)

GO_PGO_PROFILE := harness/cmd/binding-server/default.pgo
pgo: bin/bindrace bin/binding-server-instrumented ## retrain pgo/default.profdata and the Go side's default.pgo, rebuild, rewrite baselines/ci.json
	LLVM_PROFDATA=$(LLVM_PROFDATA) PGO_OUT=$(PGO_PROFILE) scripts/pgo-train.sh
	$(MAKE) --no-print-directory build
	SERVER=bin/binding-server GO_PGO_OUT=$(GO_PGO_PROFILE) scripts/pgo-train.sh
	$(MAKE) --no-print-directory build
	$(MAKE) --no-print-directory baseline

# The committed baseline holds the release build's instructions per response for the ci
# profile's races; it names the PGO profile it was counted with, so a new profile needs a new
# baseline. Only the counts matter here, so the wall-clock part is cut to a minimum (its
# INCONCLUSIVE verdict, exit 3, is expected) and both sides are the candidate.
BASELINE_SESSION := build/baseline-ci
baseline: build ## recount baselines/ci.json (cachegrind instructions per response, profile ci)
	rm -rf $(BASELINE_SESSION)
	bin/bindrace race --a binding --b binding --profile ci --pairs 2 --duration 300ms --warmup 200ms \
	  --cooldown 0 --busy-sample 0 --out $(BASELINE_SESSION) >/dev/null || [ $$? = 3 ]
	bin/bindrace baseline write $(BASELINE_SESSION) --out baselines/ci.json

# ---- test tiers ------------------------------------------------------------------------------
# `make test` is the fast tier (at most 5 minutes on a 2-core VM from a warm build): lint, the
# native checks, the unit tests, the statistics simulations that take seconds and a short
# end-to-end smoke of every bindrace command. The long tier is the test files that start with
# `//go:build long`: the long end-to-end suites, the browser, PostgreSQL and network-namespace
# lab tests, the cachegrind end-to-end runs and the A/A simulations of sequential races.
# A build tag, not a t.Skip: nothing is skipped, a long test just lives in a file the fast
# build leaves out, and `go test -tags long ./...` is every test. Helpers used by both tiers
# stay in untagged files. `make test-all` is the fast tier, then the long tier's tests alone
# (test-long: -run names exactly the tests of the tagged files, so no test runs twice), then
# test-sanitize.
LONG_TAG   := long
LONG_FILES := $(shell grep -rl --include='*_test.go' '^//go:build $(LONG_TAG)$$' binding harness scripts 2>/dev/null | sort)
LONG_PKGS  := $(sort $(addprefix ./,$(patsubst %/,%,$(dir $(LONG_FILES)))))
LONG_TESTS := $(sort $(shell sed -n 's/^func \(Test[A-Za-z0-9_]*\).*/\1/p' $(LONG_FILES) | grep -vx TestMain))
SPACE      := $(subst ,, )
LONG_RUN   := ^($(subst $(SPACE),|,$(LONG_TESTS)))$$

vet: | $(SETUP_STAMP) ## go vet (both test tiers; the binding with bindrace_release, and its soak test)
	$(GO) vet ./...
	$(GO) vet -tags $(LONG_TAG) ./...
	$(GO) vet -tags bindrace_release ./binding/...
	$(GO) vet -tags soak ./binding/...

# Go's linters are tool dependencies in go.mod (go tool runs the pinned versions): staticcheck
# (honnef.co/go/tools) and deadcode (golang.org/x/tools). deadcode -test counts tests as roots;
# what it still reports must be named, with a reason, in scripts/deadcode-allow.txt.
# funclen holds Go functions to 80 lines unless their doc comment says why with //funclen:long
# (the native core's limit, 120, is clang-tidy's readability-function-size); methodcount holds
# a type to 15 methods (over its package, tests left out) unless its declaration's doc comment
# says why with //methods:many. domainflags fails on a flag named in a domain package's string
# literal (its allowlist says why each may stay).
# staticcheck and deadcode see the long tier's files too (-tags long: a superset of the fast
# tier's, no file is //go:build !long), so a helper only the long tests use is neither "unused"
# nor rots unchecked.
lint-go: | $(SETUP_STAMP) ## staticcheck, deadcode -test (allowlist: scripts/deadcode-allow.txt), funclen, methodcount, domainflags, archimports
	$(GO) tool staticcheck -tags $(LONG_TAG) ./...
	$(GO) tool staticcheck -tags bindrace_release ./binding/...
	$(GO) tool staticcheck -tags soak ./binding/...
	scripts/deadcode.sh -tags $(LONG_TAG)
	$(GO) run ./scripts/funclen harness binding scripts
	$(GO) run ./scripts/methodcount harness binding scripts
	$(GO) run ./scripts/domainflags harness
	$(GO) run ./scripts/archimports ARCHITECTURE.md

# actionlint is a tool dependency in go.mod too; it also runs shellcheck over the run: scripts
# when shellcheck is installed.
lint-workflows: | $(SETUP_STAMP) ## actionlint over .github/workflows/*.yml
	$(GO) tool actionlint $(wildcard .github/workflows/*.yml)

lint: vet lint-go lint-workflows lint-native ## go vet, staticcheck, deadcode, funclen, methodcount, domainflags, archimports, actionlint, clang-tidy: all must be clean

TEST_BINS := bin/bindrace bin/binding-server bin/binding-server-plain bin/go-server

test: setup $(TEST_BINS) lint test-native fuzz-smoke ## fast tier: setup, build, lint (vet included), the native checks, go test (at most 5 min warm)
	$(GO) test $(GO_TEST_FLAGS) ./...

test-long: setup $(TEST_BINS) ## the long tier alone: the tests of the files tagged long (go test -tags long)
	$(GO) test $(GO_TEST_LONG_FLAGS) -tags $(LONG_TAG) -run '$(LONG_RUN)' $(LONG_PKGS)

# The tiers one after the other (not side by side under -j: the long tests measure wall-clock).
test-all: test ## both tiers: make test, then test-long, then test-sanitize, then test-uring
	$(MAKE) --no-print-directory test-long
	$(MAKE) --no-print-directory test-sanitize
	$(MAKE) --no-print-directory test-uring

# The io_uring loop (docs/io_uring.md): the binding's tests with every loop on io_uring, the
# uring targets, then the same tests under ASan+UBSan. Where the kernel refuses io_uring the
# binding's tests fail at their first Listen, saying why (the uring tests of the normal run
# skip there, naming the refusal).
test-uring: setup ## the binding's tests (plain and ASan+UBSan) and the uring targets with BINDRACE_LOOP=uring
	BINDRACE_LOOP=uring $(GO) test $(GO_TEST_FLAGS) ./binding/
	$(GO) test $(GO_TEST_FLAGS) -run 'Uring|BindingTargets|BindingCommandLine' ./binding/ ./harness/targets/
	BINDRACE_LOOP=uring $(MAKE) --no-print-directory test-sanitize

# The race decides PASS (exit 0), FAIL (1) or, when its budget ran out first, INCONCLUSIVE (3):
# an undecided race is an answer, not a failed build, so bench ends in its verdict line then and
# exits 0; FAIL and errors (2) still fail make.
bench: setup build build-plain ## quick race: binding vs the pinned upstream uws (override with BENCH_ARGS=...)
	@code=0; bin/bindrace race $(BENCH_ARGS) || code=$$?; \
	if [ $$code -eq 3 ]; then echo "bench: INCONCLUSIVE is the race's answer (exit 3 from bindrace race; make bench exits 0)"; code=0; fi; \
	exit $$code

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
# bin/binding-server builds with Go PGO from harness/cmd/binding-server/default.pgo (go build's
# -pgo=auto); the plain control and the instrumented training build use none (-pgo=off).
bin/binding-server: build/release/libbindrace.a FORCE | $(SETUP_STAMP)
	$(GO) build $(GO_BUILD_FLAGS) -tags bindrace_release $(GO_NATIVE_ID) -o $@ ./harness/cmd/binding-server

bin/binding-server-plain: build/plain/libbindrace.a FORCE | $(SETUP_STAMP)
	$(GO) build $(GO_BUILD_FLAGS) -pgo=off -tags bindrace_plain $(GO_NATIVE_ID) -o $@ ./harness/cmd/binding-server

bin/binding-server-instrumented: build/instrumented/libbindrace.a FORCE | $(SETUP_STAMP)
	$(GO) build $(GO_BUILD_FLAGS) -pgo=off -tags bindrace_instrumented $(GO_NATIVE_ID) -o $@ ./harness/cmd/binding-server

# The Go targets' server (fasthttp, nethttp): harness/cmd/go-server.
bin/go-server: FORCE | $(SETUP_STAMP)
	$(GO) build $(GO_BUILD_FLAGS) -o $@ ./harness/cmd/go-server

bin/bindrace: FORCE | $(SETUP_STAMP)
	$(GO) build $(GO_BUILD_FLAGS) -ldflags "-X main.version=$(VERSION)" -o $@ ./harness/cmd/bindrace

# ---- parser micro-benchmark (native/bench) ----------------------------------------------------
# The head parser alone, built with the release flags (clang-19 -O3, ThinLTO, the PGO profile),
# on a realistic browser request and a pipelined read of 10: ns/request and MB/s.
BENCH_PARSER_SRCS := native/src/http_parser.cc

.PHONY: bench-parser
build/bench/parser_bench: native/bench/parser_bench.cc $(BENCH_PARSER_SRCS) native/src/http_parser.h \
                          native/src/http_chars.h native/include/bindrace.h $(RELEASE_PROFILE_DEP) | $(SETUP_STAMP)
	@mkdir -p $(@D)
	$(CLANG) $(RELEASE_CXXFLAGS) -fuse-ld=lld $< $(BENCH_PARSER_SRCS) -o $@

bench-parser: build/bench/parser_bench ## parse a realistic request (and 10 pipelined) millions of times: ns/request, MB/s
	build/bench/parser_bench

# ---- clang-tidy over the core ---------------------------------------------------------------
# The checks, and why each is on or off, are in .clang-tidy; any warning fails. Every source is
# checked with the flags the library variants compile it with (their optimization aside), two at
# a time (xargs exits non-zero when any run failed).
CLANG_TIDY ?= clang-tidy-19

.PHONY: lint-native
# One stamp per source file, as an object file is: a file is checked again when it, a header, the
# checks or the plain variant's flags change (a warm `make test` then spends nothing here: the
# whole pass is about 50 s of both CPUs). A file with a warning is not stamped: the next run
# checks it again.
TIDY_STAMPS := $(patsubst native/src/%.cc,build/tidy/%.ok,$(NATIVE_SRCS))
NATIVE_HDRS := $(wildcard native/src/*.h native/include/*.h)
build/tidy/%.ok: native/src/%.cc $(NATIVE_HDRS) .clang-tidy build/plain/flags.txt | $(SETUP_STAMP)
	@mkdir -p $(@D)
	@$(CLANG_TIDY) --quiet $< -- $(PLAIN_CXXFLAGS) 2>&1 | { grep -v '^[0-9]* warnings* generated\.$$' || true; }
	@touch $@

lint-native: $(TIDY_STAMPS) | native-sources ## clang-tidy (.clang-tidy) over native/src/*.cc; fails on any warning
	@echo "lint-native: $(words $(NATIVE_SRCS)) files clean"

# =============================================================================================
# ---- native security tests: fuzzing, RFC 9112 conformance, sanitizers (native/fuzz, native/tests)
# Separate from `test` on purpose (they need clang's sanitizer runtimes and take a while); the
# lead wires them into CI. Nothing here touches the library variants above.
#
#   make fuzz                    each libFuzzer target for FUZZ_RUNS executions (10M), capped at
#                                FUZZ_SECONDS (1800) each, then its exec/s and total
#   make fuzz-go                 each Go fuzz target (found by scripts/fuzz-go.sh) GO_FUZZ_SECONDS (60)
#   make fuzz-smoke              each target 7 s (about 30 s for the four); fails on any finding
#   make test-native             RFC 9112 conformance table (ASan+UBSan), "conformance: N passed, 0 failed"
#   make test-sanitize           the binding's Go tests on a native core built with ASan+UBSan
#   make test-sanitize-selftest  shows test-sanitize catching a bug injected into a throwaway copy
#
# Findings land in build/fuzz/artifacts/<target>/ (replay: build/fuzz/<target>_fuzz <file>).
# =============================================================================================
FUZZ_TARGETS   := http_parser chunked router ws_frame
FUZZ_RUNS      ?= 10000000
FUZZ_SECONDS   ?= 1800
# Go fuzz targets: every func Fuzz* of the binding's and the harness's packages, found by
# scripts/fuzz-go.sh (their seeds also run in plain `go test`, so in `make test`).
GO_FUZZ_PKGS    := ./binding/ ./harness/...
GO_FUZZ_SECONDS ?= 60
FUZZ_SMOKE_SECONDS ?= 7
FUZZ_JOBS_ARGS ?=
FUZZ_CXXFLAGS  := -std=c++20 -g -O2 -fno-omit-frame-pointer -fsanitize=fuzzer,address,undefined \
                  -fno-sanitize-recover=undefined -Inative/include -Wall -Wextra
FUZZ_SRC_http_parser := native/src/http_parser.cc
FUZZ_SRC_chunked     := native/src/http_chunked.cc
FUZZ_SRC_router      := native/src/router.cc
FUZZ_SRC_ws_frame    :=
FUZZ_MAXLEN_http_parser := 4096
FUZZ_MAXLEN_chunked     := 8192
FUZZ_MAXLEN_router      := 2048
FUZZ_MAXLEN_ws_frame    := 8192
FUZZ_BINS := $(addprefix build/fuzz/,$(addsuffix _fuzz,$(FUZZ_TARGETS)))
# libFuzzer flags common to both runs; the working corpus lives in build/ so the committed seeds
# in native/fuzz/corpus/<target>/ stay small and hand-written.
FUZZ_RUN = mkdir -p build/fuzz/corpus/$(1) build/fuzz/artifacts/$(1) && \
  UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1 ASAN_OPTIONS=detect_leaks=1 \
  build/fuzz/$(1)_fuzz build/fuzz/corpus/$(1) native/fuzz/corpus/$(1) \
    -dict=native/fuzz/$(1).dict -max_len=$(FUZZ_MAXLEN_$(1)) -max_total_time=$(2) -runs=$(3) -timeout=10 \
    -rss_limit_mb=2048 -print_final_stats=1 -artifact_prefix=build/fuzz/artifacts/$(1)/ $(FUZZ_JOBS_ARGS)

.PHONY: fuzz-build fuzz fuzz-go fuzz-smoke test-native test-sanitize test-sanitize-selftest

fuzz-build: $(FUZZ_BINS) ## build the libFuzzer targets into build/fuzz/

# Every native file a fuzz target compiles or includes (the headers are listed by hand: these
# rules have no -MMD dependency files).
FUZZ_DEPS := native/fuzz/fuzz_common.h native/include/bindrace.h native/src/http_parser.h \
             native/src/http_chars.h native/src/http_parser.cc native/src/http_chunked.cc \
             native/src/router.h native/src/router.cc native/src/ws_reader.h native/src/ws_frame.h \
             native/src/utf8.h

build/fuzz/%_fuzz: native/fuzz/%_fuzz.cc $(FUZZ_DEPS) | $(SETUP_STAMP)
	@mkdir -p $(@D)
	$(CLANG) $(FUZZ_CXXFLAGS) $< $(FUZZ_SRC_$*) -o $@

fuzz: $(FUZZ_BINS) ## run each fuzz target FUZZ_RUNS times (10M; at most FUZZ_SECONDS, 1800) and print exec/s
	@for t in $(FUZZ_TARGETS); do \
	  echo "==> fuzz $$t for $(FUZZ_RUNS) executions (at most $(FUZZ_SECONDS) s)"; \
	  if ! ( $(call FUZZ_RUN,$${t},$(FUZZ_SECONDS),$(FUZZ_RUNS)) ) >build/fuzz/$$t.log 2>&1; then \
	    tail -40 build/fuzz/$$t.log; echo "fuzz: $$t FOUND A BUG (input in build/fuzz/artifacts/$$t/)" >&2; exit 1; fi; \
	  awk -v t=$$t -v want=$(FUZZ_RUNS) '/stat::number_of_executed_units/{n=$$2} /stat::average_exec_per_sec/{r=$$2} \
	    END{printf "fuzz: %-12s %10s exec/s  %12s executions%s\n", t, r, n, \
	        n+0 < want+0 ? "  (stopped by the FUZZ_SECONDS cap before FUZZ_RUNS)" : ""}' build/fuzz/$$t.log; \
	done
	@$(MAKE) --no-print-directory fuzz-go

fuzz-go: | $(SETUP_STAMP) ## run every Go fuzz target (func Fuzz* in binding/ and harness/) GO_FUZZ_SECONDS (60) each; exec/s and total
	GO=$(GO) scripts/fuzz-go.sh $(GO_FUZZ_SECONDS) $(GO_FUZZ_PKGS)

fuzz-smoke: $(FUZZ_BINS) ## run each fuzz target FUZZ_SMOKE_SECONDS (7); fail on any finding
	@for t in $(FUZZ_TARGETS); do \
	  if ! ( $(call FUZZ_RUN,$${t},$(FUZZ_SMOKE_SECONDS),-1) ) >build/fuzz/$$t-smoke.log 2>&1; then \
	    tail -40 build/fuzz/$$t-smoke.log; echo "fuzz-smoke: $$t FOUND A BUG (input in build/fuzz/artifacts/$$t/)" >&2; exit 1; fi; \
	  awk -v t=$$t '/stat::number_of_executed_units/{n=$$2} /stat::average_exec_per_sec/{r=$$2} \
	    END{printf "fuzz-smoke: %-12s ok  %8s exec/s  %10s executions\n", t, r, n}' build/fuzz/$$t-smoke.log; \
	done

# ---- RFC 9112 conformance table ------------------------------------------------------------
NATIVE_TEST_CXXFLAGS := -std=c++20 -g -O1 -fno-omit-frame-pointer -fsanitize=address,undefined \
                        -fno-sanitize-recover=undefined -Inative/include -Wall -Wextra

CONFORMANCE_SRCS := native/src/http_parser.cc native/src/http_chunked.cc

build/tests/http_conformance_test: native/tests/http_conformance_test.cc native/tests/http_conformance_rows.h \
                                   $(CONFORMANCE_SRCS) native/src/http_parser.h native/src/http_chars.h \
                                   native/include/bindrace.h | $(SETUP_STAMP)
	@mkdir -p $(@D)
	$(CLANG) $(NATIVE_TEST_CXXFLAGS) $< $(CONFORMANCE_SRCS) -o $@

test-native: build/tests/http_conformance_test ## RFC 9112 conformance table under ASan+UBSan
	UBSAN_OPTIONS=print_stacktrace=1 build/tests/http_conformance_test

# ---- the binding's Go tests on an ASan+UBSan native core ------------------------------------
# go test -asan compiles the untagged build, i.e. native/src/*.cc through binding/native_unity.cc,
# with -fsanitize=address added to the cgo flags; CC/CXX must be clang (the sanitizer runtimes
# must match the compiler, and the link must pull clang's UBSan runtime in). Leak detection stays
# on (Go >= 1.25 runs LSan at exit in -asan builds); see native/tests/README.md.
SAN_CC        ?= clang-19
SAN_CXX       ?= clang++-19
SAN_CXXFLAGS  ?= -O1 -g -fno-omit-frame-pointer -fsanitize=address,undefined -fno-sanitize-recover=undefined
SAN_LDFLAGS   ?= -fsanitize=address,undefined
SAN_TEST_ARGS ?=
SAN_ENV = CC=$(SAN_CC) CXX=$(SAN_CXX) CGO_ENABLED=1 CGO_CXXFLAGS="$(SAN_CXXFLAGS)" CGO_LDFLAGS="$(SAN_LDFLAGS)" \
  ASAN_OPTIONS=$${ASAN_OPTIONS:-halt_on_error=1} UBSAN_OPTIONS=$${UBSAN_OPTIONS:-print_stacktrace=1} \
  ASAN_SYMBOLIZER_PATH=$$(command -v llvm-symbolizer-19 || command -v llvm-symbolizer || true)

# The test binary is built with -c and then run: `go test` without -c links it stripped (-s -w),
# and sanitizer reports would have no function names or file:line.
test-sanitize: | $(SETUP_STAMP) ## go test -asan ./binding with the native core under ASan+UBSan
	@mkdir -p build/sanitize
	$(SAN_ENV) $(GO) test -asan -c -o build/sanitize/binding.test ./binding
	cd binding && $(SAN_ENV) ../build/sanitize/binding.test -test.count=1 -test.timeout=20m $(SAN_TEST_ARGS)

test-sanitize-selftest: | $(SETUP_STAMP) ## injects a heap overflow into a throwaway copy; test-sanitize must catch it
	SAN_CC=$(SAN_CC) SAN_CXX=$(SAN_CXX) SAN_CXXFLAGS="$(SAN_CXXFLAGS)" SAN_LDFLAGS="$(SAN_LDFLAGS)" \
	  GO=$(GO) native/tests/sanitize_selftest.sh

# ---- soak (not in CI) -------------------------------------------------------------------------
# bin/binding-server under a steady mixed load (ping/params/json on 12 churning keep-alive
# connections + 2 video streams) for SOAK_DURATION, its RSS and open fds sampled every second;
# fails on growth: median RSS of the last window > first window x 1.10 + 4 MiB, or median fds
# > first + 4 (windows: min(60 s, rest/3) after a warm-up of min(60 s, duration/5)), on any
# wrong response, or if the server dies. See binding/soak_test.go.
SOAK_DURATION ?= 10m

.PHONY: soak
soak: bin/binding-server ## soak bin/binding-server for SOAK_DURATION (10m) under mixed load; fails on RSS/fd growth
	$(GO) test -tags soak -count=1 -timeout 0 -run '^TestSoak$$' -v ./binding -args \
	  -soak=$(SOAK_DURATION) -soak.server=$(ROOT)/bin/binding-server
