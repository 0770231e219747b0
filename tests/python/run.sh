#!/bin/bash
# SPDX-License-Identifier: MIT
# Runs a command (an interpreter and its arguments) with the Python package of
# this checkout importable and bound to $GT_BUILD's library: the test build's
# (hooks/libgputracker.so), whose test hooks read GT_SYSFS_ROOT and the other
# variables of src/lib/util/test_hooks.h, which the production library
# ignores.  A sanitizer
# build's library needs its runtime preloaded into the uninstrumented
# interpreter; leaks are not checked there, as the interpreter's own
# allocations at exit are not the library's, and freed memory is not held in
# quarantine, so memory a program frees is given back as without ASan.
set -eu
# GT_BUILD relative to the caller's folder, made absolute: the tests run in
# folders of their own.
if [ -n "${GT_BUILD:-}" ]; then
    GT_BUILD=$(cd "$GT_BUILD" && pwd)
fi
cd "$(dirname "$0")/../.."
export GT_BUILD=${GT_BUILD:-$PWD/build}
export PYTHONPATH="$PWD/python${PYTHONPATH:+:$PYTHONPATH}"
export GPU_TRACKER_LIB="$GT_BUILD/hooks/libgputracker.so" GT_REF="$PWD/tests/fixtures/reference"
if nm -D --undefined-only "$GPU_TRACKER_LIB" | grep -q __asan_init; then
    LD_PRELOAD=$(clang -print-file-name=libclang_rt.asan-x86_64.so)
    export LD_PRELOAD ASAN_OPTIONS=detect_leaks=0:quarantine_size_mb=0
fi
exec "$@"
