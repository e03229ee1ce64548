# The whole setup: `make run` and `make test` each install what is missing, configure and build.
JOBS ?= 2
BUILD ?= build
TEST_BUILD ?= build-test

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

clean:
	rm -rf $(BUILD) $(TEST_BUILD)
