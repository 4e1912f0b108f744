# MustDo Relay. `make demo` runs the local demo; `make test` runs every check CI runs.
# Both install missing Debian and Python packages first (scripts/install-deps.sh).

SHELL := /bin/bash
export PATH := /opt/swift/usr/bin:$(PATH)
SWIFT ?= swift
FUZZ_SECONDS ?= 60
DEMO_PORT ?= 8080

.PHONY: deps build release lint format test unit fuzz deploy-check demo package package-test bench bench-http \
	bench-store bench-cloudkit bench-oauth bench-mcp bench-peers bench-registration bench-flood bench-soak bench-tests acceptance faults capacity clean

deps:
	@scripts/install-deps.sh

# The import check makes the module graph of docs/architecture.md a rule: a target may import only
# what Package.swift lists for it (SwiftPM otherwise lets transitive dependencies through).
build: deps
	$(SWIFT) build -Xswiftc -warnings-as-errors --explicit-target-dependency-import-check error

release: deps
	$(SWIFT) build -c release -Xswiftc -warnings-as-errors

# Formatting, and docs/architecture.md's hop table against the code (every file and function it names).
lint:
	$(SWIFT) format lint --strict --recursive --parallel Package.swift Sources Tests
	scripts/check-architecture-table

format:
	$(SWIFT) format --in-place --recursive --parallel Package.swift Sources Tests

# A hung test fails the run with a message long before CI's 90-minute limit.
TEST_TIMEOUT ?= 1800
# Swift Testing starts every test of the run at once unless told otherwise; on two cores the ~800
# tests then share two threads, each test's clock includes everyone else's work (all of them
# "took" 150 s), and a test with a time bound fails for no fault of its own. Eight at a time keeps
# each test's time its own and makes the whole run faster (90 s instead of 190 s under load).
TEST_WIDTH ?= 8
unit: build
	@SWT_EXPERIMENTAL_MAXIMUM_PARALLELIZATION_WIDTH=$(TEST_WIDTH) timeout --kill-after=30 $(TEST_TIMEOUT) $(SWIFT) test; status=$$?; \
	if [ $$status -eq 124 ] || [ $$status -eq 137 ]; then echo "make unit: swift test ran past $(TEST_TIMEOUT) s (a test hangs)" >&2; fi; \
	exit $$status

# Everything CI checks: warnings as errors, formatting, the test suite, the deployment kit with
# the real tools, then the parser fuzzers (HTTP and JSON, FUZZ_SECONDS shared between them).
test: build lint unit deploy-check fuzz

deploy-check: build
	@scripts/check-deploy.sh

fuzz: deps
	@scripts/fuzz.sh $(FUZZ_SECONDS)

demo: release
	.build/release/mustdo-relay-demo --port $(DEMO_PORT)

# The Debian package, .build/mustdo-relay_<version>_amd64.deb (packaging/README.md): the programs
# with the Swift runtime linked in, the systemd unit, the settings, the docs; lintian must find no error.
package: deps
	EXTRA_APT_PACKAGES="lintian" scripts/install-deps.sh
	packaging/build-deb.sh

# The package on a bare Debian root made by debootstrap (as root): install, run, connect, upgrade,
# remove, purge. About 15 minutes on a fresh machine (two static builds, debootstrap); less with the caches.
package-test: deps
	EXTRA_APT_PACKAGES="lintian debootstrap" scripts/install-deps.sh
	timeout --kill-after=30 3600 packaging/test/run

# Benchmarks print their numbers and ratios; bench/README.md says what each one measures.
bench: bench-tests bench-http bench-store bench-cloudkit bench-oauth bench-mcp bench-peers bench-registration bench-flood

# The bench tooling's own tests (bench/tests): the capacity report's arithmetic and docs/capacity.md
# equal to what it writes from the newest record, the flame graph drawer, the async frame lister.
bench-tests: deps
	PYTHONDONTWRITEBYTECODE=1 python3 -m unittest discover -s bench/tests -v

# The long runs, not part of `make test`: the package on a bare Debian root, then the 15-minute
# soak and the 2,000-call burst (SOAK_MINUTES=2 make acceptance for a smoke run, SOAK_MINUTES=60
# for the long memory run).
acceptance: package-test bench-soak faults

# The fault-injection suite (Tests/AcceptanceTests/FaultSuiteTests.swift, docs/operations.md "What
# holds across instances, and under faults"): two instances on moto behind a fault proxy, the
# emulator in both rotation modes, nine faults under load; about 8 minutes. Its report goes to
# bench/records/<date>-faults.txt.
FAULTS_RECORD ?= bench/records/$(shell date -u +%Y-%m-%d)-faults.txt
faults: build
	$(SWIFT) build --build-tests
	RELAY_FAULT_SUITE=1 RELAY_FAULT_RECORD=$(CURDIR)/$(FAULTS_RECORD) RELAY_FAULT_COMMIT=$$(git rev-parse --short HEAD) \
		timeout --kill-after=30 1500 $(SWIFT) test --skip-build --filter FaultSuiteTests

bench-http: deps
	EXTRA_APT_PACKAGES="nginx wrk" scripts/install-deps.sh
	bench/http

bench-store: deps
	bench/store

bench-cloudkit: deps
	bench/cloudkit

bench-oauth: deps
	bench/oauth

bench-mcp: deps
	EXTRA_APT_PACKAGES="nginx wrk" scripts/install-deps.sh
	bench/mcp

bench-registration: deps
	bench/registration

# Cheap traffic against the production defaults (issue 38): idle keep-alive fill and reconnecting
# slow head, each from 80 x 256 and 1,000 x 20 addresses, with 8 quadratic-shape pings in flight;
# prints the probe table. Four runs of at most a minute each.
bench-flood: deps
	bench/flood

bench-peers: deps
	EXTRA_APT_PACKAGES="wrk" scripts/install-deps.sh
	bench/peers/run

# The soak's own minutes plus 30 for the build, the burst's 2,000 OAuth flows and the reports.
SOAK_MINUTES ?= 15
bench-soak: deps
	SOAK_MINUTES=$(SOAK_MINUTES) timeout --kill-after=30 $$(awk "BEGIN { print int(($(SOAK_MINUTES) + 30) * 60) }") bench/soak

# docs/capacity.md from today's measurements: bench/capacity counts what a connection, a tool call and
# a refresh cost on DynamoDB + KMS (moto) and writes bench/records/capacity-<date>.json; the report
# turns it and bench/capacity-assumptions.json (prices, quotas, usage) into docs/capacity.md.
capacity: deps
	bench/capacity
	bench/capacity-report

clean:
	rm -rf .build .build-fuzz .build-fuzz.log
