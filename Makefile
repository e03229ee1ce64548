# The whole setup: `make run` and `make test` each install what is missing, configure and build.
JOBS ?= 2
BUILD ?= build
TEST_BUILD ?= build-test
TSAN_BUILD ?= build-tsan
# The tests whose code runs threads (the pipelined copy, io_uring with its kernel workers,
# forks, the throttle shared by threads): run again under ThreadSanitizer.
THREADED_TESTS ?= Pipelined|QueueDepths|Forks|Throttle|FaultMatrix|Interrupt

.PHONY: all deps build run test clean
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
	@cmake -S . -B $(TEST_BUILD) -DCMAKE_BUILD_TYPE=Debug -DIOLAB_WERROR=ON \
	  -DIOLAB_SANITIZE=address,undefined >/dev/null
	@cmake --build $(TEST_BUILD) -j$(JOBS)
	cd $(TEST_BUILD) && ASAN_OPTIONS=detect_leaks=1 UBSAN_OPTIONS=print_stacktrace=1 \
	  ctest --output-on-failure -j$(JOBS)
	@cmake -S . -B $(TSAN_BUILD) -DCMAKE_BUILD_TYPE=Debug -DIOLAB_WERROR=ON -DIOLAB_SANITIZE=thread >/dev/null
	@cmake --build $(TSAN_BUILD) -j$(JOBS) --target iolab_tests iolab
	cd $(TSAN_BUILD) && TSAN_OPTIONS=halt_on_error=1 ctest --output-on-failure -j$(JOBS) -R '$(THREADED_TESTS)'

clean:
	rm -rf $(BUILD) $(TEST_BUILD) $(TSAN_BUILD)
