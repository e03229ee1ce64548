# The whole setup: `make run` and `make test` each install what is missing, configure and build.
JOBS ?= 2
BUILD ?= build
TEST_BUILD ?= build-test
TSAN_BUILD ?= build-tsan
FUZZ_BUILD ?= build-fuzz
FUZZ_TARGETS := units chain suite cli result_json exec peers
# make test fuzzes each target this long; make fuzz longer (7 targets x 100 s = 12 minutes).
FUZZ_SECONDS ?= 30
# The tests whose code runs threads (the pipelined copy, io_uring with its kernel workers,
# forks, the throttle shared by threads, several jobs at once, ranks): run again under ThreadSanitizer.
THREADED_TESTS ?= Durable|Pipelined|QueueDepths|Forks|Throttle|FaultMatrix|Interrupt|Jobs|Team|Library
# Matched by a name and run by one thread: Export.TheLargestRunOfManyJobs... writes and reads back
# the largest result file, which took 860 s of its 900 s under ThreadSanitizer here (ASan runs it).
TSAN_SKIPPED ?= ^Export[.]

.PHONY: all deps build run test fuzz fuzz-build fuzz-run clean
all: build

deps:
	@./scripts/deps.sh

build: deps
	@cmake -S . -B $(BUILD) -DCMAKE_BUILD_TYPE=Release -DIOLAB_WERROR=ON >/dev/null
	@cmake --build $(BUILD) -j$(JOBS)

run: build
	./$(BUILD)/iolab run

# Tests run under AddressSanitizer and UndefinedBehaviorSanitizer, warnings as errors.
test: deps
	@./scripts/check-layers.sh
	@./scripts/check-format.sh
	@cmake -S . -B $(TEST_BUILD) -DCMAKE_BUILD_TYPE=Debug -DIOLAB_WERROR=ON \
	  -DIOLAB_SANITIZE=address,undefined >/dev/null
	@cmake --build $(TEST_BUILD) -j$(JOBS)
	cd $(TEST_BUILD) && ASAN_OPTIONS=detect_leaks=1 UBSAN_OPTIONS=print_stacktrace=1 \
	  ctest --output-on-failure -j$(JOBS)
	@cmake -S . -B $(TSAN_BUILD) -DCMAKE_BUILD_TYPE=Debug -DIOLAB_WERROR=ON -DIOLAB_SANITIZE=thread >/dev/null
	@cmake --build $(TSAN_BUILD) -j$(JOBS) --target iolab_tests iolab
	cd $(TSAN_BUILD) && TSAN_OPTIONS=halt_on_error=1 ctest --output-on-failure -j$(JOBS) -R '$(THREADED_TESTS)' -E '$(TSAN_SKIPPED)'
	@$(MAKE) --no-print-directory fuzz-run
	IOLAB_BIN=$(TEST_BUILD)/iolab ./bench/peers --smoke --out $(TEST_BUILD)/performance-smoke.md

# libFuzzer targets, built with clang (ASan + UBSan), seeded from fuzz/corpus/.
fuzz-build: deps
	@CC=clang-14 CXX=clang++-14 cmake -S . -B $(FUZZ_BUILD) -DCMAKE_BUILD_TYPE=Debug -DIOLAB_TESTS=OFF \
	  -DIOLAB_FUZZ=ON -DIOLAB_WERROR=ON -DIOLAB_SANITIZE=address,undefined,fuzzer-no-link >/dev/null
	@cmake --build $(FUZZ_BUILD) -j$(JOBS) --target $(addprefix fuzz_,$(FUZZ_TARGETS))

fuzz-run: fuzz-build
	@for t in $(FUZZ_TARGETS); do \
	  mkdir -p $(FUZZ_BUILD)/corpus/$$t $(FUZZ_BUILD)/artifacts; \
	  ./$(FUZZ_BUILD)/fuzz_$$t -max_total_time=$(FUZZ_SECONDS) -print_final_stats=1 \
	    -artifact_prefix=$(FUZZ_BUILD)/artifacts/$$t- $(FUZZ_BUILD)/corpus/$$t fuzz/corpus/$$t \
	    > $(FUZZ_BUILD)/fuzz_$$t.log 2>&1 || { tail -40 $(FUZZ_BUILD)/fuzz_$$t.log; echo "fuzz_$$t found a crash"; exit 1; }; \
	  echo "fuzz_$$t: $$(grep -h number_of_executed_units $(FUZZ_BUILD)/fuzz_$$t.log | awk '{print $$2}') runs in $(FUZZ_SECONDS) s, no crash"; \
	done

fuzz:
	@$(MAKE) --no-print-directory fuzz-run FUZZ_SECONDS=100

clean:
	rm -rf $(BUILD) $(TEST_BUILD) $(TSAN_BUILD) $(FUZZ_BUILD)
