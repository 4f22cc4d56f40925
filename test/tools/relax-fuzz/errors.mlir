// relax-fuzz refuses what it cannot run in one line and exit code 2 (1 means a mutant
// failed), before running any mutant.

// RUN: not relax-fuzz --corpus %t.missing 2>&1 | filecheck %s --check-prefix=MISSING
// MISSING: relax-fuzz: error: corpus '{{.*}}.missing': no such file or directory
// MISSING-NOT: Traceback

// RUN: rm -rf %t.empty && mkdir -p %t.empty && not relax-fuzz --corpus %t.empty 2>&1 | filecheck %s --check-prefix=EMPTY
// EMPTY: relax-fuzz: error: no program in the corpus ('{{.*}}.empty'): it needs .mlir files

// RUN: rm -rf %t.dir && mkdir -p %t.dir && not relax-fuzz --count 1 --log %t.dir 2>&1 | filecheck %s --check-prefix=LOG
// LOG: relax-fuzz: error: cannot write log '{{.*}}.dir': Is a directory

// RUN: not relax-fuzz --count -1 2>&1 | filecheck %s --check-prefix=COUNT
// COUNT: relax-fuzz: error: argument --count: expected an integer in [0, 9223372036854775807], got -1 (see --help)
// COUNT-NOT: usage

// RUN: not relax-fuzz --timeout 1e300 2>&1 | filecheck %s --check-prefix=TIMEOUT
// TIMEOUT: relax-fuzz: error: argument --timeout: expected a number of seconds in (0, 1e+06], got 1e300 (see --help)
// RUN: not relax-fuzz --timeout nan 2>&1 | filecheck %s --check-prefix=NAN
// NAN: relax-fuzz: error: argument --timeout: expected a number of seconds in (0, 1e+06], got nan (see --help)
// RUN: not relax-fuzz --jobs 100000 2>&1 | filecheck %s --check-prefix=JOBS
// JOBS: relax-fuzz: error: argument --jobs: expected an integer in [0, 256], got 100000 (see --help)
// RUN: not relax-fuzz --memory-limit-mb 99999999999999999999 2>&1 | filecheck %s --check-prefix=MEMORY
// MEMORY: relax-fuzz: error: argument --memory-limit-mb: expected an integer in [1, 1099511627776], got 99999999999999999999 (see --help)

// A corpus file runs (this one: its program below).
// RUN: relax-fuzz --corpus %s --count 3 | filecheck %s --check-prefix=RUNS
// RUNS: | total | 3 | |

relax.func @main(%x: !relax.tensor<[n], f32>) -> !relax.tensor<[n], f32> {
  %y = relax.exp %x : (!relax.tensor<[n], f32>) -> !relax.tensor<[n], f32>
  relax.return %y : !relax.tensor<[n], f32>
}
