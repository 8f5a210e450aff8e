# regdesk's commands. `make` alone lists them. CI runs .ci/run, which runs `make verify test test/anyday`.
.DEFAULT_GOAL := help
SHELL := /bin/bash
.SHELLFLAGS := -eu -o pipefail -c

TEMPL_VERSION := $(shell go list -m -f '{{.Version}}' github.com/a-h/templ)
TEMPL := go run github.com/a-h/templ/cmd/templ@$(TEMPL_VERSION)
BIN := bin/regdesk
# Mailpit, the mail server of the demo and the mail tests, pinned like templ and built into bin/.
MAILPIT_VERSION := v1.33.1
MAILPIT := bin/mailpit
# How often make bench runs every Classify shape, one round after another so that a slow spell
# of the machine does not land on one shape: a run moves by up to ±40% here, so the table gives
# the median of the rounds.
CLASSIFY_COUNT := 7

help: ## Show this list
	@awk -F ':.*## ' '/^[a-zA-Z0-9_\/-]+:.*## / {printf "  %-14s %s\n", $$1, $$2}' $(MAKEFILE_LIST)

build: ## Build bin/regdesk
	go build -o $(BIN) ./cmd/regdesk

$(MAILPIT):
	@echo "make: compiling Mailpit $(MAILPIT_VERSION) into bin/ (the demo's and the tests' mail server), once; on a fresh machine this takes a few minutes"
	GOBIN=$(CURDIR)/bin go install github.com/axllent/mailpit@$(MAILPIT_VERSION)

mailpit: $(MAILPIT) ## Install Mailpit $(MAILPIT_VERSION) into bin/ (make run and make test do it when missing)

run: build $(MAILPIT) ## The dashboard with demo data and a fake Suotar (private PostgreSQL unless DATABASE_URL is set)
	$(BIN) demo

test: build $(MAILPIT) ## Every test against a real PostgreSQL (private unless TEST_DATABASE_URL is set) and headless Chromium
	@url="$${TEST_DATABASE_URL:-}"; \
	if [ -z "$$url" ]; then url=$$($(BIN) devdb up -db postgres); fi; \
	echo "make test: PostgreSQL at $$url"; \
	TEST_DATABASE_URL="$$url" go test -count=1 -timeout 30m ./...

# Instants more than a year from the default (2026-11-30), one in summer and one in winter time, both
# just after midnight in Helsinki so the Helsinki and UTC dates differ.
ANYDAY_NOWS := 2028-06-14T21:45:00Z 2031-01-15T22:30:00Z

test/anyday: build $(MAILPIT) ## The suites that use the tests' clock again, with TEST_NOW a year away in summer and in winter time
	@url="$${TEST_DATABASE_URL:-}"; \
	if [ -z "$$url" ]; then url=$$($(BIN) devdb up -db postgres); fi; \
	for now in $(ANYDAY_NOWS); do \
	  echo "make test/anyday: TEST_NOW=$$now"; \
	  TEST_NOW=$$now TEST_DATABASE_URL="$$url" go test -count=1 -timeout 30m ./store/... ./web/... ./cmd/...; \
	done

test/short: ## The tests that need neither PostgreSQL nor Chromium
	go test -short -count=1 ./...

test/race: build $(MAILPIT) ## make test with the race detector
	@url="$${TEST_DATABASE_URL:-}"; \
	if [ -z "$$url" ]; then url=$$($(BIN) devdb up -db postgres); fi; \
	TEST_DATABASE_URL="$$url" go test -race -count=1 -timeout 40m ./...

test/browser: build $(MAILPIT) ## Only the headless-Chromium tests
	@url="$${TEST_DATABASE_URL:-}"; \
	if [ -z "$$url" ]; then url=$$($(BIN) devdb up -db postgres); fi; \
	TEST_DATABASE_URL="$$url" go test -count=1 -run Browser ./web/...

bench: build ## The performance table: every page at 1M rows (BENCH_ROWS=10000000 for 10M) beside its raw SQL floor, a 64-client crowd, peak RSS; and Classify per row shape
	@mkdir -p .benchlogs; url="$${TEST_DATABASE_URL:-}"; \
	if [ -z "$$url" ]; then url=$$($(BIN) devdb up -db postgres); fi; \
	go test -c -o .benchlogs/schedule.test ./schedule/; : > .benchlogs/classify.txt; \
	for i in $$(seq $(CLASSIFY_COUNT)); do \
	  .benchlogs/schedule.test -test.run '^$$' -test.bench 'Classify' -test.benchmem | tee -a .benchlogs/classify.txt; done; \
	awk -f schedule/testdata/classify-median.awk .benchlogs/classify.txt > .benchlogs/classify.md; \
	out=$(CURDIR)/.benchlogs/bench-$${BENCH_ROWS:-1000000}.md; \
	BENCH_TABLE=1 BENCH_OUT=$$out BENCH_PLANS=$(CURDIR)/.benchlogs/plans-$${BENCH_ROWS:-1000000}.md TEST_DATABASE_URL="$$url" go test -run '^TestBenchTable$$' -count=1 -timeout 150m ./cmd/regdesk/; \
	cat .benchlogs/classify.md >> $$out; cat $$out

bench/seed: build ## Only write and keep the benchmark ledger (BENCH_ROWS rows), for a later make bench
	@url="$${TEST_DATABASE_URL:-}"; \
	if [ -z "$$url" ]; then url=$$($(BIN) devdb up -db postgres); fi; \
	BENCH_TABLE=1 BENCH_SEED_ONLY=1 TEST_DATABASE_URL="$$url" go test -v -run '^TestBenchTable$$' -count=1 -timeout 150m ./cmd/regdesk/ | grep -E 'bench:|storetest:|^(ok|FAIL|---)'

bench/store: build ## The store's own benchmarks (queue queries, page reads, seeding) on the kept ledger
	@url="$${TEST_DATABASE_URL:-}"; \
	if [ -z "$$url" ]; then url=$$($(BIN) devdb up -db postgres); fi; \
	TEST_DATABASE_URL="$$url" go test -run '^$$' -bench . -benchmem -count=1 -timeout 60m ./store/...

screenshots: build ## Redraw docs/screenshots (the queue and a registration in Finnish, laptop and phone) in headless Chromium
	@url="$${TEST_DATABASE_URL:-}"; \
	if [ -z "$$url" ]; then url=$$($(BIN) devdb up -db postgres); fi; \
	REGDESK_SCREENSHOTS=1 TEST_DATABASE_URL="$$url" go test -count=1 -run '^TestScreenshots$$' ./web/

generate: ## Regenerate views/*_templ.go
	$(TEMPL) generate -path views

verify: ## gofmt, vet, templ generate+fmt with no diff, go mod tidy with no diff, htmx checksum
	@test -z "$$(gofmt -l $$(git ls-files '*.go'))" || { echo "gofmt would change:"; gofmt -l $$(git ls-files '*.go'); exit 1; }
	go vet ./...
	$(TEMPL) fmt -fail views
	$(TEMPL) generate -path views
	@git diff --exit-code -- views || { echo "views/*_templ.go is not what templ generates: run make generate and commit"; exit 1; }
	go mod tidy -diff
	cd static/vendor && sha256sum -c SHA256SUMS

db/up: build ## Start the private PostgreSQL under .pgdata and print its URL
	$(BIN) devdb up

db/down: build ## Stop the private PostgreSQL
	$(BIN) devdb down

db/reset: build ## Stop the private PostgreSQL and delete its data (demo data is re-seeded by make run)
	$(BIN) devdb down
	rm -rf .pgdata

db/psql: build ## psql into the private demo database
	psql "$$($(BIN) devdb up)"

seed/1m: build ## Seed one million rows into a fresh database and time it
	@admin=$$($(BIN) devdb up -db postgres); \
	db=$$($(BIN) devdb up -db regdesk_1m); \
	psql -q "$$admin" -c 'DROP DATABASE IF EXISTS regdesk_1m WITH (FORCE)' -c 'CREATE DATABASE regdesk_1m'; \
	time $(BIN) seed -database-url "$$db" -rows 1000000

vendor/htmx: ## Re-vendor htmx 2.0.11 from npm (manual; commit the result)
	tmp=$$(mktemp -d); cd $$tmp && npm pack htmx.org@2.0.11 >/dev/null && tar xzf htmx.org-2.0.11.tgz; \
	cp $$tmp/package/dist/htmx.min.js $(CURDIR)/static/vendor/htmx.min.js; \
	cp $$tmp/package/LICENSE $(CURDIR)/static/vendor/htmx.LICENSE; \
	cd $(CURDIR)/static/vendor && sha256sum htmx.min.js > SHA256SUMS; rm -rf $$tmp

.PHONY: help build mailpit run test test/anyday test/short test/race test/browser bench bench/seed bench/store screenshots generate verify db/up db/down db/reset db/psql seed/1m vendor/htmx
